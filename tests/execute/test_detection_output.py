"""DetectionOutput-8 on hand-checked inputs, the expected detections the CPU plugin's (measured
on OpenVINO 2026.4.1, docs/ops/DetectionOutput.md): three priors, the first two overlapping
(IoU 0.78), three classes (0 the background); the live comparison is
tests/differential/test_detection_output.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.cpu.scalar_exp import expf
from irpool.ops.detection_output import CENTER_SIZE, DetectionOutput8
from tests.execute.running import compute

DEFAULTS = {attr.name: attr.default for attr in DetectionOutput8.attributes}
ATTRS = {"keep_top_k": (-1,), "nms_threshold": 0.45, "normalized": True, "top_k": -1,
         "code_type": "caffe.PriorBoxParameter.CORNER", "background_label_id": 0}  # fmt: skip
PRIORS = [[0.1, 0.1, 0.5, 0.5], [0.15, 0.1, 0.55, 0.5], [0.6, 0.6, 0.9, 0.9]]
SCORES = [0.1, 0.9, 0.2, 0.1, 0.8, 0.7, 0.1, 0.3, 0.6]  # per prior, per class
STILL = [0.0] * 12  # no offsets: the priors are the boxes
END = [-1, 0, 0, 0, 0, 0, 0]
CPU = [  # the second prior loses class 1 to the first, the first loses class 2 to the second
    [0, 1, 0.9, *PRIORS[0]], [0, 1, 0.3, *PRIORS[2]],
    [0, 2, 0.7, *PRIORS[1]], [0, 2, 0.6, *PRIORS[2]],
]  # fmt: skip


def detect(loc: list[float], scores: list[float], *extra: list[float], **attrs: Any) -> Any:
    priors = np.array([np.ravel(PRIORS), np.tile([0.1, 0.1, 0.2, 0.2], 3)], np.float32)[None]
    arrays = [np.array(v, np.float32)[None] for v in (loc, scores, *extra)]
    arrays.insert(2, priors)
    (result,) = compute(DetectionOutput8({**DEFAULTS, **ATTRS, **attrs}), arrays)
    assert result is not None and result.dtype == np.float32
    return result[0, 0]


def rows(*found: list[float], total: int = 9) -> Any:
    """The CPU's output: the detections, a row starting with -1, zeros."""
    table = np.zeros((total, 7), np.float32)
    table[: len(found)] = found
    if len(found) < total:
        table[len(found)] = END
    return table


def test_caffe_style_by_class_then_score() -> None:
    np.testing.assert_array_equal(detect(STILL, SCORES), rows(*CPU))


def test_nan_scores_are_never_taken_and_a_nan_corner_clips_to_1() -> None:
    loc = [0, 0, 0, 0, float("nan"), 0, 0, 0, 0, 0, 0, 0]
    scores = [0.1, 0.9, 0.2, 0.1, float("nan"), 0.7, 0.1, 0.3, 0.6]
    found = detect(loc, scores, clip_after_nms=True)
    nan_box = [0, 2, 0.7, 1, 0.1, 0.55, 0.5]  # IoU with a NaN box suppresses nothing
    expected = rows(CPU[0], CPU[1], nan_box, CPU[3], [0, 2, 0.2, *PRIORS[0]])
    np.testing.assert_array_equal(found, expected)


def test_keep_top_k_keeps_the_best_of_the_image_in_class_order() -> None:
    found = detect(STILL, SCORES, keep_top_k=(2,))
    np.testing.assert_array_equal(found, rows(CPU[0], CPU[2], total=2))


def test_mxnet_style_one_class_per_prior_and_labels_one_less() -> None:
    found = detect(STILL, SCORES, decrease_label_id=True)
    np.testing.assert_array_equal(found, rows([0, 0, 0.9, *PRIORS[0]], [0, 1, 0.6, *PRIORS[2]]))


def test_center_size_decodes_with_the_c_library_exp() -> None:
    found = detect([0.5, 0, 1, 0] + [0.0] * 8, SCORES, code_type=CENTER_SIZE)
    first = np.float32([0.07571946, 0.10000001, 0.56428057, 0.5])
    np.testing.assert_array_equal(found[0, 3:], first)
    np.testing.assert_array_equal(found[2, 3:], np.float32([0.15000002, 0.10000001, 0.55, 0.5]))


def test_arm_objectness_below_the_score_makes_a_prior_background() -> None:
    arm_scores = [0.9, 0.1, 0.2, 0.8, 0.5, 0.5]  # per prior: background, object
    found = detect(STILL, SCORES, arm_scores, STILL, objectness_score=0.5)
    np.testing.assert_array_equal(found, rows([0, 1, 0.8, *PRIORS[1]], CPU[1], CPU[2], CPU[3]))


@pytest.mark.parametrize(
    ("x", "bits"),
    [(-0.019116983, 0x3F7B270D), (0.0, 0x3F800000), (float("-inf"), 0), (89.0, 0x7F800000)],
)
def test_expf_is_glibcs(x: float, bits: int) -> None:
    """glibc's expf, one f32 step above the nearest at -0.019116983 (measured)."""
    assert int(expf(np.array([x], np.float32)).view(np.uint32)[0]) == bits
