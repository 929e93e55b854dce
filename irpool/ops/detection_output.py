"""DetectionOutput-1 (opset1-7) and DetectionOutput-8 (opset8-16): an SSD head's
post-processing, from box logits [N, P * L * 4], class predictions [N, P * C] and proposals
[1 or N, 1 or 2, P * 4 or P * 5] (optionally the ARM's class [N, P * 2] and box predictions)
into [1, 1, R, 7] detections (image, label, score, xmin, ymin, xmax, ymax). P is the number of
priors, C of classes (DetectionOutput-1's `num_classes`; DetectionOutput-8 deduces it), L 1
with `share_location`, C without.

What OpenVINO 2026.4 checks (measured, docs/ops/DetectionOutput.md): 3 or 5 inputs; `code_type`
CORNER or CENTER_SIZE, spelt exactly; floating box logits and proposals, class predictions
(and the ARM's) of the box logits' type; ranks 2, 2, 3 (2, 2); P, C and the batch consistent
across the inputs, P > 0. R is N * keep_top_k[0] (when above 0), else N * top_k * C (top_k
above 0), else N * P * C, on intervals where N is one. A file without keep_top_k crashes
`read_model` (IR223). The kernel is `irpool.execute.kernels.detection_output`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.explanation import Explanation
from irpool.ops.registry import register
from irpool.rules import DETECTION_OUTPUT_NO_KEEP_TOP_K
from irpool.shape import Dim, Shape

CORNER = "caffe.PriorBoxParameter.CORNER"
CENTER_SIZE = "caffe.PriorBoxParameter.CENTER_SIZE"
ATTRIBUTES: tuple[Attr, ...] = (
    Attr("num_classes", AttrType.INT, default=0),  # DetectionOutput-1 only
    Attr("background_label_id", AttrType.INT, default=0),
    Attr("top_k", AttrType.INT, default=-1),
    Attr("variance_encoded_in_target", AttrType.BOOL, default=False),
    Attr("keep_top_k", AttrType.INT_LIST, default=()),
    Attr("code_type", AttrType.STRING, default=CORNER),
    Attr("share_location", AttrType.BOOL, default=True),
    Attr("nms_threshold", AttrType.FLOAT32, default=0.0),
    Attr("confidence_threshold", AttrType.FLOAT32, default=0.0),
    Attr("clip_after_nms", AttrType.BOOL, default=False),
    Attr("clip_before_nms", AttrType.BOOL, default=False),
    Attr("decrease_label_id", AttrType.BOOL, default=False),
    Attr("normalized", AttrType.BOOL, default=False),
    Attr("input_height", AttrType.UINT, default=1),
    Attr("input_width", AttrType.UINT, default=1),
    Attr("objectness_score", AttrType.FLOAT32, default=0.0),
)


@dataclass
class Counts:
    """What shape inference learns of the priors (P) and classes (C): 0 while unknown."""

    priors: int = 0
    classes: int = 0


def _static(dim: Dim) -> int | None:
    return dim.value if dim.is_static else None


def _times(dim: Dim, factor: Dim) -> Dim:
    """OpenVINO's Dimension product on intervals."""
    high = None if dim.high is None or factor.high is None else dim.high * factor.high
    return Dim(dim.low * factor.low, high)


class DetectionOutputBase(Op):
    """What DetectionOutput-1 and -8 share: attributes, inputs, checks and shape inference."""

    attributes = ATTRIBUTES
    input_names: ClassVar[tuple[str, ...]] = (
        "box_logits",
        "class_preds",
        "proposals",
        "aux_class_preds",
        "aux_box_preds",
    )
    optional_inputs = 2

    @property
    def prior_size(self) -> int:
        return 4 if self.attrs["normalized"] else 5

    @property
    def keep_top_k(self) -> int:
        kept: tuple[int, ...] = self.attrs["keep_top_k"]
        return kept[0] if kept else -1

    def known_priors(self, inputs: Sequence[TensorInfo]) -> int | None:
        """P, when the proposals' last dim is static."""
        shape = inputs[2].shape
        if shape.dims is None or not shape[2].is_static:
            return None
        return shape[2].value // self.prior_size

    def given_classes(self) -> int:
        """DetectionOutput-1's `num_classes`; 0: deduced from the shapes."""
        return 0

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        if len(inputs) not in (3, 5):
            raise ShapeError(
                f"A number of arguments must be  equal to 3 or equal to 5. Got  {len(inputs)}"
            )
        if self.attrs["code_type"] not in (CORNER, CENTER_SIZE):
            raise ShapeError(f'code_type must be either "{CORNER}" or "{CENTER_SIZE}"')
        self._check_types(inputs)
        if not self.attrs["keep_top_k"]:
            ctx.report(
                DETECTION_OUTPUT_NO_KEEP_TOP_K,
                "keep_top_k is absent or empty: OpenVINO's read_model reads its first item "
                "past the end and crashes; write keep_top_k (-1: keep every detection)",
                "keep_top_k",
            )
        shapes = [info.shape for info in inputs]
        for shape, rank, name in zip(
            shapes,
            (2, 2, 3, 2, 2),
            ("Box logits", "Class predictions", "Proposals", "Additional class predictions",
             "Additional box predictions"),
            strict=False,
        ):  # fmt: skip
            if shape.rank not in (None, rank):
                raise ShapeError(f"{name} rank must be {rank}. Got {shape.rank}")
        counts = Counts(classes=self.given_classes())
        if not counts.classes:
            self._deduce_classes(shapes, counts)
        images = self._images_and_priors(shapes, counts)
        rows = self._rows(images, counts)
        return [
            TensorInfo(inputs[0].type, Shape((Dim.static(1), Dim.static(1), rows, Dim.static(7))))
        ]

    def _check_types(self, inputs: Sequence[TensorInfo]) -> None:
        box, classes, proposals = (info.type for info in inputs[:3])
        if not (box.is_float or box.is_dynamic):
            raise ShapeError(f"Box logits' data type must be floating point. Got {box.name}")
        if classes != box:
            raise ShapeError(
                "Class predictions' data type must be the same as box logits type "
                f"({box.name}). Got {classes.name}"
            )
        if not (proposals.is_float or proposals.is_dynamic):
            raise ShapeError(f"Proposals' data type must be floating point. Got {proposals.name}")
        if len(inputs) == 5 and inputs[3].type != classes:
            raise ShapeError(
                "Additional class predictions' data type must be the same as class predictions "
                f"data type ({classes.name}). Got {inputs[3].type.name}"
            )
        if len(inputs) == 5 and inputs[4].type != box:
            raise ShapeError(
                "Additional box predictions' data type must be the same as box logits data type "
                f"({box.name}). Got {inputs[4].type.name}"
            )

    def _deduce_classes(self, shapes: Sequence[Shape], counts: Counts) -> None:
        """DetectionOutput-8: P from the proposals (or the ARM's classes), then C from the
        class predictions (or, without shared locations, the box logits), as OpenVINO's
        compute_num_classes does."""
        size = self.prior_size
        proposals = shapes[2]
        third = _static(proposals[2]) if proposals.dims is not None else None
        if third is not None:
            if third % size:
                raise ShapeError(
                    f"Proposals' third dimension must be a multiply of prior_box_size ({size}). "
                    f"Current value is: {third}."
                )
            counts.priors = third // size
            if counts.priors <= 0:
                raise ShapeError(
                    f"A number of prior boxes must be greater zero. Got: {counts.priors}"
                )
        arm = shapes[3] if len(shapes) == 5 else None
        arm_second = _static(arm[1]) if arm is not None and arm.dims is not None else None
        if not counts.priors and arm_second is not None:
            if arm_second % 2:
                raise ShapeError(
                    "Additional class predictions second dimension must be a multiply of 2. "
                    f"Current value is: {arm_second}."
                )
            counts.priors = arm_second // 2
            if counts.priors <= 0:
                raise ShapeError(
                    f"A number of prior boxes must be greater zero. Got: {counts.priors}"
                )
        if not counts.priors:
            return
        sources = [(shapes[1], counts.priors, "Class predictions second dimension",
                    "num_prior_boxes")]  # fmt: skip
        if not self.attrs["share_location"]:
            sources.append((shapes[0], counts.priors * 4, "Box logits second dimension",
                            "num_prior_boxes * 4"))  # fmt: skip
            if len(shapes) == 5:
                sources.append((shapes[4], counts.priors * 4,
                                "Additional box predictions second dimension",
                                "num_prior_boxes * 4"))  # fmt: skip
        for shape, divisor, what, name in sources:
            second = _static(shape[1]) if shape.dims is not None else None
            if second is None:
                continue
            if second % divisor:
                raise ShapeError(
                    f"{what} must be a multiply of {name} ({divisor}). Current value is: {second}."
                )
            counts.classes = second // divisor
            return

    def _images_and_priors(self, shapes: Sequence[Shape], counts: Counts) -> Dim:
        """The batch N, with the checks of OpenVINO's shape_infer_base; completes P."""
        box, classes, proposals = shapes[:3]
        locations = 1 if self.attrs["share_location"] else counts.classes
        images = Dim.dynamic()
        images_known = False
        if box.dims is not None:
            images, images_known = box[0], True
            second = _static(box[1])
            if not counts.priors and second is not None:
                if locations == 0 or second % (locations * 4):
                    raise ShapeError(
                        "Box logits' second dimension must be a multiply of num_loc_classes * 4 "
                        f"({locations * 4}). Current value is: {second}."
                    )
                counts.priors = second // (locations * 4)
            expected = counts.priors * locations * 4
            if counts.priors > 0 and locations > 0 and not box[1].admits(expected):
                raise ShapeError(
                    "The second dimension of the first input (box logits) is not compatible. "
                    f"Current value: {box[1]}, expected value: {expected}"
                )
        if classes.dims is not None:
            if (not images_known or not images.is_static) and classes[0].is_static:
                images, images_known = classes[0], True
            elif classes[0].overlap(images) is None:
                raise ShapeError(
                    "Class predictions' first dimension is not compatible with batch size.  "
                    f"Current value is: {classes[0]}, expected: {images}."
                )
            second = _static(classes[1])
            if second is not None and counts.classes:
                if not counts.priors:
                    if second % counts.classes:
                        raise ShapeError(
                            "Class predictions' second dimension must be a multiply of "
                            f"num_classes ({counts.classes}). Current value is: {second}."
                        )
                    counts.priors = second // counts.classes
                elif second != counts.priors * counts.classes:
                    raise ShapeError(
                        "Class predictions' second dimension must be equal to num_prior_boxes * "
                        f"num_classes ({counts.priors * counts.classes}). Current value is: "
                        f"{second}."
                    )
        if proposals.dims is not None:
            self._check_proposals(proposals, images, counts)
        if len(shapes) == 5:
            self._check_arm(shapes, images, counts)
        return images

    def _check_proposals(self, proposals: Shape, images: Dim, counts: Counts) -> None:
        if not (proposals[0].admits(1) or proposals[0].overlap(images) is not None):
            raise ShapeError(
                "Proposals' first dimension is must be equal to either batch size "
                f"({images}) or 1. Got: {proposals[0]}."
            )
        expected = 1 if self.attrs["variance_encoded_in_target"] else 2
        if not proposals[1].admits(expected):
            raise ShapeError(
                f"Proposals' second dimension is mismatched. Current value is: {proposals[1]}, "
                f"expected: {expected}."
            )
        third, size = _static(proposals[2]), self.prior_size
        if third is None:
            return
        if not counts.priors:
            if third % size:
                raise ShapeError(
                    f"Proposals' third dimension must be a multiply of prior_box_size ({size}). "
                    f"Current value is: {third}."
                )
            counts.priors = third // size
        elif third != counts.priors * size:
            raise ShapeError(
                "Proposals' third dimension must be equal to num_prior_boxes * prior_box_size "
                f"({counts.priors * size}). Current value is: {third}."
            )

    def _check_arm(self, shapes: Sequence[Shape], images: Dim, counts: Counts) -> None:
        arm_classes, arm_boxes = shapes[3], shapes[4]
        if arm_classes.dims is not None:
            if arm_classes[0].overlap(images) is None:
                raise ShapeError(
                    "Additional class predictions' first dimension must be compatible with "
                    f"batch size. Current value is: {arm_classes[0]}, expected: {images}."
                )
            if counts.priors and not arm_classes[1].admits(counts.priors * 2):
                raise ShapeError(
                    "Additional class predictions' second dimension must be compatible with "
                    f"num_prior_boxes * 2. Current value is: {arm_classes[1]}, expected: "
                    f"{counts.priors * 2}."
                )
            second = _static(arm_classes[1])
            if second is not None:
                counts.priors = second // 2
        box = shapes[0]
        compatible = (
            box.dims is None
            or arm_boxes.dims is None
            or (
                len(box) == len(arm_boxes)
                and all(a.overlap(b) is not None for a, b in zip(box, arm_boxes, strict=True))
            )
        )
        if not compatible:
            raise ShapeError(
                "Additional box predictions' shape must be compatible with box logits shape. "
                f"Current value is: {arm_boxes}, expected: {box}."
            )

    def _rows(self, images: Dim, counts: Counts) -> Dim:
        priors = Dim.static(counts.priors) if counts.priors else Dim.dynamic()
        classes = Dim.static(counts.classes) if counts.classes else Dim.dynamic()
        top_k = self.attrs["top_k"]
        if self.keep_top_k > 0:
            return _times(images, Dim.static(self.keep_top_k))
        if self.keep_top_k == -1 and top_k > 0:
            return _times(_times(images, Dim.static(top_k)), classes)
        return _times(_times(images, priors), classes)

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        code = self.attrs["code_type"].rsplit(".", 1)[-1]
        style = "MXNet (one class per prior)" if self.attrs["decrease_label_id"] else "Caffe"
        shared = "shared" if self.attrs["share_location"] else "per-class"
        return Explanation(
            f"{code} boxes ({shared} locations), {style} NMS at "
            f"{self.attrs['nms_threshold']:g}, top_k={self.attrs['top_k']}, "
            f"keep_top_k={self.keep_top_k}",
            [],
        )


@register
class DetectionOutput1(DetectionOutputBase):
    type_name = "DetectionOutput"
    version = 1
    opsets = range(1, 8)

    def given_classes(self) -> int:
        return int(self.attrs["num_classes"])

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        if self.attrs["num_classes"] <= 0:
            raise ShapeError("Number of classes must be greater than zero")
        return super().infer(inputs, ctx)


@register
class DetectionOutput8(DetectionOutputBase):
    type_name = "DetectionOutput"
    version = 8
    opsets = range(8, 17)
    attributes = ATTRIBUTES[1:]
