"""Convert-1 (opset1-16): `data` converted to `destination_type`, element by element.

`ov.save_model` with fp16 compression writes every float Const as a Const f16 followed by a
Convert to f32 (marked `decompression` in rt_info), which OpenVINO folds when it loads the model.
Converting back from f16 is exact, so irpool folds it too (see irpool/ops/folding.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.ops.base import Attr, AttrType, LayerContext, Op, TensorInfo
from irpool.ops.conversion import convert
from irpool.ops.folding import folded
from irpool.ops.registry import register
from irpool.rules import COMPILE_CRASH

FLOATS = ("f32", "f16", "bf16", "f64")
# Element types NumPy cannot hold one per element: irpool neither folds nor runs them.
LOW_BIT_TYPES = ("u1", "u4", "i4")


@register
class Convert1(Op):
    """Convert-1: one input, `destination_type` (an element type name)."""

    type_name = "Convert"
    version = 1
    opsets = range(1, 17)
    input_names = ("data",)
    attributes = (
        Attr("destination_type", AttrType.ELEMENT_TYPE, default="dynamic", required=True),
    )
    # Whether the model leaves the input shape dynamic (the CPU then rounds f32 to bf16
    # otherwise). Set by the check; a run re-infers on concrete shapes and must not reset it.
    dynamic_input = False

    @property
    def destination(self) -> str:
        destination: str = self.attrs["destination_type"]
        return destination

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data = inputs[0]
        self.dynamic_input = self.dynamic_input or not data.shape.is_static
        if self.destination == "dynamic":
            ctx.report(
                COMPILE_CRASH,
                "destination_type is dynamic (or missing): OpenVINO reads the layer, but its "
                "CPU plugin cannot compile a Convert to a dynamic type",
                "destination_type",
            )
        value = folded(data, self._fold)
        # save_model writes a decompression Convert's ports (and its consumers' input ports)
        # with the compressed Const's precision; OpenVINO folds it and ignores that precision.
        decompresses = data.value is not None and {data.element_type, self.destination} <= {*FLOATS}
        written_as = data.element_type if decompresses else None
        return [TensorInfo(self.destination, data.shape, value, written_as=written_as)]

    def _fold(self, array: NDArray[Any]) -> NDArray[Any] | None:
        """The value OpenVINO folds a Const to, where irpool knows it: where no value is out
        of range (there the folding and the CPU plugin differ, see docs/semantics.md)."""
        if self.destination == "dynamic" or self.destination in LOW_BIT_TYPES:
            return None
        result = convert(array, self.destination)
        return result if _lossless(array, result, self.destination) else None


def _lossless(array: NDArray[Any], result: NDArray[Any], destination: str) -> bool:
    """Whether every element converts without rounding (truncation toward zero aside),
    overflow or NaN: there every implementation agrees."""
    values = array.astype(np.float64)
    if array.dtype.kind == "f":
        if not np.all(np.isfinite(values)):
            return False
        if destination not in FLOATS and destination != "boolean":
            values = np.trunc(values)
    if destination == "boolean":
        expected = values != 0
        return bool(np.array_equal(result, expected))
    return bool(np.array_equal(result.astype(np.float64), values))
