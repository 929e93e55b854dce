"""PriorBox-1 and -8: the number of priors per cell and the output shape, as OpenVINO
2026.4's `read_model` gives them (measured: docs/ops/PriorBox.md); the live comparison is
tests/differential/test_prior_box.py."""

from __future__ import annotations

from typing import Any

import pytest

from irpool.ops.prior_box import PriorBox1, PriorBox8, number_of_priors
from tests.ops.inferring import const, infer

BASE = {"min_size": (30.0,), "max_size": (), "aspect_ratio": (), "density": (),
        "fixed_ratio": (), "fixed_size": (), "clip": False, "flip": False, "step": 0.0,
        "offset": 0.5, "variance": (), "scale_all_sizes": True}  # fmt: skip


@pytest.mark.parametrize(
    ("attrs", "priors"),
    [  # read_model's [2, H * W * priors * 4]
        ({}, 1),
        ({"max_size": (60.0,), "aspect_ratio": (2.0,), "flip": True}, 4),
        ({"aspect_ratio": (2.0, 2.0, 1.0)}, 2),  # repeats and 1 count once
        ({"min_size": (0.1, 0.2), "aspect_ratio": (2.0,), "scale_all_sizes": False}, 3),
        ({"min_size": (), "fixed_size": (16.0,), "density": (2.0,)}, 4),
    ],
)
def test_priors(attrs: dict[str, Any], priors: int) -> None:
    assert number_of_priors({**BASE, **attrs}) == priors
    for kind in (PriorBox1, PriorBox8):
        (out,) = infer(kind({**BASE, **attrs}), const([4, 5]), const([300, 300]))
        assert str(out.shape) == f"[2,{4 * 5 * priors * 4}]"
