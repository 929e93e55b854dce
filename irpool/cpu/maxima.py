"""Maxima as the CPU plugin's max kernels give them (MaxPool, AdaptiveMaxPool, ReduceMax;
docs/cpu.md, "Integer maxima through f32"): integers wrapped to int32 and rounded to f32, the
maxima then clamped to the largest f32 below 2**31 and converted back (8- and 16-bit integers
are exact in f32); bf16 windows starting at bf16's lowest value, subnormals flushed on an
AVX512_BF16 host (irpool.cpu.isa.bf16_isa). Which
MaxPool kernel the CPU runs decides which of these apply (`max_pool_general_kernel`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.isa import AVX512_CORE, AVX512_CORE_BF16, bf16_isa, cpu_isa
from irpool.cpu.numerics import F32_BELOW_2_31
from irpool.ops.pooling_geometry import Window

BF16_LOWEST = np.float32(-3.3895313892515355e38)  # bits 0xff7f0000
# Fewer one-channel outputs (batch x spatial) make oneDNN's AVX2 pick its f32 reference pooling.
AVX2_JIT_OUTPUTS = 4


def compared_in_f32(values: NDArray[Any]) -> NDArray[np.float32]:
    """Integers as oneDNN's max kernels compare them: wrapped to int32, rounded to f32."""
    return values.astype(np.int32).astype(np.float32)


def clamped_integers_from_f32(values: NDArray[np.float32], dtype: np.dtype[Any]) -> NDArray[Any]:
    """f32 results of the max and pooling kernels back as integers of `dtype` (maxima, an
    i32 ReduceMean): clamped to the largest f32 below 2**31, converted to int32 and wrapped
    to `dtype`."""
    return np.minimum(values.astype(np.float64), F32_BELOW_2_31).astype(np.int64).astype(dtype)


def flushed_subnormals(values: NDArray[Any]) -> NDArray[Any]:
    """bf16 values (held as f32) as the CPU's bf16 MaxPool and AdaptiveMaxPool give them: with
    subnormals flushed to zeros of their sign on an AVX512_BF16 host, which stores them with
    VCVTNEPS2BF16, kept without it (its ReduceMax keeps them)."""
    if bf16_isa() != AVX512_CORE_BF16:
        return values
    subnormal = np.abs(values) < np.finfo(np.float32).tiny
    if subnormal.any():
        values = np.where(subnormal, np.copysign(np.float32(0), values), values)
    return values


def max_pool_values_in_f32(shape: tuple[int, ...], windows: Sequence[Window]) -> bool:
    """Whether the CPU's MaxPool kernel for integer values without indices computes in f32:
    with more than one channel, or on the windows of `max_pool_general_kernel`, or with at
    most AVX2 when the batch times the output's spatial size is below `AVX2_JIT_OUTPUTS`;
    one channel otherwise runs an exact integer kernel."""
    if (len(shape) > 1 and shape[1] > 1) or max_pool_general_kernel(windows):
        return True
    outputs = shape[0] * math.prod(w.out for w in windows)
    return cpu_isa() != AVX512_CORE and outputs < AVX2_JIT_OUTPUTS


def max_pool_general_kernel(windows: Sequence[Window]) -> bool:
    """Whether the CPU's values-only kernel is its general one whatever the channels: with a
    dilation, or when some window holds no real element."""
    if any(w.dilation > 1 for w in windows):
        return True
    return any(not w.real_taps(o) for w in windows for o in w.borders)


def bf16_window_start(windows: Sequence[Window]) -> float:
    """Where a bf16 MaxPool window starts: the general kernel starts at bf16's lowest value,
    the other at -inf, so there an all -inf or all-NaN window gives -inf."""
    return float(BF16_LOWEST) if max_pool_general_kernel(windows) else -np.inf


def integer_maxima_through_f32(values: NDArray[Any]) -> NDArray[Any]:
    """Integer maxima as the CPU's oneDNN kernel gives them in f32 (`max_pool_values_in_f32`):
    its int32 compare type in f32, rounded to nearest and clamped to the largest f32 below
    2**31 (2147483647 -> 2147483520), then wrapped back to the type. Measured on i32, i64,
    u32 and u64 (docs/ops/MaxPool.md); 8- and 16-bit integers are exact in f32."""
    if values.dtype.itemsize < 4:
        return values
    return clamped_integers_from_f32(compared_in_f32(values), values.dtype)
