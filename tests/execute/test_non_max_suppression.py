"""NonMaxSuppression-5 and -9 on hand-checked inputs, each expected selection the CPU
plugin's (measured on OpenVINO 2026.4.1, docs/ops/NonMaxSuppression.md); the live comparison
over many configurations is tests/differential/test_non_max_suppression.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.ops.non_max_suppression import NonMaxSuppression5, NonMaxSuppression9
from tests.execute.running import compute

BOXES = np.array(
    [[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3], [0, 2.05, 1, 3.05], [5, 5, 6, 6]]], np.float32
)
SCORES = np.array([[[0.9, 0.8, 0.7, 0.7, 0.1], [0.5, 0.6, 0.5, 0.9, 0.3]]], np.float32)


def run(sort: bool, sigma: float, version: Any = NonMaxSuppression9, **inputs: Any) -> list[Any]:
    attrs = {"box_encoding": "corner", "sort_result_descending": sort, "output_type": "i64"}
    arrays = [
        inputs.get("boxes", BOXES),
        inputs.get("scores", SCORES),
        np.array(inputs.get("maximum", 3), np.int64),
        np.float32(0.5),
        np.float32(0.2),
        np.float32(sigma),
    ]
    return compute(version(attrs), arrays)


@pytest.mark.parametrize(
    ("sort", "sigma", "indices", "scores"),
    [  # the CPU's selections: ties by box index, soft scores decayed and ranked again
        (True, 0.0, [[0, 0, 0], [0, 1, 3], [0, 0, 2], [0, 1, 1], [0, 1, 4]],
         [0.9, 0.9, 0.7, 0.6, 0.3]),
        (False, 0.0, [[0, 0, 0], [0, 0, 2], [0, 1, 3], [0, 1, 1], [0, 1, 4]],
         [0.9, 0.7, 0.9, 0.6, 0.3]),
        (True, 0.5, [[0, 0, 0], [0, 1, 3], [0, 0, 2], [0, 1, 1], [0, 0, 1], [0, 1, 4]],
         [0.9, 0.9, 0.7, 0.6, 0.4096038043498993, 0.3]),
        (False, 0.5, [[0, 0, 0], [0, 0, 2], [0, 0, 1], [0, 1, 3], [0, 1, 1], [0, 1, 4]],
         [0.9, 0.7, 0.4096038043498993, 0.9, 0.6, 0.3]),
    ],
)  # fmt: skip
def test_selections(sort: bool, sigma: float, indices: list[Any], scores: list[float]) -> None:
    for version in (NonMaxSuppression5, NonMaxSuppression9):
        selected, chosen, count = run(sort, sigma, version)
        np.testing.assert_array_equal(selected, np.array(indices, np.int64))
        np.testing.assert_allclose(chosen[:, 2], np.array(scores, np.float32), rtol=1e-6)
        assert chosen.dtype == np.float32 and count.tolist() == [len(indices)]


@pytest.mark.parametrize("maximum", [0, -1])
def test_no_boxes_at_a_maximum_of_0_or_below(maximum: int) -> None:
    selected, chosen, count = run(True, 0.0, maximum=maximum)
    assert selected.shape == chosen.shape == (0, 3) and count.tolist() == [0]


def test_center_encoding() -> None:
    attrs = {"box_encoding": "center", "sort_result_descending": True, "output_type": "i32"}
    boxes = np.array([[[0.5, 0.5, 1, 1], [0.6, 0.5, 1, 1], [3, 3, 1, 1]]], np.float32)
    scores = np.array([[[0.9, 0.8, 0.7]]], np.float32)
    arrays = [boxes, scores, np.array([5], np.int32), np.array([0.5], np.float32)]
    selected, _, count = compute(NonMaxSuppression9(attrs), arrays)
    np.testing.assert_array_equal(selected, np.array([[0, 0, 0], [0, 0, 2]], np.int32))
    assert count.dtype == np.int32
