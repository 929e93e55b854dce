"""irpool/execute/kernels/erf.py: 1 + erf(z) for Gelu, against Python's math.erf/erfc."""

from __future__ import annotations

import math

import numpy as np
import pytest

from irpool.execute.kernels.erf import BLOCK, one_plus_erf


def test_within_3e_15_of_math_erf_and_relatively_exact_where_it_is_small() -> None:
    z = np.concatenate([np.linspace(-9, 9, 180_001), [0.0, -0.0, 1.0, -1.0, 6.0, -6.0]])
    found = one_plus_erf(z)
    exact = np.array([math.erfc(-v) for v in z])  # 1 + erf(z) without cancellation
    assert np.max(np.abs(found - exact)) <= 3e-15
    small = (z < -1) & (z > -6)
    assert np.max(np.abs(found[small] - exact[small]) / exact[small]) <= 1e-13
    assert np.all(found[z <= -6] >= 0) and np.all(found[z >= 6] == 2)


def test_non_finite_and_the_shape_kept() -> None:
    z = np.array([[np.nan, np.inf], [-np.inf, 0.5]])
    found = one_plus_erf(z)
    assert found.shape == z.shape and np.isnan(found[0, 0])
    np.testing.assert_array_equal(found.ravel()[1:3], [2.0, 0.0])
    assert found[1, 1] == pytest.approx(1 + math.erf(0.5), abs=1e-15)


def test_blocks_join_seamlessly() -> None:
    z = np.random.default_rng(0).normal(0, 3, BLOCK * 2 + 5)
    assert np.array_equal(one_plus_erf(z)[-5:], one_plus_erf(z[-5:]))
