"""irpool/execute/kernels/erf.py: 1 + erf(z) for Gelu, against Python's math.erf/erfc."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from numpy.polynomial import chebyshev

from irpool.execute.kernels.erf import BLOCK, INNER, OUTER, one_plus_erf


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


def _interpolant(
    function: Callable[[float], float], low: float, high: float, degree: int
) -> list[float]:
    """Power-series coefficients (highest first), in t mapped to [-1, 1], of `function`'s
    interpolant at the first-kind Chebyshev nodes of [low, high]."""
    nodes = np.cos(np.pi * (np.arange(degree + 1) + 0.5) / (degree + 1))
    values = [function(low + (high - low) * (float(t) + 1) / 2) for t in nodes]
    return [float(c) for c in chebyshev.cheb2poly(chebyshev.chebfit(nodes, values, degree))[::-1]]


@pytest.mark.parametrize(
    ("committed", "function", "low", "high", "degree"),
    [
        (INNER, lambda u: math.erf(math.sqrt(u)) / math.sqrt(u), 0.0, 1.0, 10),
        (OUTER, lambda s: math.erfc(1 / s) * math.exp(1 / (s * s)), 1 / 6, 1.0, 20),
    ],
)
def test_the_committed_coefficients_are_the_chebyshev_interpolants(
    committed: tuple[float, ...],
    function: Callable[[float], float],
    low: float,
    high: float,
    degree: int,
) -> None:
    """How the constants were made, fitted again: the two polynomials agree to f64 rounding."""
    fitted = _interpolant(function, low, high, degree)
    assert len(fitted) == len(committed)
    t = np.linspace(-1, 1, 2001)
    np.testing.assert_allclose(np.polyval(committed, t), np.polyval(fitted, t), rtol=1e-14)
