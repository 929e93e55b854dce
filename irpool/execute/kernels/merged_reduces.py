"""A chain of Reduces the CPU plugin merges into one (irpool/cpu/reduce_merge.py), run as one
Reduce over the union of their axes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.reduce_merge import MergedReduces
from irpool.execute.kernels.reduce import run_reduce
from irpool.execute.registry import OutputSpec, kernel_for


@kernel_for(MergedReduces)
def run_merged_reduces(
    op: MergedReduces, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    """The chain of `op` (a MergedReduces) on `inputs` (the data, then each op's axes) as
    one Reduce over the union of their axes, mapped back to the data's axes."""
    data, axes_inputs, last = inputs[0], inputs[1:], op.ops[-1]
    if data.ndim == 0:  # a scalar stays a scalar through every step
        return run_reduce(last, [data, axes_inputs[-1]], outputs)
    positions = list(range(data.ndim))  # the data axis each axis of the current step is
    union: set[int] = set()
    for reduce, axes in zip(op.ops, axes_inputs, strict=True):
        normalized = reduce.normalized_axes(axes, len(positions))
        union |= {positions[axis] for axis in normalized}
        if not reduce.keep_dims:
            positions = [p for axis, p in enumerate(positions) if axis not in normalized]
    return run_reduce(last, [data, np.array(sorted(union), np.int64)], outputs)
