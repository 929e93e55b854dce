"""Per-element bounds of small integer tensors: what OpenVINO's shape inference knows of a
shape subgraph's values when they are not constant.

OpenVINO evaluates a lower and an upper value for each element (evaluate_lower/upper), not
symbols: ShapeOf of `[?,6..10,7,7]` is lower `[0,6,7,7]`, upper `[max,10,7,7]`, where `max`
(the type's largest value) means unbounded. Gather, Concat, Squeeze, Unsqueeze and Reshape move
elements, so they move both bounds alike; Convert keeps them; Add, Multiply, Divide and Mod
have their own rules (irpool/ops/arithmetic.py), Subtract and FloorMod are evaluated at the
corners (`corner_bounds`); every other op keeps only exact values.
Reshape reads its pattern's bounds as dims, which is how a dynamic model keeps its shapes.
A tensor whose bounds meet is a value (`TensorInfo.value`), as OpenVINO then folds it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from irpool.element_types import ElementType, Kind
from irpool.shape import Dim, Shape

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from irpool.ops.base import TensorInfo

# An upper bound OpenVINO reads as "unbounded" (the largest value of the tensor's type; held
# here for every integer type as the largest int64, which is also Interval::s_max, at which
# Reshape's interval products saturate).
UNBOUNDED = (1 << 63) - 1
# Bounds are carried for tensors of up to this many elements (shape subgraphs are small).
BOUNDED_SIZE = 64


@dataclass(frozen=True, slots=True)
class Bounds:
    """Lower and upper values of each element, in C order, of a tensor of `shape`."""

    shape: tuple[int, ...]
    lower: tuple[int, ...]
    upper: tuple[int, ...]

    @staticmethod
    def of_dims(dims: Sequence[Dim]) -> Bounds:
        """ShapeOf's bounds for these dims."""
        return Bounds(
            (len(dims),),
            tuple(d.low for d in dims),
            tuple(UNBOUNDED if d.high is None else d.high for d in dims),
        )

    @property
    def exact(self) -> bool:
        return self.lower == self.upper

    def dims(self) -> list[Dim]:
        """The elements as dims (a Reshape pattern's), unbounded uppers open."""
        return [
            Dim(low, None if high == UNBOUNDED else high)
            for low, high in zip(self.lower, self.upper, strict=True)
        ]

    def arrays(self) -> tuple[NDArray[Any], NDArray[Any]]:
        import numpy as np

        return (
            np.array(self.lower, np.int64).reshape(self.shape),
            np.array(self.upper, np.int64).reshape(self.shape),
        )

    @staticmethod
    def of_arrays(lower: NDArray[Any], upper: NDArray[Any]) -> Bounds:
        return Bounds(
            tuple(lower.shape),
            tuple(int(v) for v in lower.ravel()),
            tuple(int(v) for v in upper.ravel()),
        )

    def moved(self, move: Callable[[NDArray[Any]], NDArray[Any]]) -> Bounds:
        """The bounds of an op that only moves elements (gathers, concatenates, reshapes)."""
        lower, upper = self.arrays()
        return Bounds.of_arrays(move(lower), move(upper))


def bounds_of(info: TensorInfo) -> Bounds | None:
    """What is known of a small integer tensor's values: its value as exact bounds, or the
    bounds it carries; None when nothing is (OpenVINO then knows nothing either)."""
    if info.value is not None:
        if not info.type.is_integer or info.value.size > BOUNDED_SIZE:
            return None
        values = tuple(int(v) for v in info.value.ravel())
        return Bounds(tuple(info.value.shape), values, values)
    return info.bounds


def bounded(type_: ElementType, shape: Shape, bounds: Bounds | None) -> TensorInfo:
    """A computed integer tensor: a value when its bounds meet (and its type holds them),
    bounds otherwise."""
    from irpool.ops.base import TensorInfo

    if bounds is None or len(bounds.lower) > BOUNDED_SIZE:
        return TensorInfo(type_, shape)
    if bounds.exact and type_.held_dtype is not None:
        import numpy as np

        value = np.array(bounds.lower, np.int64).reshape(bounds.shape).astype(type_.held_dtype)
        return TensorInfo(type_, shape, value)
    return TensorInfo(type_, shape, bounds=bounds)


def moved_bounds(info: TensorInfo, move: Callable[[NDArray[Any]], NDArray[Any]]) -> Bounds | None:
    """The bounds of a non-constant input after an op that only moves its elements."""
    if info.value is not None or info.bounds is None:
        return None
    return info.bounds.moved(move)


def moved(
    data: TensorInfo, shape: Shape, move: Callable[[NDArray[Any]], NDArray[Any]]
) -> TensorInfo:
    """The output of an op that only moves `data`'s elements into `shape`: its value when
    `data`'s is small and known, else its bounds (Slice, Transpose, the splits, Reshape)."""
    from irpool.ops.base import TensorInfo
    from irpool.ops.folding import folded

    value = folded(data, move)
    if value is not None:
        return TensorInfo(data.type, shape, value)
    return bounded(data.type, shape, moved_bounds(data, move))


def converted_bounds(bounds: Bounds, destination: ElementType) -> Bounds | None:
    """Bounds through a Convert to an integer type: kept where the type holds them (an
    unbounded upper stays unbounded, as OpenVINO maps one type's largest value to the
    other's), dropped otherwise."""
    signed = destination.kind is Kind.SIGNED
    high = (1 << (destination.bits - signed)) - 1
    low = -high - 1 if signed else 0
    values = bounds.lower + tuple(v for v in bounds.upper if v != UNBOUNDED)
    if all(low <= v <= high for v in values):
        return bounds
    return None


def corner_bounds(
    first: Bounds,
    second: Bounds,
    evaluate: Callable[[NDArray[Any], NDArray[Any]], NDArray[Any] | None],
    dtype: Any,
) -> Bounds | None:
    """The bounds of a binary op as OpenVINO's interval_bound_evaluator gives them: the op
    evaluated on the four pairs of its inputs' bounds, the least and the greatest result of
    each element, and `0..max` wherever an input's bound is unbounded (measured,
    docs/shape-values.md#bounds-of-floormod-and-subtract-the-corners: `5..9 floormod 2` is 1, not
    `0..1`; `2 - 3..` is `0..`). None where the op does not
    evaluate (a zero divisor at a corner)."""
    import numpy as np

    l0, u0, l1, u1 = np.broadcast_arrays(*first.arrays(), *second.arrays())
    unbounded = (l0 == UNBOUNDED) | (u0 == UNBOUNDED) | (l1 == UNBOUNDED) | (u1 == UNBOUNDED)
    # The unbounded elements' results are replaced below; 1 evaluates anywhere.
    held = [np.where(unbounded, 1, bound).astype(dtype) for bound in (l0, u0, l1, u1)]
    results = []
    for a, b in ((held[0], held[2]), (held[0], held[3]), (held[1], held[2]), (held[1], held[3])):
        result = evaluate(a, b)
        if result is None:
            return None
        results.append(result.astype(np.int64))
    lower = np.where(unbounded, 0, np.minimum.reduce(results))
    upper = np.where(unbounded, UNBOUNDED, np.maximum.reduce(results))
    return Bounds.of_arrays(lower, upper)
