"""Live differential test: the rotary embedding as optimum-intel's Llama, Qwen2, Mistral, Phi3
and Gemma exports write it, from position_ids on (their angles times inv_freq, Cos and Sin,
then x * cos + Concat(-Slice(x, h:), Slice(x, :h)) * sin), on long prompts: the CPU's Sin and
Cos are glibc's sinf and cosf (irpool/cpu/trigonometry.py, docs/cpu.md "Sin and Cos are the C
library's"), which the fused RoPE kernel takes (irpool/cpu/rope_fusion.py): irpool equals the
CPU bit for bit at positions up to 4,000."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irpool
from tests.differential.oracle_batch import CPU_CONFIG

ov = pytest.importorskip("openvino")
ops = pytest.importorskip("openvino.opset13")

pytestmark = pytest.mark.oracle

INT64_MAX = np.iinfo(np.int64).max


def slice_last(x: object, start: int, stop: int) -> object:
    return ops.slice(x, *(ops.constant(np.array([v], np.int64)) for v in (start, stop, 1, 3)))


def write_model(path: Path, head_size: int, base: float) -> None:
    """x [batch, heads, tokens, head_size] and position_ids [batch, tokens], dims dynamic."""
    x = ops.parameter([-1, 2, -1, head_size], np.float32, name="x")
    positions = ops.parameter([-1, -1], np.int64, name="position_ids")
    inv_freq = 1.0 / base ** (np.arange(0, head_size, 2, dtype=np.float32) / head_size)
    frequencies = ops.constant(inv_freq.astype(np.float32).reshape(1, -1, 1))
    angles = ops.matmul(
        frequencies, ops.unsqueeze(ops.convert(positions, "f32"), ops.constant(1)), False, False
    )
    angles = ops.transpose(angles, ops.constant(np.array([0, 2, 1])))
    both = ops.concat([angles, angles], -1)
    cos = ops.unsqueeze(ops.cos(both), ops.constant(1))
    sin = ops.unsqueeze(ops.sin(both), ops.constant(1))
    half = head_size // 2
    minus_one = ops.convert(ops.constant(np.int32(-1)), "f32")
    rotated = ops.concat(
        [ops.multiply(slice_last(x, half, INT64_MAX), minus_one), slice_last(x, 0, half)], -1
    )
    embedded = ops.add(ops.multiply(x, cos), ops.multiply(rotated, sin))
    model = ov.Model([ops.result(embedded)], [x, positions])
    ov.save_model(model, path, compress_to_fp16=False)


@pytest.mark.parametrize("head_size", [16, 64, 80, 128])
@pytest.mark.parametrize("first_position", [0, 1000, 3900])
def test_rotary_embeddings_of_long_prompts_equal_the_cpu_bit_for_bit(
    tmp_path: Path, head_size: int, first_position: int
) -> None:
    """A 100-token prompt from `first_position` on, batch 2 (the second row 7 tokens on)."""
    path = tmp_path / "rope.xml"
    write_model(path, head_size, 10000.0)
    rng = np.random.default_rng(head_size + first_position)
    x = rng.standard_normal((2, 2, 100, head_size)).astype(np.float32)
    start = np.array([[first_position], [first_position + 7]])
    positions = (start + np.arange(100)).astype(np.int64)
    compiled = ov.Core().compile_model(path, "CPU", CPU_CONFIG)
    expected = compiled({"x": x, "position_ids": positions})[0]
    (got,) = irpool.load(path).run({"x": x, "position_ids": positions}).values()
    np.testing.assert_array_equal(got, expected)
