"""Reshape, Squeeze and Unsqueeze on NumPy arrays: the data is kept, the shape changes.

Kept as the CPU plugin keeps it: OpenVINO's CPU plugin holds 64-bit integer tensors as int32
(measured: an i64 value 2**31 comes out of a lone Reshape as -2**31), so i64 and u64 values
wrap to int32 and are widened back.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

WRAPPED_KINDS = (np.dtype(np.int64), np.dtype(np.uint64))


def reshape(x: NDArray[Any], shape: tuple[int, ...]) -> NDArray[Any]:
    if x.dtype in WRAPPED_KINDS:
        x = x.astype(np.int32).astype(x.dtype)
    return x.reshape(shape)
