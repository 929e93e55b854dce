"""bf16 arrays between irpool and OpenVINO's Python API.

irpool takes and returns bf16 tensors as float32 arrays of bf16 values. OpenVINO's Python API
(2026.4) takes and returns them as float16 arrays holding the bf16 bits: a float16 array
there is not a float16 value. These two functions convert between the forms, bit for bit,
so a run can take OpenVINO's outputs and OpenVINO irpool's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray


def bf16_from_bits(bits: ArrayLike) -> NDArray[np.float32]:
    """float32 values of bf16 bits given as any 2-byte array (OpenVINO's float16 arrays, or
    uint16): what `irpool.Model.run` takes for a bf16 input."""
    array = np.asarray(bits)
    if array.dtype.itemsize != 2:
        raise ValueError(
            f"`bits` must be a 2-byte array (float16 or uint16) of bf16 bits, got {array.dtype}"
        )
    values: NDArray[np.float32] = (
        np.ascontiguousarray(array).view(np.uint16).astype(np.uint32) << np.uint32(16)
    ).view(np.float32)
    return values


def bf16_to_bits(values: ArrayLike) -> NDArray[np.float16]:
    """float16 arrays of the bf16 bits of float32 bf16 values (what `irpool.Model.run` returns
    for a bf16 output), as OpenVINO's Python API takes them; a value bf16 does not hold is
    a ValueError naming the first one."""
    array = np.asarray(values)
    if array.dtype != np.float32:
        raise ValueError(f"`values` must be float32 arrays of bf16 values, got {array.dtype}")
    words = np.ascontiguousarray(array).view(np.uint32)
    inexact = (words & np.uint32(0xFFFF)) != 0
    if inexact.any():
        first: Any = np.unravel_index(int(np.flatnonzero(inexact)[0]), array.shape)
        index = ",".join(str(int(i)) for i in first)
        raise ValueError(
            f"`values` holds {array[first]!s} at index [{index}], which is not a bf16 value"
        )
    bits: NDArray[np.float16] = (words >> np.uint32(16)).astype(np.uint16).view(np.float16)
    return bits
