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
from typing import ClassVar

from irpool.ops.arithmetic import AUTO_BROADCAST, broadcast
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.explanation import Explanation
from irpool.ops.registry import register

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

    @property
    def levels(self) -> int:
        levels: int = self.attrs["levels"]
        return levels

    @property
    def auto_broadcast(self) -> str:
        mode: str = self.attrs["auto_broadcast"]
        return mode

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
        return [TensorInfo(data.type, data.shape)]

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        return Explanation(
            f"{self.levels} levels: round((clamp(x) - il) / (ih - il) * {self.levels - 1}) "
            f"scaled into [ol, oh], auto_broadcast={self.auto_broadcast}",
            [],
        )
