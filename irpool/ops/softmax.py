"""SoftMax-1 (opset1-7) and SoftMax-8 (opset8-16): exp(x - max) / sum along `axis`, the shape
and element type kept.

What OpenVINO 2026.4's `read_model` does (measured, docs/ops/SoftMax.md): SoftMax-8's `axis`
(default 1) may be negative and must lie in [-rank, rank - 1], a scalar counting as rank 1
("Axis 2 out of the tensor rank range [-2, 1]."); SoftMax-1's (default 0) is read as unsigned
(-1 wraps) and must be below the rank ("Reduction axis (2) is out of bounds (argument shape:
[2,3])."), which a dynamic rank does not check. Every
element type is accepted, booleans and integers too. The kernel is in
irpool.execute.kernels.softmax.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.explanation import Explanation
from irpool.ops.registry import register


@register
class SoftMax1(Op):
    type_name = "SoftMax"
    version = 1
    opsets = range(1, 8)
    # Read as a size_t: a negative axis wraps (-1 is 2**64 - 1), out of range of any known rank.
    attributes: ClassVar[tuple[Attr, ...]] = (Attr("axis", AttrType.INT, default=0),)
    input_names = ("data",)

    @property
    def axis(self) -> int:
        axis: int = self.attrs["axis"]
        return axis

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data = inputs[0]
        if data.shape.rank is not None:
            self.check_axis(max(data.shape.rank, 1), data)
        return [TensorInfo(data.type, data.shape)]

    def check_axis(self, rank: int, data: TensorInfo) -> None:
        if not 0 <= self.axis < rank:
            read = self.axis % 2**64
            raise ShapeError(
                f"Reduction axis ({read}) is out of bounds (argument shape: {data.shape}).",
                attribute="axis",
            )

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        return Explanation(f"exp(x - max) / sum(exp(x - max)) along axis {self.axis}", [])


@register
class SoftMax8(SoftMax1):
    version = 8
    opsets = range(8, 17)
    attributes = (Attr("axis", AttrType.INT, default=1),)

    def check_axis(self, rank: int, data: TensorInfo) -> None:
        if not -rank <= self.axis < rank:
            raise ShapeError(
                f"Axis {self.axis} out of the tensor rank range [{-rank}, {rank - 1}].",
                attribute="axis",
            )
