"""Maxima as the CPU plugin's max kernels give them (MaxPool, AdaptiveMaxPool, ReduceMax;
docs/cpu.md, "Maxima"): integers wrapped to int32 and rounded to f32, the maxima then clamped
to the largest f32 below 2**31 and converted back (8- and 16-bit integers are exact in f32);
bf16 windows starting at bf16's lowest value, subnormals flushed."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import F32_BELOW_2_31

BF16_LOWEST = np.float32(-3.3895313892515355e38)  # bits 0xff7f0000


def compared_in_f32(values: NDArray[Any]) -> NDArray[np.float32]:
    """Integers as oneDNN's max kernels compare them: wrapped to int32, rounded to f32."""
    return values.astype(np.int32).astype(np.float32)


def clamped_integers_from_f32(values: NDArray[np.float32], dtype: np.dtype[Any]) -> NDArray[Any]:
    """f32 results of the max and pooling kernels back as integers of `dtype` (maxima, an
    i32 ReduceMean): clamped to the largest f32 below 2**31, converted to int32 and wrapped
    to `dtype`."""
    return np.minimum(values.astype(np.float64), F32_BELOW_2_31).astype(np.int64).astype(dtype)


def flushed_subnormals(values: NDArray[Any]) -> NDArray[Any]:
    """bf16 values (held as f32) with subnormals flushed to zeros of their sign, as the CPU's
    bf16 MaxPool and AdaptiveMaxPool give them (its ReduceMax keeps them)."""
    subnormal = np.abs(values) < np.finfo(np.float32).tiny
    if subnormal.any():
        values = np.where(subnormal, np.copysign(np.float32(0), values), values)
    return values
