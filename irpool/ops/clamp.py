"""Clamp-1 (opset1-16): each element limited to [min, max], the same shape and element type out.

`min` and `max` are 64-bit floats, read as OpenVINO 2026.4 reads them (irpool.parse.values
`read_float`, measured: docs/ops/Clamp.md). The specification requires
both; the runtime takes an absent one as 0, so a Clamp written without `max` clamps everything
into [min, 0] (IR203, an error). `read_model` refuses min > max and a NaN bound ("Attribute
'min' must be less or equal than 'max'. Got: 6.5 and 6") and a boolean input. Integer
constants fold as OpenVINO's reference does (min rounded up and max down, each saturated to the
type, then `x < min ? min : x > max ? max : x`), float ones too (a NaN stays NaN, where the CPU
kernel gives min). The kernel is in irpool.execute.kernels.clamp.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from irpool.ops.activations import Activation
from irpool.ops.base import Attr, AttrType, LayerContext, ShapeError, TensorInfo
from irpool.ops.explanation import Explanation
from irpool.ops.registry import register
from irpool.parse.floats import float_text
from irpool.rules import ATTRIBUTE_OUT_OF_RANGE

if TYPE_CHECKING:
    from numpy.typing import NDArray


@register
class Clamp1(Activation):
    type_name = "Clamp"
    attributes = (
        Attr("min", AttrType.FLOAT, default=0.0, required=True),
        Attr(
            "max",
            AttrType.FLOAT,
            default=0.0,
            required=True,
            default_effect=": every value is clamped into [min, 0]",
        ),
    )
    formula = "min(max(x, min), max)"
    # Fused into the MatMul or Convolution it reads as a post-op, where 8-bit data takes the
    # wider types' bound rounding (measured). Set per layer by the run's plan.
    after_product = False

    @property
    def low(self) -> float:
        low: float = self.attrs["min"]
        return low

    @property
    def high(self) -> float:
        high: float = self.attrs["max"]
        return high

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        if not self.low <= self.high:  # NaN too
            raise ShapeError(
                f"Attribute 'min' must be less or equal than 'max'. Got: {self.low:g} and "
                f"{self.high:g}",
                ATTRIBUTE_OUT_OF_RANGE,
                "min",
            )
        return super().infer(inputs, ctx)

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        low, high = float_text(self.low), float_text(self.high)
        return Explanation(f"element by element: min(max(x, {low}), {high})", [])

    def fold_constant(self, inputs: Sequence[NDArray[Any]]) -> NDArray[Any] | None:
        """OpenVINO's reference clamp, which its constant folding runs."""
        import numpy as np

        values = inputs[0]
        bounds: tuple[float, float] = (self.low, self.high)
        if values.dtype.kind in "iu":
            info = np.iinfo(values.dtype)
            bounds = (
                _saturated(math.ceil, self.low, info.min, info.max),
                _saturated(math.floor, self.high, info.min, info.max),
            )
        with np.errstate(over="ignore"):
            low, high = (values.dtype.type(bound) for bound in bounds)
        clamped: NDArray[Any] = np.where(values < low, low, np.where(values > high, high, values))
        return clamped.astype(values.dtype)


def _saturated(rounding: Callable[[float], int], bound: float, lowest: int, highest: int) -> int:
    """A bound as the reference takes it to an integer type: rounded, saturated to the type."""
    if bound <= lowest:
        return lowest
    if bound >= highest:
        return highest
    return rounding(bound)
