"""PriorBox-1 and -8 on a hand-checked input, the expected priors OpenVINO's (measured on
OpenVINO 2026.4.1, docs/ops/PriorBox.md); the live comparison is
tests/differential/test_prior_box.py."""

from __future__ import annotations

import numpy as np

from irpool.ops.prior_box import PriorBox1, PriorBox8
from tests.execute.running import compute

ATTRS = {"min_size": (4.0,), "max_size": (16.0,), "aspect_ratio": (4.0,), "density": (),
         "fixed_ratio": (), "fixed_size": (), "clip": False, "flip": False, "step": 8.0,
         "offset": 0.5, "variance": (0.1, 0.1, 0.2, 0.2), "scale_all_sizes": True}  # fmt: skip
SIZES = [np.array([1, 1], np.int64), np.array([8, 8], np.int64)]


def test_one_cell_in_each_order() -> None:
    square, larger, wide = [0.25, 0.25, 0.75, 0.75], [0, 0, 1, 1], [0, 0.375, 1, 0.625]
    (first,) = compute(PriorBox1(ATTRS), SIZES)
    np.testing.assert_array_equal(first[0], np.array(square + larger + wide, np.float32))
    (second,) = compute(PriorBox8({**ATTRS, "min_max_aspect_ratios_order": False}), SIZES)
    np.testing.assert_array_equal(second[0], np.array(square + wide + larger, np.float32))
    np.testing.assert_array_equal(second[1], np.tile(np.float32([0.1, 0.1, 0.2, 0.2]), 3))
