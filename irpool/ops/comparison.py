"""Greater-1, GreaterEqual-1, Less-1, LessEqual-1, Equal-1 and NotEqual-1 (opset1-16): two
tensors of one element type (boolean too), broadcast as the arithmetic ops
(irpool.ops.arithmetic), a boolean out. Each class is generated from `COMPARISONS`. Constants
fold exactly (shape arithmetic compares ShapeOf values; a causal mask compares Range values);
the kernel is irpool.execute.kernels.comparison.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from irpool.element_types import BOOLEAN, ElementType, element_type
from irpool.ops.arithmetic import Binary
from irpool.ops.registry import register_member

if TYPE_CHECKING:
    from numpy.typing import NDArray


class Comparison(Binary):
    """A binary op whose output is boolean; `reference` names NumPy's comparison."""

    accepts_boolean = True

    def output_type(self, inputs: ElementType) -> ElementType:
        return element_type(BOOLEAN)

    def fold_integers(self, a: NDArray[Any], b: NDArray[Any]) -> NDArray[Any] | None:
        import numpy as np

        compared: NDArray[Any] = getattr(np, self.reference)(a, b)
        return compared


# type, the symbol `irpool explain` shows, NumPy's exact comparison (integer constants)
COMPARISONS = (
    ("Greater", ">", "greater"),
    ("GreaterEqual", ">=", "greater_equal"),
    ("Less", "<", "less"),
    ("LessEqual", "<=", "less_equal"),
    ("Equal", "==", "equal"),
    ("NotEqual", "!=", "not_equal"),
)


BY_TYPE = {
    name: register_member(
        Comparison, f"{name}1", __name__, {"type_name": name, "symbol": symbol, "reference": ref}
    )
    for name, symbol, ref in COMPARISONS
}
Greater1 = BY_TYPE["Greater"]
GreaterEqual1 = BY_TYPE["GreaterEqual"]
Less1 = BY_TYPE["Less"]
LessEqual1 = BY_TYPE["LessEqual"]
Equal1 = BY_TYPE["Equal"]
NotEqual1 = BY_TYPE["NotEqual"]
