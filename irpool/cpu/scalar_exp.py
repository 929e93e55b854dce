"""exp as the CPU plugin's scalar nodes compute it (DetectionOutput's box sizes): they call the
C library's `expf`, which on glibc 2.27 and later (the measured machine's:
docs/cpu.md#scalar-exp-is-the-c-librarys) evaluates 2**(k/32) * p(r) in double from a 32-entry
table and rounds once to f32. Near the middle of two f32 values that double is on the other
side now and then: the result is then one f32 step away from the nearest (exp(-0.019116983)
is 0.98106462, not 0.98106456). This module computes the same steps in NumPy doubles, element
for element; and the reference Swish kernel, which the plugin runs where beta is known only
when run (docs/ops/Swish.md).
"""

from __future__ import annotations

from decimal import Decimal, localcontext

import numpy as np
from numpy.typing import NDArray

F32 = np.float32
TABLE_BITS = 5
N = 1 << TABLE_BITS
INV_LN2_N = float.fromhex("0x1.71547652b82fep+0") * N
SHIFT = float.fromhex("0x1.8p+52")
POLY = (
    float.fromhex("0x1.c6af84b912394p-5") / N / N / N,
    float.fromhex("0x1.ebfce50fac4f3p-3") / N / N,
    float.fromhex("0x1.62e42ff0c52d6p-1") / N,
)
OVERFLOW_ABOVE = float.fromhex("0x1.62e42ep6")  # log(2**128)
UNDERFLOW_BELOW = -float.fromhex("0x1.9fe368p6")  # log(2**-150)


def _table() -> NDArray[np.uint64]:
    """2**(i/32) as doubles (nearest), each less i << 47: plus k << 47, 2**(k/32)."""
    with localcontext() as context:
        context.prec = 40
        ln2 = Decimal(2).ln()
        values = [float((ln2 * i / N).exp()) for i in range(N)]
    bits = np.array(values, np.float64).view(np.uint64)
    return bits - (np.arange(N, dtype=np.uint64) << np.uint64(52 - TABLE_BITS))


TABLE = _table()


def expf(x: NDArray[np.float32]) -> NDArray[np.float32]:
    """glibc's expf of each element: 0 for -inf and below log(2**-150), inf above log(2**128)
    and for inf, NaN for NaN."""
    wide = np.asarray(x, F32).astype(np.float64)
    inside = np.isfinite(wide) & (wide <= OVERFLOW_ABOVE) & (wide >= UNDERFLOW_BELOW)
    z = INV_LN2_N * np.where(inside, wide, 0.0)
    shifted = z + SHIFT
    k = shifted.view(np.uint64)
    r = z - (shifted - SHIFT)
    scale = (TABLE[k % np.uint64(N)] + (k << np.uint64(52 - TABLE_BITS))).view(np.float64)
    y = ((POLY[0] * r + POLY[1]) * (r * r) + (POLY[2] * r + 1.0)) * scale
    with np.errstate(over="ignore"):
        result = y.astype(F32)
    outside = np.where(wide > 0, np.inf, 0.0)
    return np.where(inside, result, np.where(np.isnan(wide), wide, outside)).astype(F32)


def reference_swish(x: NDArray[np.float32], beta: NDArray[np.float32]) -> NDArray[np.float32]:
    """x / (1.0 + expf(-x * beta)) in double, rounded to f32: OpenVINO's reference Swish, which
    has no exp cut-off (callers ignore float errors)."""
    powers = expf(np.negative(x) * beta).astype(np.float64)
    powers += 1.0
    result: NDArray[np.float32] = np.divide(x, powers, dtype=np.float64).astype(F32)
    return result
