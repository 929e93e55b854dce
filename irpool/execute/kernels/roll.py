"""Roll on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it (measured,
docs/ops/Roll.md): NumPy's roll by one shift per axis, values held as the CPU holds the
type: f64 saturated to ±FLT_MAX and rounded to f32, 64-bit integers wrapped to int32 (as
Select); a scalar is copied. The shifts are int32 (an i64 Const saturated, an i64 input
wrapped, as every tensor the plugin holds) and each axis's shift is accumulated in their order
as the plugin's roll node does: the axis's shift so far (in [0, dim)) plus the next one,
wrapped to int32, then taken modulo the dim (-8 and 2**31 - 1 on an axis of 5 move by 3).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import moved_as_held
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.reduce import Reduce
from irpool.ops.roll import Roll7

_INT32_SPAN = 2**32


def accumulated_shifts(
    shifts: Sequence[int], axes: Sequence[int], dims: Sequence[int]
) -> list[int]:
    """Each axis's shift as the CPU plugin sums them (`axes` non-negative, `shifts` int32):
    in int32 arithmetic, one shift after another, reduced modulo the dim at each step."""
    moved = [0] * len(dims)
    for shift, axis in zip(shifts, axes, strict=True):
        total = (moved[axis] + shift + 2**31) % _INT32_SPAN - 2**31
        moved[axis] = total % dims[axis] if dims[axis] else 0
    return moved


@kernel_for(Roll7)
def run_roll(
    op: Roll7, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data, shift, axes = inputs
    if data.ndim == 0:
        return [moved_as_held(data.copy())]
    normalized = [int(axis) % data.ndim for axis in axes.ravel()]
    Reduce.normalized_axes(axes, data.ndim)  # out of range: the same error as at validation
    held = moved_as_held(shift).ravel()
    shifts = [int(held[0])] * len(normalized) if shift.ndim == 0 else [int(s) for s in held]
    moved = accumulated_shifts(shifts, normalized, data.shape)
    return [moved_as_held(np.roll(data, moved, tuple(range(data.ndim))))]
