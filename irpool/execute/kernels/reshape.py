"""Reshape on NumPy arrays: the data is kept, the shape changes (Squeeze and Unsqueeze too:
kernels/squeeze.py).

Kept as the CPU plugin keeps it: OpenVINO's CPU plugin holds 64-bit integer tensors as int32
(measured: an i64 value 2**31 comes out of a lone Reshape as -2**31), so i64 and u64 values
wrap to int32 and are widened back; f64 tensors as f32 (`as_held`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.convert_fold import F32_MAX
from irpool.ops.reshape import Reshape1

WRAPPED_KINDS = (np.dtype(np.int64), np.dtype(np.uint64))


@kernel_for(Reshape1)
def run_reshape(
    op: Reshape1,
    inputs: Sequence[NDArray[Any]],
    outputs: Sequence[OutputSpec],
) -> list[NDArray[Any] | None]:
    data = inputs[0]
    return [reshape(data, op.target_shape(data.shape, inputs[1:]))]


def reshape(x: NDArray[Any], shape: tuple[int, ...]) -> NDArray[Any]:
    return as_held(x).reshape(shape)


def as_held(x: NDArray[Any]) -> NDArray[Any]:
    """A tensor as the CPU plugin holds it when it moves or copies its elements (Reshape,
    Transpose, Concat, Gather, VariadicSplit, Slice, Select, Roll, ScatterNDUpdate, a
    ReduceProd over no axes): 64-bit integers wrapped to int32, f64 as f32 saturated
    to ±FLT_MAX (measured: an f64 inf or 1e300 comes out of a lone Reshape as 3.4028235e38)."""
    if x.dtype in WRAPPED_KINDS:
        return x.astype(np.int32).astype(x.dtype)
    if x.dtype == np.float64:
        held: NDArray[Any] = np.clip(x, -F32_MAX, F32_MAX).astype(np.float32).astype(np.float64)
        return held
    return x
