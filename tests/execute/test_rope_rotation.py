"""The fused RoPE kernel rotating x itself (irpool/cpu/rope_fusion.py `rotates`): the same
bits as the rotate-half layers it replaces, Concat(Slice(x, half..) * -1, Slice(x, ..half)),
computed as the run computes them (the Multiply an f32 product, the Slices and Concat copies),
with the -1 either operand, for NaN payloads, infinities and signed zeros."""

from __future__ import annotations

import numpy as np
import pytest

from irpool.execute.kernels.rope import _rotated


@pytest.mark.parametrize("minus_one_first", [False, True])
def test_the_kernels_rotation_equals_the_layers(minus_one_first: bool) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 32)).astype(np.float32)
    specials = np.array([0x7FC00001, 0xFFC12345, 0x7F800000, 0xFF800000, 0, 0x80000000, 1])
    x.reshape(-1)[: specials.size] = specials.astype(np.uint32).view(np.float32)
    x.reshape(-1)[-specials.size :] = specials.astype(np.uint32).view(np.float32)
    minus_one = np.full((), -1, np.float32)
    upper, lower = x[..., 16:].copy(), x[..., :16].copy()
    with np.errstate(all="ignore"):
        product = np.multiply(minus_one, upper) if minus_one_first else upper * minus_one
    expected = np.concatenate([product, lower], axis=-1)
    found = _rotated(x, minus_one_first)
    np.testing.assert_array_equal(found.view(np.uint32), expected.view(np.uint32))
