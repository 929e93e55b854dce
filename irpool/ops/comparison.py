"""Greater-1, Equal-1 and NotEqual-1 (opset1-16): two tensors of one element type (boolean
too), broadcast as the arithmetic ops (irpool.ops.arithmetic), a boolean out. Constants fold
exactly (shape arithmetic compares ShapeOf values); the kernels are in
irpool.execute.kernels.comparison.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from irpool.element_types import BOOLEAN, ElementType, element_type
from irpool.ops.arithmetic import Binary
from irpool.ops.registry import register

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


@register
class Greater1(Comparison):
    type_name = "Greater"
    symbol = ">"
    reference = "greater"


@register
class Equal1(Comparison):
    type_name = "Equal"
    symbol = "=="
    reference = "equal"


@register
class NotEqual1(Comparison):
    type_name = "NotEqual"
    symbol = "!="
    reference = "not_equal"
