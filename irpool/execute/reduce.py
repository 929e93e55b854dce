"""ReduceMean and ReduceMax on NumPy arrays, as OpenVINO's CPU plugin computes them.

Measured (docs/semantics.md, "ReduceMean-1 and ReduceMax-1"): floats are reduced in f32
(f64 in f64) and f16 rounds once; an integer mean is the exact sum divided and truncated
toward zero; a maximum starts from the lowest f32 value, so -inf and an empty axis give
-3.4028235e38; and the CPU's scan `acc = acc if acc > v else v` lets a NaN replace the
running maximum and the next element replace the NaN.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.direct import Direct
from irpool.execute.driver import compute_dtype, run_blocks
from irpool.execute.kernels import OutputSpec, kernel_for
from irpool.execute.whole import Whole
from irpool.ops.reduce import Reduce

# The CPU's running maximum starts here for every float type (f16 rounds it to -inf).
FLOAT_LOWEST = float(np.finfo(np.float32).min)


@kernel_for(Reduce)
def run_reduce(
    op: Reduce, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data, axes = inputs
    kernel = reduce_mean if op.reduction == "mean" else reduce_max
    if data.ndim == 0 and np.size(axes):  # a scalar reduces as its single element
        return [kernel(data.reshape(1), (0,), False).reshape(())]
    return [kernel(data, op.normalized_axes(axes, data.ndim), op.keep_dims)]


def reduce_mean(x: NDArray[Any], axes: tuple[int, ...], keep_dims: bool) -> NDArray[Any]:
    """Mean over `axes` (normalized, unique); no axes is the identity."""
    if not axes:
        return x.copy()
    rows, count = _rows(x, axes)
    if x.dtype.kind != "f":
        sums = np.add.reduce(rows, axis=1, dtype=np.int64)
        # Truncated toward zero; NumPy's // floors, so divide the magnitude.
        means = np.sign(sums) * (np.abs(sums) // max(count, 1))
        return _shaped(means.astype(x.dtype), x.shape, axes, keep_dims)
    # The global-pooling strategy: one window over each row, f16 rounded once at the end;
    # rows whose sums hold inf or NaN or overflow are summed again one by one, as on CPU.
    work = compute_dtype(x.dtype)
    strategy = Whole(count, max(count, 1), work)
    direct = Direct([np.arange(count)[np.newaxis]], np.array([max(count, 1)], float), work)
    means = run_blocks(rows.reshape(1, *rows.shape), (1,), strategy, direct)
    return _shaped(means, x.shape, axes, keep_dims)


def reduce_max(x: NDArray[Any], axes: tuple[int, ...], keep_dims: bool) -> NDArray[Any]:
    """Maximum over `axes` (normalized, unique). With no axes, each element is scanned
    alone (measured: the CPU still turns -inf into the start value)."""
    if not axes:
        return reduce_max(x[..., np.newaxis], (x.ndim,), False)
    rows, _ = _rows(x, axes)
    if x.dtype.kind != "f":
        lowest = np.iinfo(x.dtype).min if x.dtype.kind in "iu" else 0
        return _shaped(np.max(rows, axis=1, initial=lowest), x.shape, axes, keep_dims)
    lowest = x.dtype.type(FLOAT_LOWEST) if x.dtype != np.float16 else x.dtype.type(-np.inf)
    with np.errstate(over="ignore"):  # f16 cannot hold the f32 lowest value: -inf, as on CPU
        maxima = np.max(rows, axis=1, initial=lowest)
    hit = np.flatnonzero(np.isnan(maxima))  # NaN propagates through np.max: rows holding one
    if hit.size:
        maxima[hit] = _scan_with_nan(rows[hit])
    return _shaped(maxima, x.shape, axes, keep_dims)


def _scan_with_nan(rows: NDArray[Any]) -> NDArray[Any]:
    """The CPU's scan on rows holding NaN: the element after the last NaN restarts it (even
    -inf, which the start value would have hidden), so the result is the maximum of what
    follows the last NaN, or NaN when the last element is NaN. Measured exact for runs
    shorter than 16 elements; longer runs are scanned in 16 SIMD lanes whose NaN handling
    differs (docs/semantics.md)."""
    count = rows.shape[1]
    last_nan = count - 1 - np.argmax(np.isnan(rows[:, ::-1]), axis=1)
    after = np.arange(count) > last_nan[:, None]
    maxima: NDArray[Any] = np.max(np.where(after, rows, -np.inf), axis=1)
    return np.where(last_nan == count - 1, rows.dtype.type(np.nan), maxima)


def _rows(x: NDArray[Any], axes: tuple[int, ...]) -> tuple[NDArray[Any], int]:
    """x as [kept elements, reduced elements] (C-contiguous), and the reduced count."""
    kept = [axis for axis in range(x.ndim) if axis not in axes]
    reduced = sorted(axes)
    count = prod(x.shape[axis] for axis in reduced)
    ordered = x if reduced == list(range(len(kept), x.ndim)) else x.transpose(*kept, *reduced)
    rows = prod(x.shape[axis] for axis in kept)
    return np.ascontiguousarray(ordered).reshape(rows, count), count


def _shaped(
    values: NDArray[Any], shape: tuple[int, ...], axes: tuple[int, ...], keep_dims: bool
) -> NDArray[Any]:
    if keep_dims:
        target = tuple(1 if axis in axes else size for axis, size in enumerate(shape))
    else:
        target = tuple(size for axis, size in enumerate(shape) if axis not in axes)
    return values.reshape(target)
