"""The CPU plugin's RoPE kernel (irpool/cpu/rope_fusion.py): each output is one product
rounded to f32 plus the other by FMA, `fma(x, cos, rotated * sin)` on the first half of the
last axis and `fma(rotated, sin, x * cos)` on the second."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.rope_fusion import RotaryEmbedding
from irpool.execute.kernels.linear_chains import fused_multiply_add
from irpool.execute.registry import OutputSpec, kernel_for


@kernel_for(RotaryEmbedding)
def run_rotary_embedding(
    op: RotaryEmbedding, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    x, cos, rotated, sin = np.broadcast_arrays(*inputs)
    half = x.shape[-1] // 2
    first, second = slice(None, half), slice(half, None)
    with np.errstate(all="ignore"):  # inf and NaN are values here
        leading = fused_multiply_add(
            x[..., first], cos[..., first], rotated[..., first] * sin[..., first]
        )
        trailing = fused_multiply_add(
            rotated[..., second], sin[..., second], x[..., second] * cos[..., second]
        )
    return [np.concatenate([leading, trailing], axis=-1)]
