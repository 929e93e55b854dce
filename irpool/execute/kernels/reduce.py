"""ReduceMean and ReduceMax on NumPy arrays, as OpenVINO's CPU plugin computes them.

Measured (docs/ops/ReduceMax.md): floats are reduced in f32
(f64 in f64) and f16 rounds once; an integer mean is the exact sum divided and truncated
toward zero; a maximum starts from the lowest f32 value, so -inf and an empty axis give
-3.4028235e38; and the CPU's scan `acc = acc if acc > v else v` lets a NaN replace the
running maximum and the next element replace the NaN. Runs of 16 or more contiguous reduced
elements are scanned in 16 SIMD lanes, which moves where a NaN wins (`_lane_scan`).
Integers of 16 bits or more are wrapped to int32 and compared in f32 (`_integer_max`).
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.maxima import BF16_LOWEST, clamped_integers_from_f32, compared_in_f32
from irpool.cpu.numerics import f32_operand, moved_as_held, stored_from_f32
from irpool.execute.engine.direct import Direct
from irpool.execute.engine.strategy import compute_dtype, run_blocks
from irpool.execute.engine.whole import Whole
from irpool.execute.errors import ExecutionError
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.reduce import Reduce

# The CPU's running maximum starts here for every float type (f16 rounds it to -inf).
FLOAT_LOWEST = float(np.finfo(np.float32).min)
# The CPU's f32 vector width on AVX-512: its ReduceMax kernel scans runs in this many lanes.
LANES = 16
SEQUENTIAL = 0
INT32_MIN = -(2.0**31)


@kernel_for(Reduce)
def run_reduce(
    op: Reduce, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data, axes = inputs
    normalized: tuple[int, ...]
    if data.ndim == 0 and np.size(axes):  # a scalar reduces as its single element
        data, normalized, keep_dims = data.reshape(1), (0,), False
    else:
        normalized, keep_dims = op.normalized_axes(axes, data.ndim), op.keep_dims
    in_f32 = data.dtype.kind != "f" and integers_in_f32(data.ndim, normalized)
    if op.reduction == "mean":
        result = reduce_mean(data, normalized, keep_dims, in_f32)
    elif op.reduction == "product":
        result = reduce_product(data, normalized, keep_dims)
    else:
        bf16 = outputs[0].type.rounds_when_held
        start = float(BF16_LOWEST) if bf16 else None
        result = reduce_max(data, normalized, keep_dims, in_f32, start)
    return [result.reshape(()) if np.ndim(inputs[0]) == 0 else result]


def integers_in_f32(rank: int, axes: tuple[int, ...]) -> bool:
    """Whether the CPU reduces integers in f32 and converts the result back rounding to
    nearest and saturating (measured,
    docs/reductions.md#rank-6-and-more-over-axes-that-are-not-consecutive): at rank 6 or more, over
    axes
    that are not consecutive numbers (dims of 1 between them count)."""
    return rank >= 6 and bool(axes) and max(axes) - min(axes) + 1 != len(axes)


def reduce_mean(
    x: NDArray[Any], axes: tuple[int, ...], keep_dims: bool, in_f32: bool = False
) -> NDArray[Any]:
    """Mean over `axes` (normalized, unique); no axes is the identity. `in_f32`: integers as
    `integers_in_f32` says."""
    if not axes:
        return x.copy()
    rows, count = _rows(x, axes)
    if in_f32:
        return _shaped(_integer_mean_in_f32(rows, count), x.shape, axes, keep_dims)
    if x.dtype.kind != "f":
        sums = np.add.reduce(rows, axis=1, dtype=np.int64)
        if x.dtype == np.uint8:  # measured: the CPU's running u8 sum saturates at 255
            sums = np.minimum(sums, 255)
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


# Below these magnitudes (the product of a row's nonzero elements) every path of the CPU's
# 8-bit product gives the exact product saturated to the type (measured, docs/ops/ReduceProd.md).
_EIGHT_BIT_EXACT = {np.dtype(np.uint8): 2**15, np.dtype(np.int8): 2**7}


def _eight_bit_product(rows: NDArray[Any]) -> NDArray[Any]:
    """Each row's product of 8-bit integers where the CPU's kernels agree: the exact product
    saturated (u8 at 255). Beyond, its result depends on the kernel the shape selects (a u8
    product of 32768 or more stored as 0 or 255; an i8 product held saturated after each
    step, or only at the end): ExecutionError."""
    magnitudes = np.where(rows == 0, 1.0, np.abs(rows.astype(np.float64)))
    with np.errstate(over="ignore"):
        largest = float(np.max(np.multiply.reduce(magnitudes, axis=1), initial=1.0))
    if largest >= _EIGHT_BIT_EXACT[rows.dtype]:
        raise ExecutionError(
            f"a ReduceProd of {rows.dtype} data whose product reaches {largest:.0f}: the CPU "
            "plugin's result then depends on the kernel the shape selects "
            "(docs/ops/ReduceProd.md); irpool runs 8-bit products below "
            f"{_EIGHT_BIT_EXACT[rows.dtype]} only"
        )
    info = np.iinfo(rows.dtype)
    exact = np.multiply.reduce(rows.astype(np.int64), axis=1)
    saturated: NDArray[Any] = np.clip(exact, info.min, info.max).astype(rows.dtype)
    return saturated


def reduce_max(
    x: NDArray[Any],
    axes: tuple[int, ...],
    keep_dims: bool,
    in_f32: bool = False,
    start: float | None = None,
) -> NDArray[Any]:
    """Maximum over `axes` (normalized, unique). With no axes, each element is scanned
    alone (measured: the CPU still turns -inf into the start value). `in_f32`: integers as
    `integers_in_f32` says; `start`: floats start there instead (bf16 held as f32: bf16's
    lowest value, measured)."""
    if not axes:
        return reduce_max(x[..., np.newaxis], (x.ndim,), False, in_f32, start)
    rows, _ = _rows(x, axes)
    if x.dtype.kind != "f":
        return _shaped(_integer_max(rows, in_f32), x.shape, axes, keep_dims)
    lowest = x.dtype.type(FLOAT_LOWEST) if x.dtype != np.float16 else x.dtype.type(-np.inf)
    if start is not None:
        lowest = x.dtype.type(start)
    with np.errstate(over="ignore"):  # f16 cannot hold the f32 lowest value: -inf, as on CPU
        maxima = np.max(rows, axis=1, initial=lowest)
    hit = np.flatnonzero(np.isnan(maxima))  # NaN propagates through np.max: rows holding one
    if hit.size:
        run = scan_run(x.shape, axes)  # None: not reproduced, the sequential scan comes closest
        rows_hit = rows[hit]
        maxima[hit] = _lane_scan(rows_hit, run, lowest) if run else _scan(rows_hit, lowest)
    return _shaped(maxima, x.shape, axes, keep_dims)


def reduce_product(x: NDArray[Any], axes: tuple[int, ...], keep_dims: bool) -> NDArray[Any]:
    """Product over `axes` (normalized, unique) as the CPU computes it (measured,
    docs/ops/ReduceProd.md): integers exactly, wrapped to int32, then wrapped to the type (8
    bits: `_eight_bit_product`); floats in f32 (f64 saturated to ±FLT_MAX, stored as other
    f32 results), one element after another; no axes copies the data as the CPU holds its
    type."""
    if not axes:
        return moved_as_held(x.copy())
    rows, _ = _rows(x, axes)
    if x.dtype.kind in "iu" and x.dtype.itemsize == 1:
        return _shaped(_eight_bit_product(rows), x.shape, axes, keep_dims)
    if x.dtype.kind in "iu":  # exact modulo 2**32
        with np.errstate(over="ignore"):
            wrapped = np.multiply.reduce(rows.astype(np.int64), axis=1).astype(np.int32)
        return _shaped(wrapped.astype(x.dtype), x.shape, axes, keep_dims)
    columns = f32_operand(rows).T
    products = np.ones(rows.shape[0], np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        for column in columns:
            products *= column
        stored = stored_from_f32(products, x.dtype)
    return _shaped(stored, x.shape, axes, keep_dims)


def _integer_max(rows: NDArray[Any], in_f32: bool = False) -> NDArray[Any]:
    """Each row's maximum as the CPU computes it (measured, docs/ops/ReduceMax.md#in-irpool): 8-bit
    integers exactly from the type's lowest value; wider ones wrapped to int32, compared in
    f32 (rounded to nearest) from INT32_MIN, and converted back, where the f32 value 2**31
    becomes INT32_MIN (2147483647 -> -2147483648), or with `in_f32` 2147483520 (saturated),
    then wrapped to the type (an empty row of i16 gives 0, of u32 2**31)."""
    if rows.dtype.itemsize == 1:  # boolean (AdaptiveMaxPool's data may be) as u8
        lowest = np.iinfo(rows.dtype).min if rows.dtype.kind in "iu" else False
        exact: NDArray[Any] = np.max(rows, axis=1, initial=lowest)
        return exact
    wrapped = rows.astype(np.int32, copy=False)
    maxima = np.max(wrapped, axis=1, initial=np.iinfo(np.int32).min)
    if in_f32:
        return clamped_integers_from_f32(compared_in_f32(maxima), rows.dtype)
    # Rounding to nearest is monotonic: the rounded maximum is the maximum of the rounded.
    rounded = maxima.astype(np.float32).astype(np.float64)
    as_int32 = np.where(rounded < 2.0**31, rounded, INT32_MIN).astype(np.int32)
    return as_int32.astype(rows.dtype)


def _integer_mean_in_f32(rows: NDArray[Any], count: int) -> NDArray[Any]:
    """Integer means as the CPU's f32 path gives them (`integers_in_f32`): the sum and the
    quotient in f32, rounded half to even (1.5 -> 2, -1.5 -> -2, 2.5 -> 2), and a 32-bit
    quotient of 2**31 saturated to 2147483520; wider types wrapped to int32 first."""
    values = rows.astype(np.int32, copy=False) if rows.dtype.itemsize >= 4 else rows
    sums = np.add.reduce(values, axis=1, dtype=np.float64).astype(np.float32)
    means: NDArray[np.float32] = np.rint(sums / np.float32(max(count, 1)))
    if rows.dtype.itemsize < 4:  # a mean of the type's values lies in its range
        return means.astype(rows.dtype)
    return clamped_integers_from_f32(means, rows.dtype)


def scan_run(shape: tuple[int, ...], axes: tuple[int, ...]) -> int | None:
    """How the CPU's ReduceMax scans the reduced elements of each output, measured with NaN
    at every position (docs/ops/ReduceMax.md#the-cpus-scan): `SEQUENTIAL` (one by one), the length
    of the contiguous innermost runs it scans in SIMD lanes, or None where its kernel takes
    another order irpool does not reproduce: 16 or more reduced elements with rank 5, every
    axis reduced, rank 4 reduced over axes 1-3, or a kept innermost axis of 1."""
    rank = len(shape)
    if prod(shape[axis] for axis in axes) < LANES or rank == 1:
        return SEQUENTIAL
    if rank == 5 or len(axes) == rank or (rank == 4 and sorted(axes) == [1, 2, 3]):
        return None
    if shape[-1] == 1 and rank - 1 not in axes:
        return None
    run, axis = 1, rank - 1
    while axis in axes:
        run, axis = run * shape[axis], axis - 1
    return run if run >= LANES else SEQUENTIAL


def _greater_or_second(first: NDArray[Any], second: NDArray[Any]) -> NDArray[Any]:
    """x86 MAXPS: `first` when it is greater, else `second` (so a NaN on either side gives
    `second`)."""
    return np.where(first > second, first, second)


def _scan(rows: NDArray[Any], lowest: Any) -> NDArray[Any]:
    """The CPU's sequential scan `acc = acc if acc > v else v` from `lowest`, per row: the
    element after the last NaN restarts it (even -inf, which the start value would have
    hidden), so the result is the maximum of what follows the last NaN, or NaN when the last
    element is NaN."""
    count = rows.shape[1]
    nan = np.isnan(rows)
    has_nan = nan.any(axis=1)
    last_nan = np.where(has_nan, count - 1 - np.argmax(nan[:, ::-1], axis=1), -1)
    after = np.arange(count) > last_nan[:, None]
    start = np.where(has_nan, rows.dtype.type(-np.inf), lowest).astype(rows.dtype)
    maxima: NDArray[Any] = np.max(np.where(after, rows, start[:, None]), axis=1, initial=-np.inf)
    maxima = np.maximum(maxima, start)
    return np.where(last_nan == count - 1, rows.dtype.type(np.nan), maxima)


def _lane_scan(rows: NDArray[Any], run: int, lowest: Any) -> NDArray[Any]:
    """The CPU's ReduceMax over runs of `run` contiguous elements (rows hold whole runs, one
    after the other), measured on NaN at every position (tools/measure_family.py): each
    vector of 16 elements is folded into 16 lane maxima with MAXPS (the sequential scan per
    lane); the lanes are combined as ((l0,l4),(l8,l12)) for each of the four lane groups, then
    ((g0,g1),(g2,g3)), each pair by MAXPS with the later lanes second; the run's result r then
    updates the output as MAXPS(r, output), so a NaN r is dropped; and the run's last
    `run % 16` elements continue the sequential scan from there."""
    count = len(rows)
    vectors = run // LANES * LANES
    output = np.full(count, lowest, rows.dtype)
    for start in range(0, rows.shape[1], run):
        body = rows[:, start : start + vectors].reshape(count, -1, LANES)
        lanes = _scan(body.transpose(0, 2, 1).reshape(count * LANES, -1), lowest)
        lanes = lanes.reshape(count, LANES)
        groups = _greater_or_second(
            _greater_or_second(lanes[:, 0:4], lanes[:, 4:8]),
            _greater_or_second(lanes[:, 8:12], lanes[:, 12:16]),
        )
        result = _greater_or_second(
            _greater_or_second(groups[:, 0], groups[:, 1]),
            _greater_or_second(groups[:, 2], groups[:, 3]),
        )
        output = _greater_or_second(result, output)
        tail = rows[:, start + vectors : start + run]
        output = _scan(np.concatenate([output[:, None], tail], axis=1), lowest)
    return output


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
