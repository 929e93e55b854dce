"""Roll on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it (measured,
docs/semantics.md §21): NumPy's roll, each axis shifted by the sum of its shifts (a scalar
shift applies to its one axis), values held as the CPU holds the type: f64 saturated to
±FLT_MAX and rounded to f32, 64-bit integers wrapped to int32 (as Select); a scalar is
copied. A gap: shifts beyond int32, or whose sum on one axis overflows it, move otherwise on
the CPU (docs/semantics.md §21).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.kernels.reshape import as_held
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.reduce import Reduce
from irpool.ops.roll import Roll7


@kernel_for(Roll7)
def run_roll(
    op: Roll7, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data, shift, axes = inputs
    if data.ndim == 0:
        return [as_held(data.copy())]
    normalized = [int(axis) % data.ndim for axis in axes.ravel()]
    Reduce.normalized_axes(axes, data.ndim)  # out of range: the same error as at validation
    shifts = np.broadcast_to(shift.ravel(), (len(normalized),)) if shift.ndim == 0 else shift
    rolled = np.roll(data, [int(s) for s in np.ravel(shifts)], normalized)
    return [as_held(rolled)]
