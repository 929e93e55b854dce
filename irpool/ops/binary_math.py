"""Minimum-1, Maximum-1 and SquaredDifference-1 (opset1-16): two tensors of one element type,
broadcast by `auto_broadcast` as the arithmetic ops (irpool.ops.arithmetic), one out. One class
per op, generated from `BINARY_MATH`.

`read_model` refuses boolean inputs (measured on every element type,
docs/elementwise.md#minimum-maximum-and-squareddifference). Integer constants of Minimum and
Maximum fold exactly in their type (shape arithmetic clamps dims with them; OpenVINO cannot
evaluate SquaredDifference, whose constants stay unfolded), and integer inputs known by
their bounds give bounds: Minimum `min(la, lb)..min(ua, ub)`, Maximum likewise, an unbounded
element unknown (measured: `min(6..10, 8)` is `6..8`, `min(2.., 6)` is `?`). The kernel is
irpool.execute.kernels.binary_math.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from irpool.ops.arithmetic import Binary
from irpool.ops.bounds import UNBOUNDED
from irpool.ops.registry import register_member

if TYPE_CHECKING:
    from numpy.typing import NDArray


@dataclass(frozen=True, slots=True)
class BinaryRow:
    type_name: str
    symbol: str  # for `irpool explain`
    reference: str  # NumPy's exact function (integer constants); "" when OpenVINO has none
    # The bounds of one element from its inputs' (None: OpenVINO keeps none).
    bounds: Callable[[int, int, int, int], tuple[int, int]] | None = None


BINARY_MATH = (
    BinaryRow("Minimum", "min", "minimum", lambda la, ua, lb, ub: (min(la, lb), min(ua, ub))),
    BinaryRow("Maximum", "max", "maximum", lambda la, ua, lb, ub: (max(la, lb), max(ua, ub))),
    BinaryRow("SquaredDifference", "squared difference", ""),
)


class BinaryMath(Binary):
    """A member of the family; `row` is its line of `BINARY_MATH`."""

    row: BinaryRow

    def element_bounds(self, la: int, ua: int, lb: int, ub: int) -> tuple[int, int] | None:
        if self.row.bounds is None:
            return None
        if UNBOUNDED in (ua, ub):
            return (0, UNBOUNDED) if min(la, lb) >= 0 else None
        return self.row.bounds(la, ua, lb, ub)

    def fold_integers(self, a: NDArray[Any], b: NDArray[Any]) -> NDArray[Any] | None:
        """OpenVINO cannot evaluate SquaredDifference: its constants stay unfolded, and the CPU
        computes them as it holds them (measured: `sqdiff([3, 5], [1, 2])` is no value)."""
        return None if self.row.reference == "" else super().fold_integers(a, b)


BY_TYPE = {
    row.type_name: register_member(
        BinaryMath,
        f"{row.type_name}1",
        __name__,
        {
            "type_name": row.type_name,
            "symbol": row.symbol,
            "reference": row.reference,
            "row": row,
            "__doc__": f"{row.type_name}-1: a {row.symbol} b, element by element.",
        },
    )
    for row in BINARY_MATH
}
