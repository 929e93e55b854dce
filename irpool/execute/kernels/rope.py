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
    with np.errstate(all="ignore"):  # inf and NaN are values here
        if op.rotates:
            inputs = (inputs[0], inputs[1], _rotated(inputs[0], op.minus_one_first), inputs[2])
        x, cos, rotated, sin = (array.astype(np.float64) for array in inputs)
        half = x.shape[-1] // 2
        by_cos, by_sin = x * cos, rotated * sin  # exact: f32 by f32 in f64
        if by_cos.shape != by_sin.shape:  # np.broadcast_arrays costs microseconds
            by_cos, by_sin = np.broadcast_arrays(by_cos, by_sin)
        # fma(x, cos, rotated * sin) on the first half, fma(rotated, sin, x * cos) on the
        # second: each an exact product plus the other rounded to f32, rounded once.
        exact = np.concatenate([by_cos[..., :half], by_sin[..., half:]], axis=-1)
        rounded = np.concatenate([by_sin[..., :half], by_cos[..., half:]], axis=-1)
        return [(exact + rounded.astype(np.float32)).astype(np.float32)]


def _rotated(x: NDArray[np.float32], minus_one_first: bool) -> NDArray[np.float32]:
    """Concat(Slice(x, half..) * -1, Slice(x, ..half)) on the last axis, as those layers
    compute it (an f32 product by -1: a NaN keeps its bits, as the product gives them). Run
    under `run_rotary_embedding`'s np.errstate."""
    half = x.shape[-1] // 2
    minus_one = np.float32(-1)
    upper = x[..., half:]
    negated = np.multiply(minus_one, upper) if minus_one_first else np.multiply(upper, minus_one)
    return np.concatenate([negated, x[..., :half]], axis=-1)
