"""Sigmoid as the CPU plugin's vectorized kernels compute it (oneDNN's logistic), bit for bit
(docs/cpu.md#the-vectorized-exp-is-a-polynomial).

The logistic takes e = exp(-|x|) and gives e / (e + 1) for x < 0 (sign bit set), 1 minus it
otherwise. Its exp clips x to [ln FLT_MIN, ln FLT_MAX], takes n = floor(x * log2(e) + 0.5)
in f32, r = x - n * ln 2 by one FMA, a degree-5 polynomial in r by FMAs, and multiplies it by
2**(n - 1) and by 2; below ln FLT_MIN, and where 2**(n - 1) is not a normal f32
(x < -86.98997), it gives 0. An FMA is computed in f64 and rounded once to f32 here: the
products of two f32 are exact in f64.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
from numpy.typing import NDArray

F32 = np.float32
F64 = np.float64


def _f32(bits: int) -> np.float32:
    return np.uint32(bits).view(F32)


LN_FLT_MAX = _f32(0x42B17218)
LN_FLT_MIN = _f32(0xC2AEAC50)
LOG2_E = _f32(0x3FB8AA3B)
LN_2 = F64(_f32(0x3F317218))
# exp(r) ~ 1 + p1 r + ... + p5 r**5, highest power first (Horner).
POLYNOMIAL = tuple(
    F64(_f32(bits))
    for bits in (0x3C07CFCE, 0x3D2B9D0D, 0x3E2AAD40, 0x3EFFFEE3, 0x3F7FFFFB, 0x3F800000)
)
EXPONENT_BIAS = 127
MANTISSA_BITS = 23
BLOCK = 16384  # elements a pass takes at a time: its f64 buffers stay in the L2 cache


def _exp_block(x: NDArray[np.float32], out: NDArray[np.float32], whole_power: bool = False) -> None:
    """`out` = the CPU's exp of `x` (one block, f32, NaN stays NaN): p(r) times 2 * 2**(n - 1),
    or with `whole_power` times 2**n, which keeps subnormal results from ln FLT_MIN to about
    -86.99 (the attention snippet's scaling; x at most ln FLT_MAX)."""
    clipped = np.clip(x, LN_FLT_MIN, LN_FLT_MAX)
    steps = clipped * LOG2_E
    steps += F32(0.5)
    np.floor(steps, out=steps)
    wide = steps.astype(F64)
    wide *= -LN_2
    wide += clipped
    rest = wide.astype(F32).astype(F64)
    power = rest * POLYNOMIAL[0]
    rounded = np.empty(x.shape, F32)
    for coefficient in POLYNOMIAL[1:-1]:
        power += coefficient
        np.copyto(rounded, power, casting="same_kind")
        np.copyto(power, rounded)  # then f64 by f64: faster than NumPy's mixed-type loop
        power *= rest
    power += POLYNOMIAL[-1]
    np.copyto(out, power, casting="same_kind")
    if not whole_power:
        steps -= F32(1)
    exponent = steps.astype(np.int32)
    exponent += np.int32(EXPONENT_BIAS)
    np.left_shift(exponent, MANTISSA_BITS, out=exponent)
    out *= exponent.view(F32)  # below ln FLT_MIN: clipped to it, where 2**(n - 1) is 0
    if whole_power:
        out[x < LN_FLT_MIN] = 0  # 2**n is not 0 there
    else:
        out *= F32(2)


def by_blocks(
    x: NDArray[np.float32], compute: Callable[[NDArray[np.float32], NDArray[np.float32]], None]
) -> NDArray[np.float32]:
    """`compute(part, out)` over f32 `x` a BLOCK at a time, into a new array of its shape."""
    flat = np.ascontiguousarray(x, F32).reshape(-1)
    result = np.empty_like(flat)
    with np.errstate(all="ignore"):
        for start in range(0, flat.size, BLOCK):
            compute(flat[start : start + BLOCK], result[start : start + BLOCK])
    return result.reshape(np.shape(x))


def vector_exp(x: NDArray[np.float32], whole_power: bool = False) -> NDArray[np.float32]:
    """The CPU's vectorized exp of f32 values (NaN stays NaN); `whole_power`: the attention
    snippet's scaling by 2**n (see `_exp_block`)."""
    return by_blocks(x, partial(_exp_block, whole_power=whole_power))


def _logistic_block(x: NDArray[np.float32], out: NDArray[np.float32]) -> None:
    _exp_block(-np.abs(x), out)
    out /= out + F32(1)
    # 1 minus it where the sign bit is clear, chosen by bits (a masked subtract is slow)
    flipped = np.subtract(F32(1), out).view(np.int32)
    bits = out.view(np.int32)
    bits ^= flipped
    bits &= x.view(np.int32) >> 31
    bits ^= flipped


def logistic(x: NDArray[np.float32]) -> NDArray[np.float32]:
    """The CPU's Sigmoid of f32 values: NaN gives NaN, ±inf 1 and 0, ±0 0.5."""
    return by_blocks(x, _logistic_block)
