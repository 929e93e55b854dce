"""Reshape-1 (opset1-16): `data` to the shape a `pattern` input gives, `special_zero` attribute.

Shape inference reproduces OpenVINO 2026.4's (reshape_shape_inference.hpp) on intervals: a
pattern value 0 copies the input dim at the same position when `special_zero` is true, and one
-1 takes what the others leave. Dims equal (and static, non-zero) on both sides cancel before
the -1 is divided out, which is how `[?,3,4]` with `[0,-1]` stays `[?,12]`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from irpool.element_types import takes_integer_input
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo, read_value
from irpool.ops.bounds import UNBOUNDED, moved
from irpool.ops.folding import integer_values
from irpool.ops.registry import register
from irpool.rules import RESHAPE_ELEMENT_COUNT
from irpool.shape import Dim, Shape

if TYPE_CHECKING:
    from numpy.typing import NDArray


def _times(a: int, b: int) -> int:
    """Interval bound product as OpenVINO clips it: 0 wins, then saturation at UNBOUNDED."""
    if a == 0 or b == 0:
        return 0
    if UNBOUNDED in (a, b) or a > UNBOUNDED // b:
        return UNBOUNDED
    return a * b


@dataclass(frozen=True, slots=True)
class _Interval:
    """An ov::Interval: `low > high` is canonicalized to the empty interval."""

    low: int
    high: int

    @staticmethod
    def of(dim: Dim) -> _Interval:
        return _Interval(dim.low, UNBOUNDED if dim.high is None else dim.high)

    @property
    def is_static(self) -> bool:
        return self.low == self.high

    @property
    def empty(self) -> bool:
        return self.low > self.high or self.low == UNBOUNDED

    def __mul__(self, other: _Interval) -> _Interval:
        if self.empty:
            return self
        if other.empty:
            return other
        return _Interval(_times(self.low, other.low), _times(self.high, other.high))

    def dim(self) -> Dim:
        return Dim(self.low, None if self.high == UNBOUNDED else self.high)


ONE = _Interval(1, 1)
DYNAMIC = _Interval(0, UNBOUNDED)


@dataclass(slots=True)
class _Product:
    """Products of the input and output dims, static part and dynamic part apart."""

    static_in: _Interval = ONE
    dynamic_in: _Interval = ONE
    static_out: _Interval = ONE
    dynamic_out: _Interval = ONE
    inputs: list[_Interval] = field(default_factory=list)
    outputs: list[_Interval] = field(default_factory=list)

    def set_unbounded(self) -> None:
        self.dynamic_in = DYNAMIC
        self.dynamic_out = DYNAMIC

    def calculate(self) -> None:
        """Static non-zero dims found on both sides cancel; the rest multiply."""
        outs = list(self.outputs)
        for dim in self.inputs:
            match = next((o for o in outs if dim.is_static and o == dim and dim.low != 0), None)
            if match is None:
                self._multiply_in(dim)
            else:
                outs.remove(match)
        for dim in outs:
            if dim.is_static:
                self.static_out = dim * self.static_out
            else:
                self.dynamic_out = dim * self.dynamic_out
        if self.static_in != self.static_out:
            self.dynamic_in = self.dynamic_in * self.static_in
            self.dynamic_out = self.dynamic_out * self.static_out

    def _multiply_in(self, dim: _Interval) -> None:
        if dim.is_static:
            self.static_in = dim * self.static_in
        else:
            self.dynamic_in = dim * self.dynamic_in

    def minus_one(self) -> _Interval:
        """The dim a -1 resolves to (resolve_minus_one_dim)."""
        known, out = self.dynamic_in, self.dynamic_out
        if known.is_static and out.is_static:
            if out.low == 0:
                return known  # only reached when static_out is 0, which is checked after
            # the dims whose product with `out` is `known`: empty when it does not divide
            return _Interval(-(-known.low // out.low), known.high // out.low)
        high = UNBOUNDED
        if known.high != UNBOUNDED and out.low != 0 and out != DYNAMIC:
            high = known.high // out.low
        low = known.low
        if out.high != 0:
            low = -(-known.low // out.high)
        return _Interval(low, high)


def reshaped(data: Shape, pattern: Sequence[int | Dim], special_zero: bool) -> Shape:
    """The output shape of Reshape-1 for a known pattern, or ShapeError as OpenVINO fails. A
    pattern element known only by its bounds (a dim of a dynamic model's ShapeOf) is a Dim,
    and becomes that dim of the output."""
    written = _written(pattern)
    minus_one = None
    dims: list[_Interval] = []
    for index, value in enumerate(pattern):
        if isinstance(value, Dim):
            if value.low < 0:
                high = UNBOUNDED if value.high is None else value.high
                raise ShapeError(
                    f"Output pattern dim[{index}] has invalid bounds: {value.low},{high}"
                )
            dims.append(_Interval.of(value))
            continue
        if value < -1:
            raise ShapeError(f"pattern {written}: value {value} at position {index} is below -1")
        if value == -1:
            if minus_one is not None:
                raise ShapeError(f"pattern {written} has more than one -1")
            minus_one = index
        dims.append(DYNAMIC if value == -1 else _Interval(value, value))
    product = _Product()
    out: list[_Interval] = []
    if data.dims is None:
        for dim in dims:
            if special_zero and dim == _Interval(0, 0):
                out.append(DYNAMIC)
                product.set_unbounded()
            else:
                out.append(dim)
                product.outputs.append(dim)
    else:
        source = [_Interval.of(d) for d in data.dims]
        for index, dim in enumerate(dims):
            copies = special_zero and dim == _Interval(0, 0)
            if index == minus_one:
                out.append(DYNAMIC)
            elif copies:
                if index >= len(source):
                    raise ShapeError(
                        f"pattern {written}: the 0 at position {index} copies an input dim, "
                        f"but the input {data} has rank {len(source)}"
                    )
                out.append(source[index])
            else:
                out.append(dim)
                product.outputs.append(dim)
            if index < len(source) and not copies:
                product.inputs.append(source[index])
        product.inputs.extend(source[len(dims) :])
    product.calculate()
    if minus_one is not None:
        out[minus_one] = product.minus_one()
        if product.static_out.low == 0:
            if product.static_in.low != 0:
                raise ShapeError(
                    f"pattern {written}: the -1 cannot be resolved, as the pattern has a "
                    f"zero-size dim but the input {data} has none"
                )
        elif out[minus_one].empty:
            raise ShapeError(
                f"pattern {written}: the values besides -1 do not evenly divide the input {data}"
            )
    result = Shape(tuple(d.dim() for d in out))
    if data.is_static and result.is_static:
        copies_zero = special_zero and any(d == _Interval(0, 0) for d in dims)
        if not (copies_zero or minus_one is not None) and product.static_in != product.static_out:
            raise ShapeError(
                f"pattern {written} gives {result}, which does not hold the input {data}"
            )
    return result


@register
class Reshape1(Op):
    """Reshape-1: inputs `data` and `pattern` (a 1-D integer tensor)."""

    takes_strings = True
    type_name = "Reshape"
    version = 1
    opsets = range(1, 17)
    input_names = ("data", "pattern")
    # Without <data> OpenVINO reads special_zero=false (measured): IR203, not IR215.
    attributes = (Attr("special_zero", AttrType.BOOL, default=False, required=True),)

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, pattern = inputs
        if not takes_integer_input(pattern.element_type):
            raise ShapeError(f"the pattern is {pattern.element_type}; it must be an integer type")
        rank = pattern.shape.rank
        if rank is not None and rank != 1:
            raise ShapeError(f"the pattern has shape {pattern.shape}; it must be 1-D")
        read_value(pattern, "the pattern")
        exact = integer_values(pattern)
        values: list[int | Dim] | None = None if exact is None else list(exact)
        if values is None and pattern.bounds is not None:  # a dynamic model's ShapeOf pieces
            values = [d.value if d.is_static else d for d in pattern.bounds.dims()]
        if values is None:
            return [TensorInfo(data.type, _unknown_pattern_shape(pattern.shape))]
        if exact is not None and data.shape.is_static:  # a decode step's, at every token
            target = plain_target(data.shape.values(), exact, self.attrs["special_zero"])
            if target is not None:
                return [reshaped_info(data, Shape.of(*target))]
        shape = reshaped(data.shape, values, self.attrs["special_zero"])
        if data.shape.is_static and shape.is_static:
            problem = _count_problem(data.shape.values(), shape.values())
            if problem:
                ctx.report(RESHAPE_ELEMENT_COUNT, f"pattern {_written(values)}: {problem}")
                return [TensorInfo(data.type, shape)]
        return [reshaped_info(data, shape)]

    def target_shape(self, data: tuple[int, ...], rest: Sequence[NDArray[Any]]) -> tuple[int, ...]:
        """The output shape for a concrete input and pattern (what the kernel uses)."""
        pattern = [int(v) for v in rest[0].ravel()]
        plain = plain_target(data, pattern, self.attrs["special_zero"])
        if plain is not None:
            return plain
        shape = reshaped(Shape.of(*data), pattern, self.attrs["special_zero"]).values()
        problem = _count_problem(data, shape)
        if problem:
            raise ShapeError(problem)
        return shape


def plain_target(
    data: tuple[int, ...], pattern: list[int], special_zero: bool
) -> tuple[int, ...] | None:
    """The output shape of a pattern of positive dims, copied dims (0 with `special_zero`) and
    at most one -1, that holds the input's elements exactly, in plain ints (a decode step's
    reshapes); None for anything else, which `reshaped` decides."""
    dims = list(pattern)
    free = None
    for index, dim in enumerate(dims):
        if dim == 0 and special_zero and index < len(data):
            dims[index] = data[index]
        elif dim == -1 and free is None:
            free = index
        elif dim <= 0:
            return None
    size, known = math.prod(data), math.prod(d for i, d in enumerate(dims) if i != free)
    if free is not None:
        if size == 0 or known == 0 or size % known:
            return None
        dims[free] = size // known
    return tuple(dims) if math.prod(dims) == size else None


def _count_problem(source: tuple[int, ...], target: tuple[int, ...]) -> str | None:
    """Why OpenVINO's CPU plugin misreads this reshape, if it does."""
    have, want = math.prod(source), math.prod(target)
    if have == want:
        return None
    effect = "reads past the input's end" if want > have else "drops elements"
    return (
        f"the output {Shape.of(*target)} holds {want} elements, the input {Shape.of(*source)} "
        f"{have}; OpenVINO accepts it (its count check is skipped when the pattern has a "
        f"0 or -1) and its CPU plugin {effect}"
    )


def _unknown_pattern_shape(pattern: Shape) -> Shape:
    """Without the pattern's values: its length gives the rank, if it is static."""
    if pattern.rank == 1 and pattern[0].is_static:
        return Shape((Dim.dynamic(),) * pattern[0].value)
    return Shape.dynamic()


def reshaped_info(data: TensorInfo, shape: Shape) -> TensorInfo:
    """`data` with a new shape: its value or bounds, when known, keep their elements."""
    if not shape.is_static:
        return TensorInfo(data.type, shape)
    return moved(data, shape, lambda array: array.reshape(shape.values()))


def _written(pattern: Sequence[int | Dim]) -> str:
    """A pattern as a message shows it: values, and the bounds of those known by bounds."""
    return ",".join(str(v) for v in pattern)
