"""ReduceMean, ReduceMax, ReduceMin and ReduceProd on NumPy arrays, as OpenVINO's CPU plugin
computes them (the sums and logical reductions: `reduce_sums`).

Measured (docs/ops/ReduceMax.md): floats are reduced in f32 (a maximum or minimum of f64 on
its f32 value, inf saturated to FLT_MAX) and f16 rounds once; an integer mean is the exact sum
divided and truncated toward zero; a maximum starts from the lowest f32 value, so -inf and an
empty axis give -3.4028235e38; and the CPU's scan `acc = acc if acc > v else v` lets a NaN
replace the running maximum and the next element replace the NaN. Runs of 16 or more
contiguous reduced elements are scanned in 16 SIMD lanes, which moves where a NaN wins
(`reduce_order`).
Integers of 16 bits or more are wrapped to int32 and compared in f32 (`_integer_extremum`).
A minimum is the mirror image (docs/ops/ReduceMin.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.maxima import BF16_LOWEST, clamped_integers_from_f32, compared_in_f32
from irpool.cpu.numerics import f32_operand, moved_as_held, stored_from_f32
from irpool.execute.engine.costs import CHUNK_BYTES, PAIRWISE_MIN
from irpool.execute.engine.direct import Direct
from irpool.execute.engine.strategy import compute_dtype, run_blocks
from irpool.execute.engine.whole import Whole
from irpool.execute.errors import ExecutionError
from irpool.execute.kernels.reduce_order import (
    AVX2_LANES,
    MAXIMUM,
    MINIMUM,
    SEQUENTIAL,
    Extremum,
    lane_fold,
    lanes,
    reduced_rows,
    scan_run,
    shaped,
)
from irpool.execute.kernels.reduce_sums import reduce_logical, reduce_sum
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.reduce import Reduce

# The CPU's running maximum starts here for every float type (f16 rounds it to -inf).
FLOAT_LOWEST = float(np.finfo(np.float32).min)
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
    elif op.reduction in ("sum", "l1", "l2"):
        result = reduce_sum(data, normalized, keep_dims, op.reduction)
    elif op.reduction in ("and", "or"):
        result = reduce_logical(data, normalized, keep_dims, op.reduction)
    else:
        bf16 = outputs[0].type.rounds_when_held
        is_max = op.reduction == "max"
        start = (1 if is_max else -1) * float(BF16_LOWEST) if bf16 else None
        extremum = MAXIMUM if is_max else MINIMUM
        result = reduce_max(data, normalized, keep_dims, in_f32, start, extremum)
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
    rows, count = reduced_rows(x, axes)
    if in_f32:
        return shaped(_integer_mean_in_f32(rows, count), x.shape, axes, keep_dims)
    if x.dtype.kind != "f":
        sums = np.add.reduce(rows, axis=1, dtype=np.int64)
        if x.dtype == np.uint8:  # measured: the CPU's running u8 sum saturates at 255
            sums = np.minimum(sums, 255)
        # Truncated toward zero; NumPy's // floors, so divide the magnitude.
        means = np.sign(sums) * (np.abs(sums) // max(count, 1))
        return shaped(means.astype(x.dtype), x.shape, axes, keep_dims)
    if x.dtype == np.float32 and count >= PAIRWISE_MIN and rows.size * 4 <= CHUNK_BYTES:
        means = _small_f32_mean(rows, count)
        if means is not None:
            return shaped(means, x.shape, axes, keep_dims)
    # The global-pooling strategy: one window over each row, f16 rounded once at the end;
    # rows whose sums hold inf or NaN or overflow are summed again one by one, as on CPU.
    work = compute_dtype(x.dtype)
    strategy = Whole(count, max(count, 1), work)
    direct = Direct([np.arange(count)[np.newaxis]], np.array([max(count, 1)], float), work)
    means = run_blocks(rows.reshape(1, *rows.shape), (1,), strategy, direct)
    return shaped(means, x.shape, axes, keep_dims)


def _small_f32_mean(rows: NDArray[np.float32], count: int) -> NDArray[np.float32] | None:
    """The f32 means of rows of at least `PAIRWISE_MIN` elements that fit one block, as the
    global-pooling strategy computes them there (one pairwise sum a row, divided), without
    its driver; None when a mean is not finite (or its square overflows): the driver's
    repairs decide those."""
    with np.errstate(over="ignore", invalid="ignore"):
        means = np.add.reduce(rows, axis=1)
        np.divide(means, float(count), out=means)
        finite = math.isfinite(np.vdot(means, means))
    return means if finite else None


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
    extremum: Extremum = MAXIMUM,
) -> NDArray[Any]:
    """Maximum (or with `extremum` MINIMUM, minimum) over `axes` (normalized, unique). With
    no axes, each element is scanned alone (measured: the CPU still turns -inf into the start
    value). `in_f32`: integers as `integers_in_f32` says; `start`: floats start there instead
    (bf16 held as f32: bf16's lowest value, measured)."""
    if not axes:
        return reduce_max(x[..., np.newaxis], (x.ndim,), False, in_f32, start, extremum)
    rows, _ = reduced_rows(moved_as_held(x), axes)  # f64 as the f32 the CPU holds
    if x.dtype.kind != "f":
        found = _integer_extremum(rows, in_f32, extremum)
        return shaped(found, x.shape, axes, keep_dims)
    sign = 1 if extremum is MAXIMUM else -1  # the mirror image for a minimum
    worst = x.dtype.type(sign * FLOAT_LOWEST if x.dtype != np.float16 else -sign * np.inf)
    if start is not None:
        worst = x.dtype.type(start)
    with np.errstate(over="ignore"):  # f16 cannot hold the f32 lowest value: -inf, as on CPU
        found = extremum.reduce(rows, axis=1, initial=worst)
    hit = np.flatnonzero(np.isnan(found))  # NaN propagates through np.max: rows holding one
    if hit.size:
        run = scan_run(x.shape, axes)  # None: not reproduced, the sequential scan comes closest
        rows_hit = rows[hit]
        if run:
            found[hit] = lane_fold(rows_hit, run, worst, extremum.pick, extremum.scan)
        else:
            found[hit] = extremum.scan(rows_hit, worst)
    return shaped(found, x.shape, axes, keep_dims)


def reduce_product(x: NDArray[Any], axes: tuple[int, ...], keep_dims: bool) -> NDArray[Any]:
    """Product over `axes` (normalized, unique) as the CPU computes it (measured,
    docs/ops/ReduceProd.md): integers exactly, wrapped to int32, then wrapped to the type (8
    bits: `_eight_bit_product`); floats in f32 (f64 saturated to ±FLT_MAX, stored as other
    f32 results), one element after another; no axes copies the data as the CPU holds its
    type."""
    if not axes:
        return moved_as_held(x.copy())
    rows, _ = reduced_rows(x, axes)
    if x.dtype.kind in "iu" and x.dtype.itemsize == 1:
        return shaped(_eight_bit_product(rows), x.shape, axes, keep_dims)
    if x.dtype.kind in "iu":  # exact modulo 2**32
        with np.errstate(over="ignore"):
            wrapped = np.multiply.reduce(rows.astype(np.int64), axis=1).astype(np.int32)
        return shaped(wrapped.astype(x.dtype), x.shape, axes, keep_dims)
    values = f32_operand(rows)
    # With at most AVX2 floats are multiplied in the lanes of `scan_run` (measured); on AVX-512
    # one element after another, as measured there.
    run = scan_run(x.shape, axes) if lanes() == AVX2_LANES else SEQUENTIAL
    with np.errstate(over="ignore", invalid="ignore"):
        if run:
            products = lane_fold(values, run, np.float32(1), np.multiply, _sequential_product)
        else:
            products = _sequential_product(values, np.float32(1))
        stored = stored_from_f32(products, x.dtype)
    return shaped(stored, x.shape, axes, keep_dims)


def _sequential_product(rows: NDArray[np.float32], start: Any) -> NDArray[np.float32]:
    """Each row's product from `start`, one element after another in f32."""
    products = np.full(len(rows), start, np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        for column in rows.T:
            products *= column
    return products


def _integer_extremum(
    rows: NDArray[Any], in_f32: bool = False, extremum: Extremum = MAXIMUM
) -> NDArray[Any]:
    """Each row's maximum (minimum) as the CPU computes it (measured,
    docs/ops/ReduceMax.md#in-irpool, docs/ops/ReduceMin.md#integers): 8-bit integers exactly
    from the type's lowest (highest) value; wider ones wrapped to int32, compared in f32
    (rounded to nearest) and converted back, where the f32 value 2**31 becomes INT32_MIN
    (2147483647 -> -2147483648), or with `in_f32` 2147483520 (saturated), then wrapped to
    the type. An empty row gives the start, INT32_MIN (INT32_MAX) wrapped to the type (i16:
    0 and -1, u32: 2**31 and 2**31 - 1)."""
    is_max = extremum is MAXIMUM
    if rows.dtype.itemsize == 1:  # boolean (AdaptiveMaxPool's data may be) as u8
        info = np.iinfo(rows.dtype) if rows.dtype.kind in "iu" else None
        start = (info.min if is_max else info.max) if info else not is_max
        exact: NDArray[Any] = extremum.reduce(rows, axis=1, initial=start)
        return exact
    wrapped = rows.astype(np.int32, copy=False)
    int32 = np.iinfo(np.int32)
    found = extremum.reduce(wrapped, axis=1, initial=int32.min if is_max else int32.max)
    if in_f32:
        return clamped_integers_from_f32(compared_in_f32(found), rows.dtype)
    # Rounding to nearest is monotonic: the rounded extremum is the extremum of the rounded.
    rounded = found.astype(np.float32).astype(np.float64)
    as_int32 = np.where(rounded < 2.0**31, rounded, INT32_MIN).astype(np.int32)
    if not is_max and rows.shape[1] == 0:
        as_int32[:] = int32.max  # measured: the start value is stored as it is
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
