"""AdaptiveMaxPool on NumPy arrays: each bin's maximum and its offset within the (n, c) plane.

Selection is the CPU plugin's (measured, docs/ops/AdaptiveMaxPool.md#numerics-and-tolerances): a bin
starts from its first
element and takes a later one only when it is strictly greater, in row-major order. So ties
keep the first, NaN is never taken, but a bin whose first element is NaN stays NaN. With its
indices unused, the CPU runs a global AdaptiveMaxPool (output 1 on every axis) as a
ReduceMax over the spatial axes, whose scan differs on NaN and -inf: so does irpool.
Integers of 32 or 64 bits are wrapped to int32 and compared in f32, as on CPU.

The maximum is separable: reducing the last axis bin by bin (keeping each row's first
argmax) and then each earlier axis (keeping the first row holding the maximum) finds the
row-major first maximum of every box, with one loop step per output index of each axis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.maxima import (
    BF16_LOWEST,
    clamped_integers_from_f32,
    compared_in_f32,
    flushed_subnormals,
)
from irpool.execute.kernels.reduce import reduce_max
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.adaptive_max_pool import AdaptiveMaxPool8
from irpool.ops.pooling_geometry import adaptive_box


@kernel_for(AdaptiveMaxPool8)
def run_adaptive_max_pool(
    op: AdaptiveMaxPool8, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data, size = inputs
    output_size = op.run_output_size(size)
    if not outputs[1].used and all(out == 1 for out in output_size) and data.size:
        spatial = tuple(range(2, data.ndim))
        start = float(BF16_LOWEST) if outputs[0].type.rounds_when_held else None
        return [reduce_max(data, spatial, keep_dims=True, start=start), None]
    index_dtype = outputs[1].dtype
    assert index_dtype is not None  # index_element_type is i32 or i64
    if data.dtype.kind in "iu" and data.dtype.itemsize >= 4:
        # Measured: the CPU wraps these to int32 and compares them in f32 (ties after
        # rounding keep the first), then clamps to the largest f32 below 2**31 and converts
        # back (2147483647 -> 2147483520), as MaxPool; 8- and 16-bit integers are exact.
        values, indices = adaptive_max_pool(compared_in_f32(data), output_size, index_dtype)
        return [clamped_integers_from_f32(values, data.dtype), indices]
    values, indices = adaptive_max_pool(data, output_size, index_dtype)
    if outputs[0].type.rounds_when_held:
        values = flushed_subnormals(values)
    return [values, indices]


def adaptive_bins(size: int, out: int) -> list[tuple[int, int]]:
    """Bin i's [start, stop) on an axis, as for AdaptiveAvgPool."""
    return [(box.start, box.stop) for box in (adaptive_box(i, size, out) for i in range(out))]


def adaptive_max_pool(
    x: NDArray[Any], output_size: tuple[int, ...], index_dtype: np.dtype[Any]
) -> tuple[NDArray[Any], NDArray[Any]]:
    """Values [N, C, *output_size] in x's dtype and plane offsets in `index_dtype`."""
    spatial = x.shape[2:]
    shape = (*x.shape[:2], *output_size)
    if 0 in shape or 0 in spatial:  # no output, or only empty bins (which OpenVINO rejects)
        return np.zeros(shape, x.dtype), np.zeros(shape, index_dtype)
    bins = [adaptive_bins(size, out) for size, out in zip(spatial, output_size, strict=True)]
    has_nan = x.dtype.kind == "f" and bool(np.isnan(x).any())
    values = np.where(np.isnan(x), -np.inf, x) if has_nan else x
    offsets: NDArray[np.int64] | None = None
    stride = 1  # elements of the plane between two consecutive positions of this axis
    for axis in range(len(spatial) - 1, -1, -1):
        values, offsets = _reduce_axis(values, offsets, 2 + axis, bins[axis], stride)
        stride *= spatial[axis]
    assert offsets is not None
    if has_nan:
        # Each bin's first element, as offsets in the plane: [*output_size].
        starts = np.ravel_multi_index(np.ix_(*([start for start, _ in b] for b in bins)), spatial)
        first = x.reshape(*x.shape[:2], -1)[:, :, starts]
        stays = np.isnan(first)
        values = np.where(stays, first, values)
        offsets = np.where(stays, np.broadcast_to(starts, offsets.shape), offsets)
    return values.astype(x.dtype, copy=False), offsets.astype(index_dtype, copy=False)


def _reduce_axis(
    values: NDArray[Any],
    offsets: NDArray[np.int64] | None,
    axis: int,
    bins: list[tuple[int, int]],
    stride: int,
) -> tuple[NDArray[Any], NDArray[np.int64]]:
    """One axis reduced to its bins; `offsets` are the plane offsets of the later axes."""
    shape = list(values.shape)
    shape[axis] = len(bins)
    out_values = np.empty(shape, values.dtype)
    out_offsets = np.empty(shape, np.int64)
    for index, (start, stop) in enumerate(bins):
        segment = values.take(range(start, stop), axis=axis)
        best = np.expand_dims(np.argmax(segment, axis=axis), axis)  # the first maximum
        target = (slice(None),) * axis + (slice(index, index + 1),)
        out_values[target] = np.take_along_axis(segment, best, axis)
        found = (best + start) * stride
        if offsets is not None:
            found += np.take_along_axis(offsets.take(range(start, stop), axis=axis), best, axis)
        out_offsets[target] = found
    return out_values, out_offsets
