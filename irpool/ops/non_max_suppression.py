"""NonMaxSuppression-5 (opset5-8) and NonMaxSuppression-9 (opset9-16): boxes [B, N, 4] and
scores [B, C, N] into the selected boxes' indices [M, 3] (batch, class, box) and scores
[M, 3] (batch, class, score, always f32) and their count [1], M known only when run.

Inputs after `scores` are optional scalars or 1-element tensors: `max_output_boxes_per_class`
(0 when absent: nothing is selected), `iou_threshold`, `score_threshold` (0 when absent),
`soft_nms_sigma` (0: hard suppression). What OpenVINO 2026.4 checks (measured,
docs/ops/NonMaxSuppression.md): boxes and scores of rank 3 ("Expected a 3D tensor for the
'boxes' input"), of one batch ("The first dimension of both 'boxes' and 'scores' must
match."), of one box count ("'boxes' and 'scores' input shapes must match at the second and
third dimension respectively."), 4 coordinates ("The last dimension of the 'boxes' input must
be equal to 4"), the optional inputs scalars or of one element ("Expected 0D or 1D tensor for
the 'iou_threshold' input"). M lies in [0, min(N, max_output_boxes_per_class) * B * C] when
all of these are known. The kernel is `irpool.execute.kernels.non_max_suppression`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from irpool.element_types import element_type
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo, read_value
from irpool.ops.explanation import Explanation
from irpool.ops.folding import integer_values
from irpool.ops.registry import register
from irpool.shape import Dim, Shape

FLOATS = ("f32", "f16", "bf16")
OPTIONAL_NAMES = (
    "max_output_boxes_per_class",
    "iou_threshold",
    "score_threshold",
    "soft_nms_sigma",
)


class NonMaxSuppressionBase(Op):
    """What NonMaxSuppression-5 and -9 share: their attributes, inputs and outputs."""

    attributes = (
        Attr("box_encoding", AttrType.ENUM, default="corner", choices=("corner", "center")),
        Attr("sort_result_descending", AttrType.BOOL, default=True),
        Attr("output_type", AttrType.ENUM, default="i64", choices=("i64", "i32")),
    )
    input_names: ClassVar[tuple[str, ...]] = ("boxes", "scores", *OPTIONAL_NAMES)
    optional_inputs = 4
    output_count = 3
    sized_by_values = True

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        boxes, scores = inputs[0], inputs[1]
        for info, name in zip(inputs, self.input_names, strict=False):
            kind = info.element_type
            if info.type.is_dynamic:
                continue
            if name == "max_output_boxes_per_class" and not info.type.is_integer:
                raise ShapeError(
                    f"Expected integer type as element type for the '{name}' input. Got: {kind}"
                )
            if name != "max_output_boxes_per_class" and kind not in FLOATS:
                raise ShapeError(
                    f"Expected bf16, fp16 or fp32 as element type for the '{name}' input. "
                    f"Got: {kind}"
                )
        for info, name in ((boxes, "boxes"), (scores, "scores")):
            if info.shape.rank not in (None, 3):
                raise ShapeError(f"Expected a 3D tensor for the '{name}' input")
        for info, name in zip(inputs[2:], OPTIONAL_NAMES, strict=False):
            if info.shape.rank is not None and not (
                info.shape.rank == 0 or (info.shape.rank == 1 and info.shape[0].admits(1))
            ):
                raise ShapeError(f"Expected 0D or 1D tensor for the '{name}' input")
        selected = self._selected(inputs)
        index_type = element_type(self.attrs["output_type"])
        shape = Shape((selected, Dim.static(3)))
        return [
            TensorInfo(index_type, shape),
            TensorInfo(element_type("f32"), shape),
            TensorInfo(index_type, Shape.of(1)),
        ]

    @staticmethod
    def _selected(inputs: Sequence[TensorInfo]) -> Dim:
        """How many boxes may be selected: [0, min(N, max boxes) * B * C] as OpenVINO
        bounds it, dynamic where it does not know."""
        boxes, scores = inputs[0].shape, inputs[1].shape
        if boxes.dims is None:
            return Dim.dynamic()
        maximum: int | None = None  # absent: OpenVINO's inference knows no bound
        if len(inputs) > 2:
            read_value(inputs[2], "max_output_boxes_per_class")
            values = integer_values(inputs[2])
            maximum = values[0] if values else None
        if scores.dims is not None:
            for a, b in ((boxes[0], scores[0]), (boxes[1], scores[2])):
                if a.overlap(b) is None:
                    raise ShapeError(
                        "The first dimension of both 'boxes' and 'scores' must match."
                        if b is scores[0]
                        else "'boxes' and 'scores' input shapes must match at the second and "
                        "third dimension respectively."
                    )
        if boxes[2].overlap(Dim.static(4)) is None:
            raise ShapeError("The last dimension of the 'boxes' input must be equal to 4")
        count = boxes[1].high  # an interval counts by its upper bound (measured)
        if count is None or maximum is None or maximum < 0:
            return Dim.dynamic()
        high: int | None = min(count, maximum)
        if scores.dims is not None:
            for dim in scores.dims[:2]:
                high = None if high is None or dim.high is None else high * dim.high
        return Dim(0, high)

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        order = "by score" if self.attrs["sort_result_descending"] else "by batch and class"
        return Explanation(
            f"box_encoding={self.attrs['box_encoding']}, selected boxes ordered {order}", []
        )


@register
class NonMaxSuppression5(NonMaxSuppressionBase):
    type_name = "NonMaxSuppression"
    version = 5
    opsets = range(5, 9)


@register
class NonMaxSuppression9(NonMaxSuppressionBase):
    type_name = "NonMaxSuppression"
    version = 9
    opsets = range(9, 17)
