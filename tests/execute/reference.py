"""Slow, obviously-correct loops that the kernels are checked against."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.ops.pooling_geometry import Window


def _to_dtype(means: NDArray[np.float64], dtype: np.dtype[Any]) -> NDArray[Any]:
    if dtype.kind == "f":
        return means.astype(dtype)
    return np.rint(means).astype(dtype)


def avg_pool(
    x: NDArray[Any], windows: Sequence[Window], count_padding: bool, accumulate: Any = np.float64
) -> NDArray[Any]:
    """AvgPool by visiting every tap of every window in row-major order, summing in
    `accumulate` (f32: the CPU plugin's running sums, overflow included)."""
    data = x.astype(accumulate)
    out = np.zeros((*x.shape[:2], *(w.out for w in windows)))
    full = int(np.prod([w.kernel for w in windows]))
    for index in itertools.product(*(range(w.out) for w in windows)):
        total = np.zeros(x.shape[:2], accumulate)
        real = 0
        for taps in itertools.product(*(range(w.kernel) for w in windows)):
            position = [
                o * w.stride - w.pad_begin + j * w.dilation
                for o, j, w in zip(index, taps, windows, strict=True)
            ]
            if all(0 <= p < w.size for p, w in zip(position, windows, strict=True)):
                total += data[(..., *position)]
                real += 1
        divisor = full if count_padding else real
        out[(..., *index)] = total / np.array(divisor, accumulate) if divisor else 0.0
    return _to_dtype(out, np.dtype(x.dtype))


def adaptive_avg_pool(
    x: NDArray[Any], output_size: Sequence[int], accumulate: Any = np.float64
) -> NDArray[Any]:
    """AdaptiveAvgPool by a running sum over each box in row-major order, in `accumulate`."""
    data = x.astype(accumulate)
    spatial = x.shape[2:]
    out = np.zeros((*x.shape[:2], *output_size))
    for index in itertools.product(*(range(o) for o in output_size)):
        box = tuple(
            slice(i * size // o, -(-(i + 1) * size // o))
            for i, size, o in zip(index, spatial, output_size, strict=True)
        )
        values = data[(..., *box)].reshape(*x.shape[:2], -1)
        total = np.cumsum(values, axis=-1, dtype=accumulate)[..., -1]
        out[(..., *index)] = total / np.array(values.shape[-1], accumulate)
    return _to_dtype(out, np.dtype(x.dtype))
