"""The CPU plugin's RoPE kernel (irpool/cpu/rope_fusion.py): each output is one product
rounded to f32 plus the other by FMA, `fma(x, cos, rotated * sin)` on the first half of the
last axis and `fma(rotated, sin, x * cos)` on the second."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.rope_fusion import RotaryEmbedding
from irpool.execute.registry import OutputSpec, kernel_for


@kernel_for(RotaryEmbedding)
def run_rotary_embedding(
    op: RotaryEmbedding, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    x, cos, rotated, sin = (array.astype(np.float64) for array in inputs)
    half = x.shape[-1] // 2
    with np.errstate(all="ignore"):  # inf and NaN are values here
        by_cos, by_sin = x * cos, rotated * sin  # exact: f32 by f32 in f64
        if by_cos.shape != by_sin.shape:  # np.broadcast_arrays costs microseconds
            by_cos, by_sin = np.broadcast_arrays(by_cos, by_sin)
        # fma(x, cos, rotated * sin) on the first half, fma(rotated, sin, x * cos) on the
        # second: each an exact product plus the other rounded to f32, rounded once.
        exact = np.concatenate([by_cos[..., :half], by_sin[..., half:]], axis=-1)
        rounded = np.concatenate([by_sin[..., :half], by_cos[..., half:]], axis=-1)
        return [(exact + rounded.astype(np.float32)).astype(np.float32)]
