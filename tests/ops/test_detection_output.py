"""DetectionOutput-1 and -8: output shapes on static, dynamic and interval dims, and refusals
with the runtime's messages, as OpenVINO 2026.4's `read_model` gives them (measured:
docs/ops/DetectionOutput.md); the live comparison is tests/differential/test_detection_output.py."""

from __future__ import annotations

from typing import Any

import pytest

from irpool.element_types import element_type
from irpool.ops.base import ShapeError, TensorInfo
from irpool.ops.detection_output import DetectionOutput1, DetectionOutput8, DetectionOutputBase
from tests.ops.inferring import data, infer, parse

ATTRS = {"keep_top_k": (-1,), "normalized": True, "top_k": -1, "share_location": True,
         "variance_encoded_in_target": False, "code_type": "caffe.PriorBoxParameter.CORNER",
         "nms_threshold": 0.45}  # fmt: skip
SSD = ("1,20", "1,15", "1,2,20")  # 5 priors, 3 classes


def op(version: int = 8, **attrs: Any) -> DetectionOutputBase:
    cls = DetectionOutput1 if version == 1 else DetectionOutput8
    defaults = {attr.name: attr.default for attr in cls.attributes}
    return cls({**defaults, **ATTRS, **attrs})


@pytest.mark.parametrize(
    ("version", "attrs", "shapes", "expected"),
    [
        (8, {}, SSD, "[1,1,15,7]"),
        (8, {"keep_top_k": (4,)}, SSD, "[1,1,4,7]"),
        (8, {"top_k": 2}, SSD, "[1,1,6,7]"),
        (8, {"keep_top_k": (0,), "top_k": 2}, SSD, "[1,1,15,7]"),  # top_k counts with -1 only
        (1, {"num_classes": 3, "top_k": 2}, SSD, "[1,1,6,7]"),
        (8, {"share_location": False}, ("1,60", "1,15", "1,2,20"), "[1,1,15,7]"),
        (8, {"normalized": False}, ("1,20", "1,15", "1,2,25"), "[1,1,15,7]"),
        (8, {}, ("2,20", "2,15", "2,2,20"), "[1,1,30,7]"),  # priors per image
        (8, {}, ("?,20", "?,15", "1,2,20"), "[1,1,?,7]"),
        (8, {"keep_top_k": (7,)}, ("2..4,?", "?,?", "1,2,?"), "[1,1,14..28,7]"),
        (8, {"top_k": 3}, ("2..4,?", "?,15", "1,2,20"), "[1,1,18..36,7]"),
        (8, {"top_k": 3}, ("2..4,?", "?,?", "1,2,?"), "[1,1,?,7]"),
        (8, {}, ("...", "...", "..."), "[1,1,?,7]"),
        (8, {}, (*SSD, "1,10", "1,20"), "[1,1,15,7]"),  # the ARM's predictions
    ],
)
def test_shapes(
    version: int, attrs: dict[str, Any], shapes: tuple[str, ...], expected: str
) -> None:
    (out,) = infer(op(version, **attrs), *(data(s) for s in shapes))
    assert str(out.shape) == expected and out.element_type == "f32"


@pytest.mark.parametrize(
    ("version", "attrs", "shapes", "message"),
    [
        (1, {}, SSD, "Number of classes must be greater than zero"),
        (
            1,
            {"num_classes": 4},
            SSD,
            r"second dimension must be equal to num_prior_boxes \* "
            r"num_classes \(20\). Current value is: 15.",
        ),
        (8, {"code_type": "caffe.PriorBoxParameter.CORNER_SIZE"}, SSD, "code_type must be"),
        (8, {"code_type": "caffe.priorboxparameter.corner"}, SSD, "code_type must be"),
        (
            8,
            {},
            ("1,20", "1,15", "1,2,25"),
            r"Proposals' third dimension must be a multiply of "
            r"prior_box_size \(4\). Current value is: 25.",
        ),
        (
            8,
            {"share_location": False},
            SSD,
            "The second dimension of the first input "
            r"\(box logits\) is not compatible. Current value: 20, expected value: 60",
        ),
        (
            8,
            {"variance_encoded_in_target": True},
            SSD,
            "Proposals' second dimension is mismatched. Current value is: 2, expected: 1.",
        ),
        (
            8,
            {},
            ("2,20", "2,15", "3,2,20"),
            "Proposals' first dimension is must be equal to "
            r"either batch size \(2\) or 1. Got: 3.",
        ),
        (
            8,
            {},
            ("1,20", "1,16", "1,2,20"),
            "Class predictions second dimension must be a "
            r"multiply of num_prior_boxes \(5\). Current value is: 16.",
        ),
        (8, {}, ("1,24", "1,15", "1,2,20"), "Current value: 24, expected value: 20"),
        (
            8,
            {},
            ("1,20", "2,15", "1,2,20"),
            "Class predictions' first dimension is not "
            "compatible with batch size.  Current value is: 2, expected: 1.",
        ),
        (
            8,
            {},
            (*SSD, "1,12", "1,20"),
            "Additional class predictions' second dimension must "
            r"be compatible with num_prior_boxes \* 2. Current value is: 12, expected: 10.",
        ),
        (8, {}, ("1,0", "1,0", "1,2,0"), "A number of prior boxes must be greater zero. Got: 0"),
        (8, {}, (*SSD, "1,10"), "A number of arguments must be  equal to 3 or equal to 5"),
        (8, {}, ("1,20,1", "1,15", "1,2,20"), "Box logits rank must be 2. Got 3"),
    ],
)
def test_read_model_refuses(
    version: int, attrs: dict[str, Any], shapes: tuple[str, ...], message: str
) -> None:
    with pytest.raises(ShapeError, match=message):
        infer(op(version, **attrs), *(data(s) for s in shapes))


def test_box_logits_of_an_integer_type_are_refused() -> None:
    box = TensorInfo(element_type("i32"), parse("1,20"))
    with pytest.raises(ShapeError, match=r"Box logits' data type must be floating point\. Got i32"):
        infer(op(), box, data(SSD[1]), data(SSD[2]))


def test_f16_detections_are_f16() -> None:
    f16 = [TensorInfo(element_type("f16"), parse(s)) for s in SSD]
    (out,) = infer(op(), *f16)
    assert out.element_type == "f16"
