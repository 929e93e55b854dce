"""CumSum on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it (measured,
docs/ops/CumSum.md): floats summed one element after another in f32 (f16 rounded per
element, f64 saturated to ±FLT_MAX in and out), starting from the first element (so -0 stays
-0), an exclusive sum from +0; integers wrapped in their type, 64-bit ones as int32; boolean
as a wrapped u8 sum that is true where nonzero."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import f32_operand, stored_from_f32
from irpool.execute.errors import ExecutionError
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.cumsum import CumSum3


def cumulative_sum(x: NDArray[Any], axis: int, exclusive: bool, reverse: bool) -> NDArray[Any]:
    """The running sum of x (rank >= 1) along `axis` (non-negative), as the CPU gives it."""
    if x.dtype.kind == "f":
        work: NDArray[Any] = f32_operand(x)
    elif x.dtype == np.bool_:
        work = x.astype(np.uint8)
    else:
        work = x.astype(np.int32) if x.dtype.itemsize == 8 else x
    if reverse:
        work = np.flip(work, axis)
    if exclusive and work.shape[axis]:  # from +0: the elements before each one
        head = np.zeros_like(np.take(work, [0], axis))
        work = np.concatenate([head, np.delete(work, -1, axis)], axis)
    with np.errstate(over="ignore", invalid="ignore"):  # inf + -inf is NaN, as on the CPU
        sums = np.cumsum(work, axis=axis, dtype=work.dtype)
    if reverse:
        sums = np.flip(sums, axis)
    if x.dtype.kind == "f":
        return stored_from_f32(sums, x.dtype)
    if x.dtype == np.bool_:
        nonzero: NDArray[Any] = sums != 0
        return nonzero
    return np.ascontiguousarray(sums).astype(x.dtype)


@kernel_for(CumSum3)
def run_cumsum(
    op: CumSum3, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data, axis = inputs
    if axis.ndim != 0 or not op.axis_in_range(int(axis), data.ndim):
        raise ExecutionError(
            f"CumSum axis {axis.tolist()} for data of rank {data.ndim}: the CPU plugin takes "
            "only a scalar axis in range (docs/ops/CumSum.md)"
        )
    if data.ndim == 0:
        return [cumulative_sum(data.reshape(1), 0, op.exclusive, op.reverse).reshape(())]
    return [cumulative_sum(data, int(axis) % data.ndim, op.exclusive, op.reverse)]
