"""FakeQuantize-1 (opset1-16): each element of `data` clamped to [input_low, input_high], mapped
to one of `levels` evenly spaced values and those to [output_low, output_high]; the shape and
element type of `data` out.

What OpenVINO 2026.4's `read_model` checks (measured, docs/ops/FakeQuantize.md): each of the
four ranges broadcasts into `data` in turn, the shape so far growing as it does
(`broadcast_merge_into`) with numpy and pdpd, merged (equal ranks, overlapping dims:
"Argument shapes are inconsistent.") with none and explicit; the output keeps `data`'s own
shape and type even where a range's broadcast grows it. It checks no element type and no
`levels` (absent, 0 and 1 are read; an absent `levels` is 0). The CPU plugin cannot compile a
FakeQuantize it strips (levels 65535 or 65536, output ranges equal to the input ones) when a
Parameter feeds it and a Result reads it (IR626), nor one with auto_broadcast none or pdpd whose
ranges its own node does not take (IR627). The kernel is in
irpool.execute.kernels.fake_quantize; the CPU's arithmetic in irpool.cpu.quantization.
"""

from __future__ import annotations

from collections.abc import Sequence
from copy import copy
from typing import ClassVar

from irpool.ops.arithmetic import AUTO_BROADCAST, broadcast
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.explanation import Explanation
from irpool.ops.registry import register
from irpool.rules import FAKE_QUANTIZE_CROSSED_RANGE, FAKE_QUANTIZE_FEW_LEVELS

RANGES = ("input_low", "input_high", "output_low", "output_high")


@register
class FakeQuantize1(Op):
    type_name = "FakeQuantize"
    version = 1
    opsets = range(1, 17)
    attributes: ClassVar[tuple[Attr, ...]] = (
        Attr("levels", AttrType.UINT, default=0, required=True),
        AUTO_BROADCAST,
    )
    input_names = ("data", *RANGES)
    # Whether the data's shape, as the model declares it, has a dynamic dim: the CPU plugin
    # then runs its FakeQuantize node, not the snippet (irpool.cpu.quantization).
    dynamic_data: bool = False
    # Whether the CPU plugin runs it as a post-op of the Convolution before it
    # (irpool.cpu.quantized_convolutions): its level is then the node's fma.
    after_product: bool = False
    # Whether that post-op keeps its level unrounded: the first of a Convolution that also
    # sums a residual Add and quantizes again (irpool.cpu.quantized_convolutions).
    rounds: bool = True

    @property
    def levels(self) -> int:
        levels: int = self.attrs["levels"]
        return levels

    @property
    def auto_broadcast(self) -> str:
        mode: str = self.attrs["auto_broadcast"]
        return mode

    def for_layer(self, inputs: Sequence[TensorInfo]) -> FakeQuantize1:
        """Each layer its own op: the kernel keeps the layer's prepared constants."""
        layer = copy(self)
        layer.dynamic_data = not inputs[0].shape.is_static
        return layer

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data = inputs[0]
        mode = "none" if self.auto_broadcast == "explicit" else self.auto_broadcast
        merged = data.shape
        for name, info in zip(RANGES, inputs[1:], strict=True):
            try:
                merged = broadcast(merged, info.shape, mode)
            except ShapeError as error:
                raise ShapeError(
                    f"Argument shapes are inconsistent. {name} {info.shape} does not broadcast "
                    f"into {merged} (auto_broadcast={self.auto_broadcast})"
                ) from error
        self._report_degenerate(inputs, ctx)
        return [TensorInfo(data.type, data.shape)]

    def _report_degenerate(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
        """What `read_model` takes but quantizes nothing, or not by the formula."""
        if self.levels < 2:
            outcome = "every output is NaN" if self.levels == 1 else "the data is only clamped"
            ctx.report(
                FAKE_QUANTIZE_FEW_LEVELS,
                f"levels is {self.levels}: {outcome} (the CPU's node refuses it)",
                "levels",
            )
        low, high = inputs[1].value, inputs[2].value
        if low is None or high is None:
            return
        import numpy as np

        with np.errstate(invalid="ignore"):
            crossed = np.broadcast_arrays(low, high)
            at_or_above = np.asarray(crossed[0] >= crossed[1])
        if at_or_above.any():
            index = int(np.argmax(at_or_above.ravel()))
            pair = (float(crossed[0].ravel()[index]), float(crossed[1].ravel()[index]))
            ctx.report(
                FAKE_QUANTIZE_CROSSED_RANGE,
                f"input_low {pair[0]:g} is at or above input_high {pair[1]:g}: the CPU gives "
                "output_low there (NaN where they are equal), not the specification's values",
            )

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        return Explanation(
            f"{self.levels} levels: round((clamp(x) - il) / (ih - il) * {self.levels - 1}) "
            f"scaled into [ol, oh], auto_broadcast={self.auto_broadcast}",
            [],
        )
