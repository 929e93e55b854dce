"""PriorBoxClustered-1 on a hand-checked input, the expected priors the CPU plugin's (measured
on OpenVINO 2026.4.1, docs/ops/PriorBoxClustered.md, folded from Consts and computed from
Parameters alike); the live comparison is tests/differential/test_prior_box_clustered.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.ops.prior_box_clustered import PriorBoxClustered1
from tests.execute.running import compute

ATTRS = {"width": (2.0, 6.0), "height": (4.0, 3.0), "clip": True, "step": 0.0, "step_w": 0.0,
         "step_h": 0.0, "offset": 0.5, "variance": (0.1, 0.1, 0.2, 0.2)}  # fmt: skip
CPU = [  # a 2x3 map over an 8x12 image: per cell, one box per width/height pair
    [1 / 12, 0, 0.25, 0.5], [0, 0.0625, 5 / 12, 0.4375],
    [5 / 12, 0, 7 / 12, 0.5], [0.25, 0.0625, 0.75, 0.4375],
    [0.75, 0, 11 / 12, 0.5], [7 / 12, 0.0625, 1, 0.4375],
    [1 / 12, 0.5, 0.25, 1], [0, 0.5625, 5 / 12, 0.9375],
    [5 / 12, 0.5, 7 / 12, 1], [0.25, 0.5625, 0.75, 0.9375],
    [0.75, 0.5, 11 / 12, 1], [7 / 12, 0.5625, 1, 0.9375],
]  # fmt: skip


def priors(**attrs: Any) -> Any:
    op = PriorBoxClustered1({**ATTRS, **attrs})
    (result,) = compute(op, [np.array([2, 3], np.int64), np.array([8, 12], np.int64)])
    return result


def test_priors_and_variances() -> None:
    result = priors()
    assert result.shape == (2, 48) and result.dtype == np.float32
    np.testing.assert_array_equal(result[0], np.array(CPU, np.float32).ravel())
    np.testing.assert_array_equal(result[1], np.tile(np.float32([0.1, 0.1, 0.2, 0.2]), 12))


@pytest.mark.parametrize(("variance", "row"), [((), 0.1), ((0.25,), 0.25)])
def test_one_variance_or_none(variance: tuple[float, ...], row: float) -> None:
    np.testing.assert_array_equal(priors(variance=variance)[1], np.full(48, row, np.float32))


def test_without_clip_corners_leave_the_image() -> None:
    assert priors(clip=False)[0].min() < 0
