"""SoftMax on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it (measured,
docs/ops/SoftMax.md).

Every type is computed in f32 as the activations' kernels take it (integers wrapped to int32,
f64 saturated to ±FLT_MAX): d = x - max in f32, exp(d) in f64, 0 where the CPU's exp
underflows (d < -86.98997), divided by the row's sum and rounded to f32; integers round that to
nearest (0.665 gives 1), booleans are true where it rounds to 1. Within 4 * 2**-24 of the
CPU's values (its exp is not NumPy's), with its zeros and non-finite values: a row with +inf
gives NaN at each +inf and 0 elsewhere, a row of -inf only gives NaN, -inf alone gives 0. In a
row holding NaN the CPU gives NaN at each NaN and, depending on where its SIMD scan meets the
NaN, NaN or 0 elsewhere; irpool gives NaN at each NaN and +inf, 0 elsewhere. A SoftMax-8 of a
scalar gives 1, even NaN or inf; SoftMax-1 computes it (NaN for NaN or inf), as a row of one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import EXP_UNDERFLOW, F32, f32_operand, stored_from_f32
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.softmax import SoftMax1, SoftMax8


@kernel_for(SoftMax1)
def run_softmax(
    op: SoftMax1, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data = inputs[0]
    if data.ndim == 0 and isinstance(op, SoftMax8):  # the CPU: 1, even for NaN or inf
        return [np.ones_like(data)]
    x = f32_operand(data)
    axis = op.axis if data.ndim else None
    with np.errstate(all="ignore"):  # inf - inf, inf / inf: values here, as on the CPU
        finite = x.ndim and x.size and np.isfinite(x.max()) and np.isfinite(x.min())
        if finite and x.flags.c_contiguous:
            return [stored_from_f32(finite_softmax(x, axis), data.dtype)]
        nan = np.isnan(x)
        peak = np.max(np.where(nan, F32(-np.inf), x), axis=axis, keepdims=True, initial=-np.inf)
        shifted = x - peak
        # NaN (inf - inf) counts as an infinite exp: the row's values become NaN or 0.
        powers = np.where(
            np.isnan(shifted),
            np.inf,
            np.where(shifted < EXP_UNDERFLOW, 0.0, np.exp(shifted.astype(np.float64))),
        )
        softmax = (powers / np.sum(powers, axis=axis, keepdims=True)).astype(F32)
        poisoned = np.any(nan, axis=axis, keepdims=True)
        softmax = np.where(poisoned, np.where(nan | np.isposinf(x), F32(np.nan), F32(0)), softmax)
    return [stored_from_f32(softmax, data.dtype)]


def finite_softmax(x: NDArray[np.float32], axis: int | None) -> NDArray[np.float32]:
    """`run_softmax`'s values where contiguous `x` holds neither NaN nor inf, in fewer passes
    (its sums in the same order: the same layout); a mask pass only where some exp
    underflows."""
    shifted = x - np.max(x, axis=axis, keepdims=True)
    powers = shifted.astype(np.float64)
    np.exp(powers, out=powers)
    if shifted.min() < EXP_UNDERFLOW:
        powers[shifted < EXP_UNDERFLOW] = 0
    powers /= np.sum(powers, axis=axis, keepdims=True)
    softmax: NDArray[np.float32] = powers.astype(F32)
    return softmax
