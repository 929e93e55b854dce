"""PriorBoxClustered-1 (opset1-16): the prior boxes of an SSD head, from the feature map's
size `output_size` [H, W] and the image's `image_size` [IH, IW], into [2, H * W * P * 4]: the
boxes' corners (xmin, ymin, xmax, ymax, normalized by the image) then their variances, P the
number of `width`/`height` pairs. Always f32.

What OpenVINO 2026.4 checks (measured, docs/ops/PriorBoxClustered.md): both inputs of an
integer type ("output size input must be an integral number, but is: f32"), 1-D ("output
size input rank 2 must match image shape input rank 1 and both must be 1-D"), `output_size`
of two elements when known ("Output size must have two elements. Got: 3"), as many heights
as widths ("Size of heights vector: 1 doesn't match size of widths vector: 2"). The kernel is
`irpool.execute.kernels.prior_box_clustered`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from irpool.element_types import element_type
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo, read_value
from irpool.ops.broadcast import target_dims
from irpool.ops.explanation import Explanation
from irpool.ops.registry import register
from irpool.shape import Dim, Shape

INPUTS = ("output size", "image")


def prior_shape(inputs: Sequence[TensorInfo], priors: int) -> TensorInfo:
    """The priors' output [2, H * W * priors * 4] as OpenVINO's shared PriorBox shape
    inference gives it, with its checks of the two inputs."""
    for info, name in zip(inputs, INPUTS, strict=True):
        if not (info.type.is_integer or info.type.is_dynamic):
            raise ShapeError(
                f"{name} input must be an integral number, but is: {info.element_type}"
            )
    ranks = [info.shape.rank for info in inputs]
    if any(rank not in (None, 1) for rank in ranks):
        shown = ["?" if rank is None else str(rank) for rank in ranks]
        raise ShapeError(
            f"output size input rank {shown[0]} must match image shape input rank {shown[1]} "
            "and both must be 1-D"
        )
    read_value(inputs[0], "the output size")
    dims = target_dims(inputs[0])
    if dims is None:
        return TensorInfo(element_type("f32"), Shape((Dim.static(2), Dim.dynamic())))
    if len(dims) != 2:
        raise ShapeError(f"Output size must have two elements. Got: {len(dims)}")
    per_cell = priors * 4
    high = None if dims[0].high is None or dims[1].high is None else dims[0].high * dims[1].high
    length = Dim(dims[0].low * dims[1].low * per_cell, None if high is None else high * per_cell)
    return TensorInfo(element_type("f32"), Shape((Dim.static(2), length)))


@register
class PriorBoxClustered1(Op):
    type_name = "PriorBoxClustered"
    version = 1
    opsets = range(1, 17)
    attributes = (
        Attr("width", AttrType.FLOAT32_LIST, default=()),
        Attr("height", AttrType.FLOAT32_LIST, default=()),
        Attr("clip", AttrType.BOOL, default=True),
        Attr("step", AttrType.FLOAT32, default=0.0),
        Attr("step_w", AttrType.FLOAT32, default=0.0),
        Attr("step_h", AttrType.FLOAT32, default=0.0),
        Attr("offset", AttrType.FLOAT32, default=0.5, required=True),
        Attr("variance", AttrType.FLOAT32_LIST, default=()),
    )
    input_names: ClassVar[tuple[str, ...]] = ("output_size", "image_size")

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        widths, heights = self.attrs["width"], self.attrs["height"]
        if len(widths) != len(heights):
            raise ShapeError(
                f"Size of heights vector: {len(heights)} doesn't match size of widths vector: "
                f"{len(widths)}"
            )
        return [prior_shape(inputs, len(widths))]

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        pairs = ", ".join(
            f"{w:g}x{h:g}" for w, h in zip(self.attrs["width"], self.attrs["height"], strict=True)
        )
        return Explanation(f"prior boxes {pairs}, clip={self.attrs['clip']}", [])
