"""Clamp on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it (measured,
docs/ops/Clamp.md).

Floats are computed in f32 (f64 saturated to its range, as for the activations) with the bounds
rounded to f32, as `t = x > min ? x : min; t < max ? t : max` (x86 maxps and minps): NaN gives
min, -0 with min -0 and max +0 gives +0. Integers are wrapped to int32 (64-bit types hold
int32 values on the CPU) and clamped as integers, so 16777217 stays exact; the bounds are
rounded to f32, then up (min) and down (max), 8-bit types truncate both toward zero instead (u8
keeps 0 under min 0.5) but where the Clamp is fused into the MatMul or Convolution it reads
(i8 min 1.7 is 2 there), and taken to int32: a max beyond int32 saturates, a min below it too,
a finite min above it wraps modulo 2**32 (3e9 clamps to -1294967296), min +inf clamps nothing.
Results are stored back as the activations store theirs: 8-bit types saturate, wider ones wrap.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import F32, f32_operand, f32_result_buffer, stored_from_f32
from irpool.execute.kernels.activations import bound_bits, clamped, clamped_bits
from irpool.execute.registry import OutputSpec, kernel_for, prepared
from irpool.ops.clamp import Clamp1

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


@kernel_for(Clamp1)
def run_clamp(
    op: Clamp1, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data = inputs[0]
    bits = prepared(op, "bound bits", lambda: _bound_bits(op))
    if bits and data.dtype == F32 and data.size:
        # `clamped`'s int32 path with its checks of the bounds made once per op, outside
        # np.errstate (integers raise no float errors): 13-28 µs a small Clamp, not 39-54.
        out = data if outputs[0].overwrites_input else np.empty_like(data)
        if clamped_bits(data, *bits, out):
            return [out]
    low, high = _bounds(op)
    if data.dtype.kind in "iu":
        return [_integers(data, low, high, truncates=data.itemsize == 1 and not op.after_product)]
    with np.errstate(all="ignore"):  # inf and NaN are values here
        x = f32_operand(data)
        if _signless(low) and _signless(high):
            out = f32_result_buffer(x, data, outputs[0].overwrites_input)
            return [stored_from_f32(clamped(x, low, high, out), data.dtype)]
        raised = np.where(x > low, x, low)
        return [stored_from_f32(np.where(raised < high, raised, high), data.dtype)]


def _bounds(op: Clamp1) -> tuple[np.float32, np.float32]:
    with np.errstate(over="ignore"):  # a bound beyond f32 is ±inf there, as on CPU
        return F32(op.low), F32(op.high)


def _bound_bits(op: Clamp1) -> tuple[np.int32, np.int32] | tuple[()]:
    """The f32 bounds' bits where an f32 Clamp may clip its bits as int32 (bounds `clamped`
    takes: neither NaN nor -0), else nothing (kept by `prepared`, which keeps no None)."""
    low, high = _bounds(op)
    bits = bound_bits(low, high) if _signless(low) and _signless(high) else None
    return bits or ()


def _signless(bound: np.float32) -> bool:
    """Whether fmax/fmin take this bound as the CPU's comparisons do: not NaN (no x compares
    with it, so every x becomes the bound) and not -0 (equal to +0, it must win the tie)."""
    return not np.isnan(bound) and not (bound == 0 and np.signbit(bound))


def _integers(
    data: NDArray[Any], low: np.float32, high: np.float32, *, truncates: bool
) -> NDArray[Any]:
    low_int = _low_bound(float(np.trunc(low) if truncates else np.ceil(low)))
    rounded_high = float(np.trunc(high) if truncates else np.floor(high))
    high_int = int(min(max(rounded_high, INT32_MIN), INT32_MAX))
    clamped = np.minimum(np.maximum(data.astype(np.int32), np.int32(low_int)), np.int32(high_int))
    if data.dtype.itemsize == 1:
        info = np.iinfo(data.dtype)
        return np.clip(clamped, info.min, info.max).astype(data.dtype)
    return clamped.astype(data.dtype)


def _low_bound(low: float) -> int:
    """The int32 the CPU clamps from, for a min already rounded to an integer (measured)."""
    if low <= INT32_MIN or low == np.inf:
        return INT32_MIN
    wrapped = int(low) % 2**32
    return wrapped - 2**32 if wrapped > INT32_MAX else wrapped
