"""PriorBox-1 (opset1-7) and PriorBox-8 (opset8-16): the prior boxes of an SSD head, from the
feature map's size `output_size` [H, W] and the image's `image_size` [IH, IW], into
[2, H * W * P * 4]: the boxes' corners (xmin, ymin, xmax, ymax, normalized by the image), then
their variances; P follows from the attributes as OpenVINO's `number_of_priors` counts it.
Always f32. PriorBox-8 adds `min_max_aspect_ratios_order`.

What OpenVINO 2026.4 checks (measured, docs/ops/PriorBox.md): both inputs of an integer type,
1-D, `output_size` of two elements when known (the messages of PriorBoxClustered's, which
shares its shape inference). The kernel is `irpool.execute.kernels.prior_box`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from irpool.ops.base import Attr, AttrType, LayerContext, Op, TensorInfo
from irpool.ops.explanation import Explanation
from irpool.ops.prior_box_clustered import prior_shape
from irpool.ops.registry import register

ATTRIBUTES = (
    Attr("min_size", AttrType.FLOAT32_LIST, default=()),
    Attr("max_size", AttrType.FLOAT32_LIST, default=()),
    Attr("aspect_ratio", AttrType.FLOAT32_LIST, default=()),
    Attr("density", AttrType.FLOAT32_LIST, default=()),
    Attr("fixed_ratio", AttrType.FLOAT32_LIST, default=()),
    Attr("fixed_size", AttrType.FLOAT32_LIST, default=()),
    Attr("clip", AttrType.BOOL, default=False),
    Attr("flip", AttrType.BOOL, default=False),
    Attr("step", AttrType.FLOAT32, default=0.0),
    Attr("offset", AttrType.FLOAT32, default=0.0, required=True),
    Attr("variance", AttrType.FLOAT32_LIST, default=()),
    Attr("scale_all_sizes", AttrType.BOOL, default=True),
    Attr("min_max_aspect_ratios_order", AttrType.BOOL, default=True, since=8),
)


def aspect_ratios(ratios: Sequence[float], flip: bool) -> list[float]:
    """1, then each ratio not within 1e-6 of one already taken (and, with `flip`, its
    inverse right after it), as OpenVINO's reference lists them."""
    taken = [1.0]
    for ratio in ratios:
        if not any(abs(ratio - seen) < 1e-6 for seen in taken):
            taken.append(ratio)
            if flip:
                taken.append(1.0 / ratio)
    return taken


def number_of_priors(attrs: Mapping[str, Any]) -> int:
    """Priors per cell, as OpenVINO's `PriorBox::number_of_priors` counts them."""
    ratios = {1.0}
    for ratio in attrs["aspect_ratio"]:
        ratios.add(round(ratio * 1e6) / 1e6)
        if attrs["flip"]:
            ratios.add(round(1 / ratio * 1e6) / 1e6)
    total = len(ratios)
    min_sizes, max_sizes = len(attrs["min_size"]), len(attrs["max_size"])
    count = total * min_sizes + max_sizes if attrs["scale_all_sizes"] else total + min_sizes - 1
    if attrs["fixed_size"]:
        count = total * len(attrs["fixed_size"])
    per_density = len(attrs["fixed_ratio"]) if attrs["fixed_ratio"] else total
    for density in attrs["density"]:
        count += per_density * (int(density) ** 2 - 1)
    return count


class PriorBoxBase(Op):
    attributes = ATTRIBUTES
    input_names: ClassVar[tuple[str, ...]] = ("output_size", "image_size")

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        return [prior_shape(inputs, number_of_priors(self.attrs))]

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        return Explanation(f"{number_of_priors(self.attrs)} prior boxes per cell", [])


@register
class PriorBox1(PriorBoxBase):
    type_name = "PriorBox"
    version = 1
    opsets = range(1, 8)


@register
class PriorBox8(PriorBoxBase):
    type_name = "PriorBox"
    version = 8
    opsets = range(8, 17)
