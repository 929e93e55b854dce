"""Sin and Cos as the CPU plugin computes them, glibc's sinf and cosf
(irpool/cpu/trigonometry.py): values measured where they are not the nearest f32 (live, bit
for bit, in tests/differential/test_unary_math.py and test_rope_fusion.py)."""

from __future__ import annotations

import numpy as np
import pytest

from irpool.cpu.trigonometry import cosf, sinf

F32 = np.float32

# (x, glibc's sinf, glibc's cosf), measured 2026-12-07 (glibc 2.36, AMD EPYC family 25 model
# 17): rotary angles below 120 and above (the reduction by 4/pi), where the f64 value rounded
# is another f32 for the cosine; huge arguments, reduced exactly.
MEASURED = [
    (1.0668171644210815, 0.875667929649353, 0.4829137623310089),
    (1.180916666984558, 0.9249548316001892, 0.3800771236419678),
    (10.68448543548584, -0.9520008563995361, -0.3060954213142395),
    (4.979885101318359, -0.9644357562065125, 0.26431745290756226),
    (131.0, -0.8116033673286438, 0.5842087864875793),
    (193.0, -0.9784565567970276, -0.20645274221897125),
    (1e10, -0.48750603199005127, 0.8731196522712708),
    (3.0000000054977558e38, 0.8749048709869385, -0.4842947721481323),
    (-7.49999997438472e20, 0.9666904211044312, 0.255948543548584),
]  # fmt: skip


@pytest.mark.parametrize(("x", "sine", "cosine"), MEASURED)
def test_glibcs_values(x: float, sine: float, cosine: float) -> None:
    values = np.array([x, -x], F32)
    np.testing.assert_array_equal(sinf(values), np.array([sine, -sine], F32))
    np.testing.assert_array_equal(cosf(values), np.array([cosine, cosine], F32))


def test_the_nearest_f32_is_not_glibcs() -> None:
    """The first cosine above: the f64 value rounded is one f32 step higher."""
    x = F32(MEASURED[0][0])
    assert F32(np.cos(np.float64(x))) == np.nextafter(cosf(x), F32(1))


@pytest.mark.parametrize(
    ("x", "sine", "cosine"),
    [(0.0, 0.0, 1.0), (-0.0, -0.0, 1.0), (1e-40, 1e-40, 1.0), (2.0**-13, 2.0**-13, 1.0)],
)
def test_tiny_arguments(x: float, sine: float, cosine: float) -> None:
    assert sinf(F32(x)).tobytes() == F32(sine).tobytes() and cosf(F32(x)) == F32(cosine)


def test_non_finite_arguments_give_nan() -> None:
    values = np.array([np.inf, -np.inf, np.nan], F32)
    assert np.isnan(sinf(values)).all() and np.isnan(cosf(values)).all()


def test_the_shape_is_kept() -> None:
    assert sinf(F32(2)).shape == () and cosf(np.ones((2, 0, 3), F32)).shape == (2, 0, 3)
