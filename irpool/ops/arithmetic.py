"""Add-1, Subtract-1, Multiply-1, Divide-1, Mod-1, FloorMod-1 and Power-1 (opset1-16): two
tensors in, broadcast by `auto_broadcast`, one out; the comparisons (Greater, Equal, NotEqual)
share the base class from irpool.ops.comparison.

Shape rules are OpenVINO 2026.4's, measured with `read_model` on every pair of static,
dynamic and interval dims (docs/elementwise.md):
- numpy: ranks aligned at the end; of two dims, one that can be 1 yields to the other (both
  can: the hull of the two intervals), otherwise they must overlap and give the overlap;
- none: equal ranks, each pair of dims overlaps and gives the overlap;
- pdpd: the second input's rank at most the first's, its dims aligned from axis 0 (what the
  IR reader gives, not the specification's -1), each pair as numpy's, except that a static
  dim of the second input larger than a static one of the first is refused ([2,1] and [2,3],
  [0,3] and [1]; a static 1 takes a dynamic 3.., measured);
- explicit: as none.
Both inputs must have one element type; arithmetic refuses boolean. Integer constants fold
with OpenVINO's reference arithmetic (Divide with `m_pythondiv` floors), so ShapeOf
arithmetic keeps its values. The kernels are in irpool.execute.kernels.arithmetic.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from irpool.element_types import ElementType
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.bounds import UNBOUNDED, Bounds, bounded, bounds_of, corner_bounds
from irpool.ops.explanation import Explanation
from irpool.ops.folding import FOLDED_SIZE
from irpool.ops.registry import register
from irpool.shape import Dim, Shape

if TYPE_CHECKING:
    from numpy.typing import NDArray

INCONSISTENT = "Argument shapes are inconsistent."
AUTO_BROADCAST = Attr(
    "auto_broadcast",
    AttrType.ENUM,
    default="numpy",
    choices=("none", "numpy", "pdpd", "explicit"),
)


def _overlap(a: Dim, b: Dim) -> Dim:
    both = a.overlap(b)
    if both is None:
        raise ShapeError(INCONSISTENT)
    return both


def numpy_dim(a: Dim, b: Dim) -> Dim:
    """Two dims broadcast as OpenVINO's Dimension::broadcast_merge."""
    if a is b:  # the static dims are made once (`Dim.static`)
        return a
    a_one, b_one = a.admits(1), b.admits(1)
    if a_one and b_one:
        high = None if a.high is None or b.high is None else max(a.high, b.high)
        return Dim(min(a.low, b.low), high)
    if a_one:
        return b
    if b_one:
        return a
    return _overlap(a, b)


def broadcast(a: Shape, b: Shape, mode: str) -> Shape:
    """The output shape of a binary op for `auto_broadcast` = `mode`; ShapeError as
    OpenVINO refuses the pair."""
    if mode == "numpy":
        if a.dims is None or b.dims is None:
            return Shape.dynamic()
        rank = max(len(a.dims), len(b.dims))
        one = Dim.static(1)
        left = (one,) * (rank - len(a.dims)) + a.dims
        right = (one,) * (rank - len(b.dims)) + b.dims
        return Shape(tuple(numpy_dim(x, y) for x, y in zip(left, right, strict=True)))
    if mode in ("none", "explicit"):
        if a.dims is None:
            return b
        if b.dims is None:
            return a
        if len(a.dims) != len(b.dims):
            raise ShapeError(INCONSISTENT)
        return Shape(tuple(_overlap(x, y) for x, y in zip(a.dims, b.dims, strict=True)))
    return _pdpd(a, b)


def _pdpd(a: Shape, b: Shape) -> Shape:
    if a.dims is None or b.dims is None:
        return Shape.dynamic()
    if len(b.dims) > len(a.dims):
        raise ShapeError(INCONSISTENT)
    dims = list(a.dims)
    for axis, dim in enumerate(b.dims):
        if dim.is_static and dims[axis].is_static and dim.low > dims[axis].low:
            raise ShapeError(INCONSISTENT)
        dims[axis] = numpy_dim(dims[axis], dim)
    return Shape(tuple(dims))


def common_type(a: TensorInfo, b: TensorInfo) -> ElementType:
    """The element type two inputs share (a dynamic one takes the other's); ShapeError as
    OpenVINO refuses two types."""
    if a.type != b.type and not (a.type.is_dynamic or b.type.is_dynamic):
        raise ShapeError(
            f"Arguments do not have the same element type (arg0 element type: "
            f"{a.element_type}, arg1 element type: {b.element_type})."
        )
    return a.type if not a.type.is_dynamic else b.type


def corners(values: list[int]) -> tuple[int, int]:
    """The bounds of a result monotonic in each input, from its values at the corners."""
    return min(values), max(values)


class Binary(Op):
    """The binary ops' shared checks and shape inference; subclasses name the op."""

    version = 1
    opsets = range(1, 17)
    attributes: ClassVar[tuple[Attr, ...]] = (AUTO_BROADCAST,)
    input_names = ("a", "b")
    symbol: ClassVar[str]  # for `irpool explain`
    accepts_boolean: ClassVar[bool] = False
    # OpenVINO bounds the op through its interval_bound_evaluator (corner_bounds), not by
    # element_bounds' own rule.
    bounds_at_corners: ClassVar[bool] = False
    reads_values_of_all = True  # `infer` folds both values or combines both bounds

    @property
    def auto_broadcast(self) -> str:
        mode: str = self.attrs["auto_broadcast"]
        return mode

    def output_type(self, inputs: ElementType) -> ElementType:
        return inputs

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        a, b = inputs
        inputs_type = common_type(a, b)
        if a.type.is_boolean and not self.accepts_boolean:
            raise ShapeError("This operation does not support inputs with element type: boolean")
        try:
            shape = broadcast(a.shape, b.shape, self.auto_broadcast)
        except ShapeError as error:
            raise ShapeError(
                f"{error} {a.shape} and {b.shape} do not broadcast "
                f"(auto_broadcast={self.auto_broadcast})"
            ) from error
        value = None
        if (
            a.value is not None
            and b.value is not None
            and shape.is_static
            and max(a.value.size, b.value.size) <= FOLDED_SIZE
        ):
            value = self.fold_constant([a.value, b.value])
        out = self.output_type(inputs_type)
        if value is None and out.is_integer and shape.is_static and self.auto_broadcast == "numpy":
            bounds = self._bounds(a, b)
            if a.value is not None and b.value is not None:
                # Constants not folded (a zero divisor): OpenVINO's shape inference reads the
                # reference's result as their bounds, but a run computes its own.
                return [TensorInfo(out, shape, bounds=bounds)]
            return [bounded(out, shape, bounds)]
        return [TensorInfo(out, shape, value)]

    def _bounds(self, a: TensorInfo, b: TensorInfo) -> Bounds | None:
        """What OpenVINO's bound evaluation knows of the result of non-constant integer
        inputs known by their bounds (a shape subgraph's), element by element."""
        first, second = bounds_of(a), bounds_of(b)
        if first is None or second is None:
            return None
        import numpy as np

        if self.bounds_at_corners:
            dtype = common_type(a, b).held_dtype
            if dtype not in (np.int32, np.int64):  # the types whose largest value irpool holds
                return None
            return corner_bounds(first, second, self.evaluate_integers, dtype)
        if a.value is not None and b.value is not None:
            return None

        pairs = np.broadcast_arrays(*first.arrays(), *second.arrays())
        lower, upper = [], []
        for la, ua, lb, ub in zip(*(p.ravel().tolist() for p in pairs), strict=True):
            found = self.element_bounds(la, ua, lb, ub)
            if found is None:
                return None
            lower.append(found[0])
            upper.append(found[1])
        shape = pairs[0].shape
        return Bounds(shape, tuple(lower), tuple(upper))

    def element_bounds(self, la: int, ua: int, lb: int, ub: int) -> tuple[int, int] | None:
        """The result's bounds for one element of each input, or None when OpenVINO keeps
        none; an upper bound of UNBOUNDED is unbounded, and makes the result all unknown
        (measured: `4.. * 3`, `4.. // 3` and `? + 1` are `?`). Only exact values by default."""
        return None

    def fold_constant(self, inputs: Sequence[NDArray[Any]]) -> NDArray[Any] | None:
        """Integer constants fold with OpenVINO's reference arithmetic, which differs from the
        CPU kernel's f32 arithmetic; floats fold with the kernel."""
        a, b = inputs
        if a.dtype.kind not in "iu" or self.auto_broadcast == "pdpd":
            return None
        return self.fold_integers(a, b)

    # The NumPy function computing the op's reference result on integers, in their type
    # (wrapping as the reference's C++ integers do).
    reference: ClassVar[str]

    def evaluate_integers(self, a: NDArray[Any], b: NDArray[Any]) -> NDArray[Any] | None:
        """OpenVINO's reference result on any integers, as its bound evaluation computes it."""
        return self.fold_integers(a, b)

    def fold_integers(self, a: NDArray[Any], b: NDArray[Any]) -> NDArray[Any] | None:
        """OpenVINO's reference result for integer constants (shape arithmetic); None: not
        folded (left to the kernel)."""
        import numpy as np

        with np.errstate(over="ignore"):
            result: NDArray[Any] = getattr(np, self.reference)(a, b, dtype=a.dtype)
        return result

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        return Explanation(f"a {self.symbol} b, auto_broadcast={self.auto_broadcast}", [])


@register
class Add1(Binary):
    type_name = "Add"
    symbol = "+"
    reference = "add"

    def element_bounds(self, la: int, ua: int, lb: int, ub: int) -> tuple[int, int] | None:
        if UNBOUNDED in (ua, ub):
            return (0, UNBOUNDED) if min(la, lb) >= 0 else None
        return la + lb, ua + ub


@register
class Subtract1(Binary):
    type_name = "Subtract"
    symbol = "-"
    reference = "subtract"
    bounds_at_corners = True


@register
class Multiply1(Binary):
    type_name = "Multiply"
    symbol = "*"
    reference = "multiply"

    def element_bounds(self, la: int, ua: int, lb: int, ub: int) -> tuple[int, int] | None:
        """Measured: `6..10 * 2` is `12..20`, `6..10 * -1` is `-10..-6`."""
        if UNBOUNDED in (ua, ub):
            return (0, UNBOUNDED) if min(la, lb) >= 0 else None
        return corners([la * lb, la * ub, ua * lb, ua * ub])


@register
class Divide1(Binary):
    """Divide-1: `m_pythondiv` (default true) rounds an integer quotient down instead of
    toward zero, in constant folding only: the CPU plugin truncates either way (measured)."""

    type_name = "Divide"
    symbol = "/"
    reference = "floor_divide"
    attributes = (AUTO_BROADCAST, Attr("m_pythondiv", AttrType.BOOL, default=True))

    @property
    def python_division(self) -> bool:
        return bool(self.attrs["m_pythondiv"])

    def element_bounds(self, la: int, ua: int, lb: int, ub: int) -> tuple[int, int] | None:
        """A dim by a number that cannot be 0 (measured: `6..10 // 2` is `3..5`, `12 //
        6..10` is `1..2`, `6..10 // -2` is `-5..-3`, `? // 2` stays `?`)."""
        if la < 0 or lb <= 0 <= ub:
            return None
        if UNBOUNDED in (ua, ub):
            return (0, UNBOUNDED) if lb > 0 else None
        if self.python_division:
            return corners([la // lb, la // ub, ua // lb, ua // ub])
        return corners([int(x / y) for x in (la, ua) for y in (lb, ub)])  # small: exact

    def fold_integers(self, a: NDArray[Any], b: NDArray[Any]) -> NDArray[Any] | None:
        import numpy as np

        if not np.all(b):  # division by zero: left to the run's folding (the CPU kernel)
            return None
        floored = super().fold_integers(a, b)
        if self.python_division or floored is None:
            return floored
        with np.errstate(over="ignore"):
            inexact = np.remainder(a, b, dtype=a.dtype) != 0
            truncated: NDArray[Any] = floored + (inexact & ((a < 0) != (b < 0))).astype(a.dtype)
        return truncated


@register
class Mod1(Binary):
    """Mod-1: the remainder with the dividend's sign (truncated division)."""

    type_name = "Mod"
    symbol = "mod"
    reference = "fmod"

    def element_bounds(self, la: int, ua: int, lb: int, ub: int) -> tuple[int, int] | None:
        """A dim mod a positive number (measured: `6..7 mod 4` is `2..3`, `6..10 mod 4` is
        `0..3`, `6..10 mod 20` is `6..10`; an unbounded dim stays `?`)."""
        if la < 0 or lb != ub or lb <= 0:
            return None
        if ua == UNBOUNDED:
            return 0, UNBOUNDED
        if la // lb == ua // lb:
            return la % lb, ua % lb
        return 0, lb - 1

    def fold_integers(self, a: NDArray[Any], b: NDArray[Any]) -> NDArray[Any] | None:
        import numpy as np

        return super().fold_integers(a, b) if np.all(b) else None


@register
class FloorMod1(Binary):
    """FloorMod-1: the remainder with the divisor's sign (floored division)."""

    type_name = "FloorMod"
    symbol = "floormod"
    bounds_at_corners = True

    def fold_integers(self, a: NDArray[Any], b: NDArray[Any]) -> NDArray[Any] | None:
        import numpy as np

        return self.evaluate_integers(a, b) if np.all(b) else None

    def evaluate_integers(self, a: NDArray[Any], b: NDArray[Any]) -> NDArray[Any] | None:
        """The reference's x - y * floor(x / y), in double (so -2**62 floormod 3 is 0, and x
        floormod 0 is NaN cast: the type's minimum, as its bounds are evaluated)."""
        import numpy as np

        x, y = a.astype(np.float64), b.astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return _double_to_integer(x - y * np.floor(x / y), a.dtype)


@register
class Power1(Binary):
    """Power-1: a raised to b; integer constants fold as the reference's std::pow in double,
    truncated (2 ** -1 is 0)."""

    type_name = "Power"
    symbol = "^"

    def fold_integers(self, a: NDArray[Any], b: NDArray[Any]) -> NDArray[Any] | None:
        import numpy as np

        with np.errstate(all="ignore"):
            powers = np.power(a.astype(np.float64), b.astype(np.float64))
        return _double_to_integer(powers, a.dtype)


def _double_to_integer(values: NDArray[Any], dtype: Any) -> NDArray[Any] | None:
    """A double result cast to i32 or i64 as C++ does on x86: truncated, NaN and out of range
    give the type's minimum. None for the other integer types (casts that go through another
    width), left to the run."""
    import numpy as np

    if dtype.kind != "i" or dtype.itemsize < 4:
        return None
    info = np.iinfo(dtype)
    truncated = np.trunc(values)
    inside = (truncated >= info.min) & (truncated < -float(info.min))
    cast: NDArray[Any] = np.where(inside, np.nan_to_num(truncated), info.min).astype(dtype)
    return cast
