"""Select-1 (opset1-16): `then` where the boolean `cond` is true, else `else`, the three
broadcast by `auto_broadcast` as OpenVINO 2026.4's shape inference does:
- numpy: `else` and `then` broadcast, then `cond` into the result (any order gives the same);
- none and explicit: the three shapes merged (equal ranks, each dims' overlap; measured:
  explicit takes three equal shapes and refuses others, though the specification lists only
  none, numpy and pdpd);
- pdpd: `then` is the target; `else`, then `cond`, broadcast into it one way (aligned from
  axis 0, as the binary ops' pdpd).
`cond` must be boolean, `then` and `else` of one element type (the output's). Constants fold
(shape arithmetic selects among ShapeOf values); the kernel is in
irpool.execute.kernels.select.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from irpool.ops.arithmetic import AUTO_BROADCAST, broadcast
from irpool.ops.base import Attr, LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.explanation import Explanation
from irpool.ops.folding import FOLDED_SIZE
from irpool.ops.registry import register
from irpool.shape import Shape

if TYPE_CHECKING:
    from numpy.typing import NDArray


@register
class Select1(Op):
    type_name = "Select"
    version = 1
    opsets = range(1, 17)
    attributes: ClassVar[tuple[Attr, ...]] = (AUTO_BROADCAST,)
    input_names = ("cond", "then", "else")

    @property
    def auto_broadcast(self) -> str:
        mode: str = self.attrs["auto_broadcast"]
        return mode

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        cond, then, otherwise = inputs
        if not (cond.type.is_boolean or cond.type.is_dynamic):
            raise ShapeError(
                f"Argument 0 must have boolean element type (element type: {cond.element_type})."
            )
        if then.type != otherwise.type and not (then.type.is_dynamic or otherwise.type.is_dynamic):
            raise ShapeError("Argument 1 and 2 element types must match.")
        shape = self.output_shape(cond.shape, then.shape, otherwise.shape)
        values = [cond.value, then.value, otherwise.value]
        value = None
        if shape.is_static and all(v is not None and v.size <= FOLDED_SIZE for v in values):
            value = self.fold_constant([v for v in values if v is not None])
        output_type = then.type if not then.type.is_dynamic else otherwise.type
        return [TensorInfo(output_type, shape, value)]

    def output_shape(self, cond: Shape, then: Shape, otherwise: Shape) -> Shape:
        mode = self.auto_broadcast
        try:
            if mode == "pdpd":
                with_else = broadcast(then, otherwise, mode)
            else:
                with_else = broadcast(otherwise, then, mode)
        except ShapeError as error:
            which = "'Else' tensor shape is not broadcastable." if mode == "pdpd" else error
            raise ShapeError(
                f"{which} {then} and {otherwise} do not broadcast (auto_broadcast={mode})"
            ) from error
        try:
            return broadcast(with_else, cond, mode)
        except ShapeError as error:
            which = "'Cond' tensor shape is not broadcastable." if mode == "pdpd" else error
            raise ShapeError(
                f"{which} {cond} does not broadcast to {with_else} (auto_broadcast={mode})"
            ) from error

    def fold_constant(self, inputs: Sequence[NDArray[Any]]) -> NDArray[Any] | None:
        """Integer and boolean constants fold (a copy of either input); floats run the kernel."""
        cond, then, otherwise = inputs
        if then.dtype.kind not in "iub" or self.auto_broadcast == "pdpd":
            return None
        import numpy as np

        selected: NDArray[Any] = np.where(cond, then, otherwise)
        return selected

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        return Explanation(f"cond ? then : else, auto_broadcast={self.auto_broadcast}", [])
