"""Constant folding when a run is planned."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.ops.convert_fold import F32_MAX, INT32_MIN


def as_constant(value: NDArray[Any], element_type: str) -> NDArray[Any]:
    """A constant as the CPU plugin holds it (tests/golden/convert_cpu.json "constants"): i64,
    u32 and u64 saturated to the int32 range, f64 rounded to f32 and saturated to its range."""
    if element_type in ("i64", "u32", "u64"):
        wide = value.astype(np.float64) if element_type == "u64" else value.astype(np.int64)
        return np.asarray(np.clip(wide, INT32_MIN, -INT32_MIN - 1), value.dtype)  # 0-d stays
    if element_type == "f64":
        return np.asarray(np.clip(value, -F32_MAX, F32_MAX), np.float32).astype(np.float64)
    return value
