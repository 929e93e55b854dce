"""ReduceSum, ReduceL1, ReduceL2 and the logical reductions on NumPy arrays, as OpenVINO's CPU
plugin computes them (measured, docs/ops/ReduceSum.md).

Every type is summed in f32 (integers wrapped to int32 first, f64 saturated to ±FLT_MAX) in
the CPU's order (`reduce_order`: one element after another, runs of a vector or more in its
SIMD lanes, 16 on AVX-512 and 8 with AVX2), so an f32 sum is bit for bit the CPU's where that
order is known. ReduceL1 sums |x|, ReduceL2 takes the square root of the sum of x*x. An
integer sum is stored in its type after each run's lanes and at the end (`held_sum`), with
AVX2 also after each shorter run (`stored_run`), and ReduceL2's integer root is truncated.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import f32_operand, stored_from_f32
from irpool.execute.kernels.reduce_order import (
    SEQUENTIAL,
    lane_fold,
    reduced_rows,
    scan_run,
    sequential_sum,
    shaped,
    stored_run,
)

# An u8 sum is stored through u16 saturation read as i16, then u8 saturation (measured):
# from here on it becomes 0.
U8_SUM_WRAPS = 32768


def reduce_sum(x: NDArray[Any], axes: tuple[int, ...], keep_dims: bool, norm: str) -> NDArray[Any]:
    """Sum over `axes` (normalized, unique) of x (`norm` "sum"), |x| ("l1") or x*x, rooted
    ("l2"). No axes folds each element alone."""
    if not axes:
        return reduce_sum(x[..., np.newaxis], (x.ndim,), False, norm)
    rows, _ = reduced_rows(x, axes)
    values = f32_operand(rows)
    with np.errstate(over="ignore"):
        if norm == "l1":
            values = np.abs(values)
        elif norm == "l2":
            values = values * values
    run = scan_run(x.shape, axes)  # None: not reproduced, the sequential order comes closest
    integers = x.dtype.kind in "iu"
    if integers and run == SEQUENTIAL:  # runs shorter than a vector, each stored held
        run = stored_run(x.shape, axes)

    def hold(sums: NDArray[Any]) -> NDArray[Any]:
        return f32_operand(held_sum(sums, x.dtype))

    if run:
        sums = lane_fold(
            values, run, np.float32(0), np.add, sequential_sum, hold if integers else None
        )
    else:
        sums = sequential_sum(values, np.float32(0))
    if norm == "l2":
        with np.errstate(invalid="ignore"):
            roots = np.sqrt(hold(sums) if integers else sums)
        return shaped(stored_from_f32(roots, x.dtype, np.trunc), x.shape, axes, keep_dims)
    return shaped(held_sum(sums, x.dtype), x.shape, axes, keep_dims)


def held_sum(sums: NDArray[np.float32], dtype: np.dtype[Any]) -> NDArray[Any]:
    """An f32 sum as the CPU stores it in `dtype` (`stored_from_f32`), but u8 as measured:
    a sum of U8_SUM_WRAPS or more gives 0."""
    if dtype != np.uint8:
        return stored_from_f32(sums, dtype)
    as_int32 = stored_from_f32(sums, np.dtype(np.int32)).astype(np.int64)
    kept = (as_int32 >= 0) & (as_int32 < U8_SUM_WRAPS)
    return np.where(kept, np.minimum(as_int32, 255), 0).astype(np.uint8)


def reduce_logical(
    x: NDArray[np.bool_], axes: tuple[int, ...], keep_dims: bool, reduction: str
) -> NDArray[np.bool_]:
    """ReduceLogicalAnd ("and") or ReduceLogicalOr ("or") over `axes` (normalized, unique):
    exact on boolean data; no axes is the identity."""
    fold = np.all if reduction == "and" else np.any
    result: NDArray[np.bool_] = np.asarray(fold(x, axis=axes, keepdims=keep_dims))
    return result
