"""Range-1 (opset1-3) and Range-4 (opset4-17): the 1-D sequence start, start + step, ...
short of stop, as `output_type` (Range-1: its inputs' type).

What OpenVINO 2026.4 does (measured, docs/ops/Range.md): start, stop and step are scalars
("'start' input is not a scalar": a 1-element 1-D tensor too) of any non-boolean type
("'start' input scalar should be a numeric type. Got: boolean"); `output_type` boolean is
refused ("output tensor type should be a numeric type"); absent, the output is `dynamic`,
which the CPU plugin compiles but cannot run, as u1 (IR217); string it cannot compile (IR602).
When all three values are known (constants, or a static shape's ShapeOf pieces) the size is
folded: each read as a double,
truncated toward zero for an integer `output_type`; start and stop finite, step finite and
nonzero before that truncation (a step truncated to 0 gives an empty range); then
ceil((stop - start) / step), 0 when the step points away from stop. Otherwise the size is
dynamic (`[?]`; OpenVINO keeps no bounds of it). The folded values are OpenVINO's reference
computation (`fold_constant`); the CPU plugin's kernel, for values known only at run time,
differs (irpool.execute.kernels.range).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from irpool.element_types import DYNAMIC, element_type
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.explanation import Explanation
from irpool.ops.folding import FOLDED_SIZE
from irpool.ops.registry import register
from irpool.shape import Dim, Shape

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

_NAMES = ("start", "stop", "step")


@register
class Range4(Op):
    type_name = "Range"
    version = 4
    opsets = range(4, 18)
    input_names: ClassVar[tuple[str, ...]] = _NAMES
    attributes: ClassVar[tuple[Attr, ...]] = (
        Attr("output_type", AttrType.ELEMENT_TYPE, default=DYNAMIC, required=True),
    )

    @property
    def output_type(self) -> str:
        output_type: str = self.attrs["output_type"]
        return output_type

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        for info, name in zip(inputs, _NAMES, strict=True):
            if info.shape.rank is not None and info.shape.rank != 0:
                raise ShapeError(f"'{name}' input is not a scalar")
            if info.type.is_boolean:
                raise ShapeError(f"'{name}' input scalar should be a numeric type. Got: boolean")
        kind = element_type(self.output_type)
        if kind.is_boolean:
            raise ShapeError("output tensor type should be a numeric type. Got: boolean")
        values = [info.value for info in inputs]
        if ctx.at_run_time and all(value is not None for value in values):
            return [TensorInfo(kind, Shape.of(self.run_size(values)))]  # type: ignore[arg-type]
        for value, name in zip(values, _NAMES, strict=True):
            if value is not None:
                _check_limit(float(value), name)
        if any(value is None for value in values):
            return [TensorInfo(kind, Shape((Dim.dynamic(),)))]
        start, stop, step = folded_limits([float(v) for v in values], kind.is_integer)  # type: ignore[arg-type]
        size = range_size(start, stop, step)
        value = None
        if size <= FOLDED_SIZE and kind.dtype is not None:
            value = self.fold_constant([v for v in values if v is not None])
        return [TensorInfo(kind, Shape.of(size), value)]

    def uses_f32(self, inputs: Sequence[NDArray[Any]]) -> bool:
        """Whether the CPU plugin's kernel computes in f32 (else in int32)."""
        return element_type(self.output_type).is_float or any(a.dtype.kind == "f" for a in inputs)

    def run_size(self, inputs: Sequence[NDArray[Any]]) -> int:
        """The size the CPU plugin's kernel gives values known at run time:
        ceil(|stop - start| / |step|), whatever the step's sign."""
        import numpy as np  # only a run reads values: validating a model imports no NumPy

        if self.uses_f32(inputs):
            first, last, stride = (_as_f32(a) for a in inputs)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                count = float(np.ceil(np.abs(last - first) / np.abs(stride)))
            if math.isnan(count):
                raise ShapeError(
                    "a Range of NaN elements (NaN or infinite start, stop or step): the CPU "
                    "plugin gives an empty range on one thread and refuses it on several"
                )
            return 0 if math.isinf(count) else int(count)
        start, stop, step = (int(a.astype(np.int32)) for a in inputs)  # 64-bit ones wrapped
        if step == 0:
            raise ShapeError("a Range with an integer step of 0: the CPU plugin divides by it")
        span = abs(int(np.int64(stop - start).astype(np.int32)))  # the difference wraps too
        return -(-span // abs(step))

    def fold_constant(self, inputs: Sequence[NDArray[Any]]) -> NDArray[Any] | None:
        """OpenVINO's reference Range: integers counted in the output type; floats as
        start + i * step from the values as read: in doubles rounded once to f32 and f64
        (measured: 0 by f32 0.1 gives 0.7, not f32's 0.70000005), in f32 then rounded to f16
        for f16 (measured: -9 by 0.3 matches f32 arithmetic at every element, doubles not)."""
        import numpy as np

        kind = element_type(self.output_type)
        dtype = kind.dtype
        if dtype is None:
            return None
        start, stop, step = folded_limits([float(v) for v in inputs], kind.is_integer)
        count = np.arange(range_size(start, stop, step), dtype=np.int64)
        with np.errstate(over="ignore", invalid="ignore"):
            if kind.is_integer:
                return (np.int64(start) + count * np.int64(step)).astype(dtype)
            if dtype == np.float16:
                first, stride = np.float32(start), np.float32(step)
                return (first + count.astype(np.float32) * stride).astype(dtype)
            return (np.float64(start) + count * np.float64(step)).astype(dtype)

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        known = [None if i is None or i.value is None else i.value.item() for i in inputs]
        start, stop, step = (("?" if v is None else f"{v}") for v in known)
        return Explanation(
            f"the range from {start} to {stop} (excluded) by {step}, as {self.output_type}", []
        )


@register
class Range1(Range4):
    """Range-1 (v0, opset1-3): Range-4 whose output type is its inputs' one type.

    Measured: `read_model` refuses inputs of several types ("Element types for start, stop,
    and step do not match.") or boolean ones ("Element type for start, stop, and step, must
    not be boolean."); the rest, the shapes, the folding and the CPU's run-time values are
    Range-4's with that `output_type` (docs/ops/Range.md)."""

    version = 1
    opsets = range(1, 4)
    attributes: ClassVar[tuple[Attr, ...]] = ()

    @property
    def output_type(self) -> str:
        output_type: str = self.attrs.get("output_type", DYNAMIC)
        return output_type

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        return Range4.infer(self.typed_by([info.type.name for info in inputs]), inputs, ctx)

    def for_layer(self, inputs: Sequence[TensorInfo]) -> Op:
        return self.typed_by([info.type.name for info in inputs])

    def fold_constant(self, inputs: Sequence[NDArray[Any]]) -> NDArray[Any] | None:
        from irpool.element_types import of_dtype

        kind = of_dtype(inputs[0].dtype)
        return None if kind is None else Range4.fold_constant(self.typed_by([kind.name]), inputs)

    def typed_by(self, input_types: Sequence[str]) -> Range1:
        """This op with `output_type` the one type of its inputs."""
        types = set(input_types) - {DYNAMIC}
        if len(types) > 1:
            raise ShapeError("Element types for start, stop, and step do not match.")
        if any(element_type(name).is_boolean for name in types):
            raise ShapeError("Element type for start, stop, and step, must not be boolean.")
        typed = copy.copy(self)
        typed.attrs = {"output_type": types.pop() if types else DYNAMIC}
        return typed


def folded_limits(values: list[float], integral: bool) -> tuple[float, float, float]:
    """start, stop and step as OpenVINO's shape inference reads known values."""
    start, stop, step = values
    for value, name in zip(values, _NAMES, strict=True):
        _check_limit(value, name)
    if integral:
        return math.trunc(start), math.trunc(stop), math.trunc(step)
    return start, stop, step


def _check_limit(value: float, name: str) -> None:
    """Each known value is checked on its own, whether or not the others are known."""
    if name == "step" and (not math.isfinite(value) or value == 0):
        raise ShapeError("'step' cannot be zero, nan, or infinite.")
    if not math.isfinite(value):
        raise ShapeError(f"'{name}' cannot be nan or infinite.")


def _as_f32(value: NDArray[Any]) -> np.float32:
    """A run-time input as the CPU plugin takes it in: integers wrapped to int32, f64
    saturated to the f32 range."""
    import numpy as np

    from irpool.ops.convert_fold import F32_MAX  # NumPy: a run's, not validation's

    if value.dtype.kind in "iu":
        return np.float32(value.astype(np.int32))
    if value.dtype == np.float64:
        return np.float32(np.clip(value, -F32_MAX, F32_MAX))
    return np.float32(value)


def range_size(start: float, stop: float, step: float) -> int:
    if step == 0 or (step > 0 and start >= stop) or (step < 0 and start <= stop):
        return 0
    return math.ceil((stop - start) / step)
