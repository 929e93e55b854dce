"""Broadcast-1 (opset1-2) and Broadcast-3 (opset3-16): `data` repeated to the shape that
`target_shape` holds, by `mode`; `axes_mapping` (explicit mode) names the target axes that the
data's axes map to.

What OpenVINO 2026.4 does (measured, docs/ops/Broadcast.md): modes numpy (the default),
explicit (or none) with `axes_mapping`, pdpd (aligned at axis 0, its `axis` never read) and,
from Broadcast-3, bidirectional; the target, integer and 1-D, read as dims from its values or
bounds (-1 dynamic, below -1 empty) and checked against the data by the mode. What the CPU
plugin cannot run with a constant target (a scalar to `[]`, data of no elements, 8-bit or
negative targets, pdpd data of higher rank) is IR617 or IR618; what it runs wrongly with a target
given at run time refuses the run.
The kernel is in irpool.execute.kernels.broadcast.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from copy import copy
from typing import TYPE_CHECKING, Any, ClassVar

from irpool.element_types import takes_integer_input
from irpool.ops.arithmetic import broadcast, numpy_dim
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo, read_value
from irpool.ops.bounds import UNBOUNDED, bounded, moved_bounds
from irpool.ops.explanation import Explanation
from irpool.ops.folding import FOLDED_SIZE, folded, integer_values
from irpool.ops.registry import register
from irpool.shape import Dim, Shape

if TYPE_CHECKING:
    from numpy.typing import NDArray

MODE = Attr(
    "mode",
    AttrType.ENUM,
    default="numpy",
    choices=("numpy", "explicit", "none", "bidirectional", "pdpd"),
    choice_since={"bidirectional": 3},
)
ONE = Dim.static(1)


def target_dim(value: int) -> Dim:
    """A target value as OpenVINO reads it into a dim: -1 (and int64's largest) dynamic,
    below -1 an empty axis."""
    if value == -1 or value == UNBOUNDED:
        return Dim.dynamic()
    return Dim.static(max(value, 0))


def target_dims(target: TensorInfo) -> list[Dim] | None:
    """A shape input (a target shape) as dims, from its values or their bounds; None where
    it is unknown."""
    read_value(target, "the target shape")
    values = integer_values(target)
    if target.element_type == "u64" and min(values or [0]) < 0:
        raise ShapeError(
            f"Value {min(values or [0]) + (1 << 64)} not in range "
            "[-9223372036854775808:9223372036854775807]"
        )
    if values is not None:
        return [target_dim(v) for v in values]
    if target.bounds is None:
        return None
    return [
        target_dim(low) if low == high else Dim(max(low, 0), None if high == UNBOUNDED else high)
        for low, high in zip(target.bounds.lower, target.bounds.upper, strict=True)
    ]


def _check_numpy(data: Shape, target: list[Dim]) -> None:
    if data.dims is None:
        return
    if len(target) < len(data.dims):
        raise ShapeError(
            f"Broadcast target_shape has smaller rank {len(target)} than arg shape {len(data.dims)}"
        )
    for dim, wanted in zip(data.dims, target[len(target) - len(data.dims) :], strict=True):
        if not (dim.is_static and wanted.is_static) or dim.value in (1, wanted.value):
            continue
        allowed = "" if wanted.value == 1 else f" or {wanted}"
        raise ShapeError(
            f"Input shape dimension equal {dim} cannot be broadcasted (numpy mode) to {wanted}. "
            f"Allowed input dimension value would be 1{allowed}"
        )


def _check_explicit(data: tuple[Dim, ...], axes: list[int], target: list[Dim]) -> None:
    """validate_target_shape_none: axes read as unsigned (a negative one is huge)."""
    unsigned = [a % (1 << 64) for a in axes]
    if unsigned != sorted(unsigned):
        shown = ", ".join(map(str, unsigned))
        raise ShapeError(
            f"Broadcast doesn't permit transposes. axes_mapping AxisVector{{{shown}}} not in "
            "sorted order"
        )
    if not data and unsigned:
        if unsigned[0] >= len(target):
            raise ShapeError("Accessing out-of-range dimension")
        if not target[unsigned[0]].admits(1):
            raise ShapeError(
                f"Broadcast target[axes_mapping[0]]. Expected 1. Got {target[unsigned[0]]}"
            )
    for index, axis in enumerate(unsigned):
        if axis >= len(target):
            raise ShapeError(
                f"Broadcast axes_mapping[{index}]: {axis} exceeds target rank {len(target)}"
            )
        if data and target[axis].overlap(data[index]) is None and not data[index].admits(1):
            raise ShapeError(
                f"Broadcast target[axes_mapping[{index}]] Expected {data[index]}. "
                f"Got {target[axis]}"
            )


def _bidirectional(data: Shape, target: list[Dim]) -> Shape:
    if data.dims is None:
        return Shape.dynamic()
    rank = max(len(data.dims), len(target))
    left = (ONE,) * (rank - len(data.dims)) + data.dims
    right = (ONE,) * (rank - len(target)) + tuple(target)
    dims = []
    for a, b in zip(left, right, strict=True):
        try:
            dims.append(numpy_dim(a, b))
        except ShapeError:
            raise ShapeError(
                f"Broadcast incorrect target shape. Expecting either 1 or {a}. Got {b}"
            ) from None
    return Shape(tuple(dims))


def _pdpd(data: Shape, target: list[Dim]) -> Shape:
    """The data aligned at axis 0 (the IR gives no axis); each dim 1, or the target's."""
    if data.dims is None:
        return Shape((Dim.dynamic(),) * len(target))
    dims = []
    for axis, wanted in enumerate(target):
        if axis >= len(data.dims):
            raise ShapeError("Accessing out-of-range dimension")
        dim = data.dims[axis]
        if dim == ONE or wanted == ONE:
            dims.append(wanted if dim == ONE else dim)
        elif (both := dim.overlap(wanted)) is not None:
            dims.append(both)
        else:
            raise ShapeError(
                f"Broadcast incorrect target shape. Expecting either 1 or {dim} . Got {wanted}"
            )
    return Shape(tuple(dims))


class Broadcast(Op):
    """The shared checks and shape inference; the versions differ in modes and inputs."""

    type_name = "Broadcast"
    attributes: ClassVar[tuple[Attr, ...]] = (MODE,)
    input_names: ClassVar[tuple[str, ...]] = ("data", "target_shape", "axes_mapping")
    optional_inputs = 1

    # Whether the layer's target is a constant (the CPU runs some run-time targets wrongly).
    constant_target = True

    def for_layer(self, inputs: Sequence[TensorInfo]) -> Broadcast:
        if inputs[1].value is not None:
            return self
        layer_op = copy(self)
        layer_op.constant_target = False
        return layer_op

    def mode(self, count: int) -> str:
        """The mode as OpenVINO runs it with `count` inputs; ShapeError where it refuses."""
        mode: str = self.attrs["mode"]
        return "explicit" if mode == "none" else mode

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, target = inputs[:2]
        mode = self.mode(len(inputs))
        axes = inputs[2] if mode == "explicit" else None
        if not takes_integer_input(target.element_type):
            raise ShapeError(
                f"Broadcast shape must be an integral number, but is: {target.element_type}"
            )
        if axes is not None and not takes_integer_input(axes.element_type):
            raise ShapeError(
                f"Broadcast axes must be integral numbers, but are: {axes.element_type}"
            )
        for info, name in ((target, "shape"), (axes, "axes")):
            if info is not None and info.shape.rank not in (None, 1):
                raise ShapeError(f"Broadcast {name} rank must be 1, but has {info.shape.rank}")
        dims = target_dims(target)
        axes_values = None if axes is None else self._axes(data.shape, target, axes, dims)
        shape = self._shape(data.shape, target.shape, dims, mode)
        values = integer_values(target)
        if values is not None and ctx.at_run_time:
            problem = _run_time_problem(data.shape, values, mode)
            if problem:
                raise ShapeError(f"{problem}: the CPU plugin gives garbage or an empty tensor")
        if not shape.is_static:
            # without the target's values OpenVINO still reads a Concat's constant elements
            return [TensorInfo(data.type, shape, unknown=dims is None)]
        out = shape.values()
        if mode == "pdpd" and data.shape.rank != len(out):
            return [TensorInfo(data.type, shape)]  # the CPU's elements are garbage
        if mode == "explicit" and axes_values is None:
            return [TensorInfo(data.type, shape)]  # where the elements go is not known

        def moved(array: NDArray[Any]) -> NDArray[Any]:
            return broadcast_array(array, out, axes_values)

        value = folded(data, moved) if math.prod(out) <= FOLDED_SIZE else None
        if value is not None:
            return [TensorInfo(data.type, shape, value)]
        return [bounded(data.type, shape, moved_bounds(data, moved))]

    @staticmethod
    def _axes(
        data: Shape, target: TensorInfo, axes: TensorInfo, dims: list[Dim] | None
    ) -> list[int] | None:
        """Explicit mode's axes_mapping, checked as OpenVINO checks it once it knows enough."""
        read_value(axes, "axes_mapping")
        if data.dims is None or target.shape.rank is None or not axes.shape.is_static:
            return None
        count = axes.shape[0].value
        rank = 1 if not data.dims and count > 0 else len(data.dims)
        if count != rank:
            raise ShapeError(
                f"Broadcast axes_mapping shape {axes.shape} doesn't match rank of input "
                f"tensor {rank}"
            )
        values = integer_values(axes)
        if dims is not None and values is not None:
            _check_explicit(data.dims, values, dims)
        return values

    @staticmethod
    def _shape(data: Shape, target: Shape, dims: list[Dim] | None, mode: str) -> Shape:
        if dims is None:
            length = target[0] if target.rank == 1 else Dim.dynamic()
            if not length.is_static:
                return Shape.dynamic()
            unknown = Shape((Dim.dynamic(),) * length.value)
            if mode != "bidirectional":
                return unknown
            return Shape.dynamic() if data.dims is None else broadcast(unknown, data, "numpy")
        if mode == "bidirectional":
            return _bidirectional(data, dims)
        if mode == "pdpd":
            return _pdpd(data, dims)
        if mode == "numpy":
            _check_numpy(data, dims)
        return Shape(tuple(dims))

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        mode = self.mode(len(inputs))
        data = inputs[0]
        source = "?" if data is None else str(data.shape)
        axes = inputs[2] if len(inputs) > 2 and mode == "explicit" else None
        mapping = "" if axes is None or axes.value is None else f", axes_mapping {axes.value}"
        return Explanation(f"mode {mode}: {source} to {outputs[0].shape}{mapping}", [])

    def run_shape(
        self, data: tuple[int, ...], rest: Sequence[NDArray[Any]]
    ) -> tuple[tuple[int, ...], list[int] | None]:
        """The output shape and (explicit mode) axes for concrete inputs (the kernel's)."""
        values = [int(v) for v in rest[0].ravel().tolist()]
        mode = self.mode(1 + len(rest))
        plain = _plain_shape(data, values, mode)
        if plain is not None:
            return plain, None
        target = [target_dim(v) for v in values]
        check = wrong_shape if self.constant_target else _run_time_problem
        problem = check(Shape.of(*data), values, mode)
        if problem:
            raise ShapeError(f"{problem}: the CPU plugin gives garbage or an empty tensor")
        shape = self._shape(Shape.of(*data), Shape.of(len(target)), target, mode)
        if mode != "explicit":
            return shape.values(), None
        axes = [int(v) for v in rest[1].ravel()]
        _check_explicit(tuple(Dim.static(d) for d in data), axes, target)
        return shape.values(), axes

    def fold_constant(self, inputs: Sequence[NDArray[Any]]) -> NDArray[Any] | None:
        """OpenVINO's folding repeats the constant as written (the kernel holds it as the
        CPU plugin does)."""
        shape, axes = self.run_shape(inputs[0].shape, inputs[1:])
        return broadcast_array(inputs[0], shape, axes).copy()


def _plain_shape(data: tuple[int, ...], values: list[int], mode: str) -> tuple[int, ...] | None:
    """The output shape in ints where the checks pass without a doubt: numpy or
    bidirectional mode, target values from 0 to below int64's largest, each pair of dims
    equal or one of them 1 (Shape and Dim objects cost microseconds a dim). None: the
    general path decides, and says what is wrong."""
    if mode not in ("numpy", "bidirectional") or not values:
        return None
    if min(values) < 0 or max(values) >= UNBOUNDED or (mode == "numpy" and len(values) < len(data)):
        return None
    rank = max(len(data), len(values))
    left = (1,) * (rank - len(data)) + data
    right = (1,) * (rank - len(values)) + tuple(values)
    if mode == "numpy":
        return right if all(a in (1, b) for a, b in zip(left, right, strict=True)) else None
    if not all(a == b or 1 in (a, b) for a, b in zip(left, right, strict=True)):
        return None
    return tuple(b if a == 1 else a for a, b in zip(left, right, strict=True))


def wrong_shape(data: Shape, values: list[int], mode: str) -> str | None:
    """Why the CPU plugin runs another shape than OpenVINO infers, constant target or not
    (measured: an empty axis for a negative value, garbage for pdpd's higher data rank)."""
    if min(values, default=0) < 0:
        return f"a negative target value ({min(values)})"
    if mode == "pdpd" and data.rank is not None and data.rank > len(values):
        return f"pdpd data of rank {data.rank} to a target of rank {len(values)}"
    return None


def _run_time_problem(data: Shape, values: list[int], mode: str) -> str | None:
    """Why the CPU plugin runs a target given at run time wrongly, if it does (measured:
    garbage for an empty bidirectional target, which it runs right when constant)."""
    if mode == "bidirectional" and not values:
        return "an empty bidirectional target"
    return wrong_shape(data, values, mode)


def broadcast_array(
    data: NDArray[Any], shape: tuple[int, ...], axes: Sequence[int] | None
) -> NDArray[Any]:
    """`data` repeated to `shape` (a read-only view): its axes at `axes` (explicit mode),
    else aligned at the end; pdpd's equal ranks align alike."""
    import numpy as np

    data = data.reshape(placed_shape(data.shape, len(shape), axes))
    return np.broadcast_to(data, np.broadcast_shapes(data.shape, shape))


def placed_shape(data: tuple[int, ...], rank: int, axes: Sequence[int] | None) -> tuple[int, ...]:
    """The data's shape with its axes at `axes` of a target of `rank` (explicit mode), 1
    elsewhere; else the data's shape, aligned at the end by broadcasting."""
    if axes is None:
        return data
    placed = [1] * rank
    for axis, size in zip(axes, data or (1,) * len(axes), strict=True):
        placed[axis] = size
    return tuple(placed)


@register
class Broadcast1(Broadcast):
    version = 1
    opsets = range(1, 3)

    def mode(self, count: int) -> str:
        mode = super().mode(count)
        if mode == "explicit" and count < 3:
            return "numpy"  # as OpenVINO's Broadcast-1 reads it
        if mode == "pdpd" and count < 3:
            raise ShapeError("index '2' out of range")
        return mode


@register
class Broadcast3(Broadcast):
    version = 3
    opsets = range(3, 17)

    def mode(self, count: int) -> str:
        mode = super().mode(count)
        if mode == "explicit" and count != 3:
            raise ShapeError("axes_mapping input should be provided if explicit mode is used")
        if mode != "explicit" and count != 2:
            raise ShapeError(
                "axes_mapping input should not be provided for mode other than explicit"
            )
        return mode
