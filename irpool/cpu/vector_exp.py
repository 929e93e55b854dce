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

import threading
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
BLOCK = 32768  # elements a pass takes at a time: its f64 buffers stay in the L2 cache

# r = x - n * ln 2 is exact in f32 (below: why), so f32 steps give it exactly (Cody-Waite): n
# (|n| <= 128) times the top 16 bits of ln 2 and times the rest are exact, and x minus the
# first is a multiple of 2**-25 below 1/2 in size (n is 0 for |x| < 1/4).
LN_2_HIGH = _f32(0x3F317200)
LN_2_LOW = F32(F64(_f32(0x3F317218)) - F64(LN_2_HIGH))
# Adding 1.5 * 2**(52 + k) in f64 rounds to a multiple of 2**k (ties to even), as rounding to
# f32 does for values in one binade of f32 ulp 2**k: the first two Horner sums, from r in
# [-0.35, 0.35], lie in [0.039, 0.045] and [0.15, 0.19] (ulp 2**-28 and 2**-26).
F32_ROUNDERS = (F64(1.5 * 2.0**24), F64(1.5 * 2.0**26))
# n - 1 + 127 (or n + 127) plus 2**23 in f32: the biased exponent in the low bits.
EXPONENT_MAGIC = F32(2**23 + EXPONENT_BIAS - 1)
SIGN_BIT = np.uint32(0x80000000)


class _Workspace(threading.local):
    """A thread's buffers of BLOCK elements, reused by every block: fresh ones cost page faults.
    f32 rows: x clipped, exp's steps, a sign mask, a Swish's gate."""

    def __init__(self) -> None:
        self.f32 = np.empty((4, BLOCK), F32)
        self.f64 = np.empty((2, BLOCK), F64)
        # np.maximum by a scalar takes a slow loop, by an array three times faster (measured)
        self.ln_flt_min = np.full(BLOCK, LN_FLT_MIN)


_workspace = _Workspace()


def _exp_clipped(clipped: NDArray[np.float32], out: NDArray[np.float32], whole_power: bool) -> None:
    """`out` = the CPU's exp of x already clipped to [ln FLT_MIN, ln FLT_MAX] (NaN stays NaN),
    at most BLOCK elements: p(r) times 2 * 2**(n - 1), or with `whole_power` 2**n. Overwrites
    `clipped`, which must not be a workspace buffer but the first f32 one."""
    size = clipped.size
    steps, rest32 = _workspace.f32[1, :size], out
    rest, power = _workspace.f64[0, :size], _workspace.f64[1, :size]
    np.multiply(clipped, LOG2_E, out=steps)
    steps += F32(0.5)
    np.floor(steps, out=steps)
    np.multiply(steps, LN_2_HIGH, out=rest32)
    np.subtract(clipped, rest32, out=rest32)
    np.multiply(steps, LN_2_LOW, out=clipped)
    rest32 -= clipped
    np.copyto(rest, rest32)
    np.multiply(rest, POLYNOMIAL[0], out=power)
    for step, coefficient in enumerate(POLYNOMIAL[1:-1]):
        power += coefficient
        if step < len(F32_ROUNDERS):
            power += F32_ROUNDERS[step]
            power -= F32_ROUNDERS[step]
        else:
            np.copyto(out, power, casting="same_kind")
            np.copyto(power, out)  # then f64 by f64: faster than NumPy's mixed-type loop
        power *= rest
    power += POLYNOMIAL[-1]
    np.copyto(out, power, casting="same_kind")
    # 2**(n - 1) (or 2**n) by its bits: 0 where n - 1 is below the normal exponents
    steps += EXPONENT_MAGIC + F32(whole_power)
    scale = steps.view(np.uint32)
    np.left_shift(scale, np.uint32(MANTISSA_BITS), out=scale)
    out *= steps
    if not whole_power:
        out *= F32(2)


def _exp_block(x: NDArray[np.float32], out: NDArray[np.float32], whole_power: bool) -> None:
    clipped = np.clip(x, LN_FLT_MIN, LN_FLT_MAX, out=_workspace.f32[0, : x.size])
    _exp_clipped(clipped, out, whole_power)
    if whole_power:
        out[x < LN_FLT_MIN] = 0  # 2**n is not 0 there


def by_blocks(
    x: NDArray[np.float32], compute: Callable[[NDArray[np.float32], NDArray[np.float32]], None]
) -> NDArray[np.float32]:
    """`compute(part, out)` over f32 `x` a BLOCK at a time, into a new array of its shape."""
    flat = np.ascontiguousarray(x, F32).reshape(-1)
    result = np.empty_like(flat)
    into_blocks(flat, result, compute)
    return result.reshape(np.shape(x))


def into_blocks(
    flat: NDArray[np.float32],
    out: NDArray[np.float32],
    compute: Callable[[NDArray[np.float32], NDArray[np.float32]], None],
) -> None:
    """`compute(part, out part)` over flat f32 `flat` a BLOCK at a time."""
    with np.errstate(all="ignore"):
        for start in range(0, flat.size, BLOCK):
            compute(flat[start : start + BLOCK], out[start : start + BLOCK])


def vector_exp(x: NDArray[np.float32], whole_power: bool = False) -> NDArray[np.float32]:
    """The CPU's vectorized exp of f32 values (NaN stays NaN); `whole_power`: the attention
    snippet's scaling by 2**n (see `_exp_clipped`)."""
    return by_blocks(x, partial(_exp_block, whole_power=whole_power))


def _logistic_block(x: NDArray[np.float32], out: NDArray[np.float32]) -> None:
    """Reads `x` before it writes `out`, which may be `x`."""
    negative, sign = _workspace.f32[0, : x.size], _workspace.f32[2, : x.size].view(np.int32)
    np.bitwise_or(x.view(np.uint32), SIGN_BIT, out=negative.view(np.uint32))  # -|x|
    np.right_shift(x.view(np.int32), 31, out=sign)
    np.maximum(negative, _workspace.ln_flt_min[: x.size], out=negative)  # no upper clip
    _exp_clipped(negative, out, whole_power=False)
    total = np.add(out, F32(1), out=_workspace.f32[1, : x.size])
    out /= total
    # 1 minus it where the sign bit is clear, chosen by bits (a masked subtract is slow)
    flipped = np.subtract(F32(1), out, out=total).view(np.int32)
    bits = out.view(np.int32)
    bits ^= flipped
    bits &= sign
    bits ^= flipped


def logistic(x: NDArray[np.float32]) -> NDArray[np.float32]:
    """The CPU's Sigmoid of f32 values: NaN gives NaN, ±inf 1 and 0, ±0 0.5."""
    return by_blocks(x, _logistic_block)


def swish_into(
    flat: NDArray[np.float32], beta: NDArray[np.float32] | None, out: NDArray[np.float32]
) -> None:
    """x * logistic(beta * x) (beta None: x) of flat contiguous f32 `flat` into `out` of its
    size, which may be `flat`."""

    def block(part: NDArray[np.float32], out_part: NDArray[np.float32]) -> None:
        gate = _workspace.f32[3, : part.size]
        if beta is None:
            _logistic_block(part, gate)
        else:
            _logistic_block(np.multiply(part, beta, out=gate), gate)
        np.multiply(part, gate, out=out_part)

    into_blocks(flat, out, block)
