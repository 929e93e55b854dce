"""Live differential test: a ScaledDotProductAttention the CPU fuses with its KV cache runs in
its attention node, and irpool gives that node's bits on a prompt (several tokens, no past)
and, with the cache held in f16 or f32, on every later step (irpool/cpu/attention_node.py,
docs/ops/ScaledDotProductAttention.md#the-attention-node).

Models from tests/ir.py's `cached_attention_model`: head dims 16 to 128 (96 and 112 among
them), grouped queries, a batch of 2 whose first row is left-padded by 2 tokens (a float mask
of -FLT_MAX or -inf, whose first query rows are then masked out entirely, or a boolean mask),
causal without a mask, scales given (0 meaning the default), or not; prompts of 2 to 40
tokens, so blocks of 4 query rows and each tail of 1 to 3 rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irpool
from irpool.cpu.compressed_weights import quantizes_any_activations
from tests.differential.oracle_batch import CPU_CONFIG
from tests.ir import cached_attention_model, write

ov = pytest.importorskip("openvino")

pytestmark = pytest.mark.oracle

BATCH, PADDED = 2, 2
LENGTHS = (2, 3, 4, 5, 7, 13, 40)
F32_MIN = np.finfo(np.float32).min


def _mask(kind: str, length: int) -> np.ndarray:
    """Row 0 left-padded by `PADDED` tokens, and causal: as optimum's exports mask a prompt."""
    hidden = np.zeros((BATCH, 1, length, length), np.bool_)
    hidden[0, :, :, :PADDED] = True
    hidden |= np.triu(np.ones((length, length), np.bool_), 1)
    if kind == "boolean":
        return ~hidden
    fill = -np.inf if kind == "-inf" else F32_MIN
    return np.where(hidden, np.float32(fill), np.float32(0))


def _feeds(
    heads: int, kv_heads: int, depth: int, mask: str | None, length: int, past: int = 0
) -> dict[str, Any]:
    rng = np.random.default_rng(depth * 10_000 + past * 100 + length)
    feeds: dict[str, Any] = {
        "q": rng.standard_normal((BATCH, heads, length, depth), np.float32),
        "k": rng.standard_normal((BATCH, kv_heads, length, depth), np.float32),
        "v": rng.standard_normal((BATCH, kv_heads, length, depth), np.float32),
        "beam_idx": np.arange(BATCH, dtype=np.int32),
    }
    if mask is not None:
        feeds["mask"] = _mask(mask, length)
    return feeds


@pytest.mark.parametrize(
    ("heads", "kv_heads", "depth", "mask", "scale", "causal"),
    [
        (8, 8, 16, "-FLT_MAX", 0.25, False),  # the Qwen2 export's layer
        (4, 2, 32, "-FLT_MAX", 0.3, False),
        (4, 1, 64, "-inf", None, False),
        (2, 2, 128, "boolean", 0.0, False),  # a scale of 0: the default 1/sqrt(E)
        (4, 2, 64, None, None, True),
        (2, 2, 80, None, None, False),
        (2, 1, 96, "-FLT_MAX", None, False),  # 1/sqrt(96) in f32, a last bit off double's
        (4, 2, 112, None, None, True),
    ],
)
def test_a_prompt_gives_the_attention_nodes_bits(
    tmp_path: Path,
    heads: int,
    kv_heads: int,
    depth: int,
    mask: str | None,
    scale: float | None,
    causal: bool,
) -> None:
    element = None if mask is None else "boolean" if mask == "boolean" else "f32"
    xml, data = cached_attention_model(heads, kv_heads, depth, element, scale, causal)
    path = write(tmp_path, xml, data)
    model = irpool.load(path)
    assert model.validate() == []
    compiled = ov.Core().compile_model(path, "CPU", CPU_CONFIG)
    for length in LENGTHS:
        feeds = _feeds(heads, kv_heads, depth, mask, length)
        expected = compiled.create_infer_request().infer(feeds)[0]
        found = model.create_infer_request().infer(feeds)["out"]
        np.testing.assert_array_equal(found, expected, err_msg=f"{length} tokens")


def test_a_long_prompt_an_int8_quantization_reads_gives_the_nodes_bits(tmp_path: Path) -> None:
    """2 heads of 128 and 200 tokens, a batch of 2: 41 M multiply-adds, past `EXACT_MACS`,
    and the output projected by u8 weights whose activations the CPU quantizes to int8, where
    a last bit of the attention moves whole steps (the width-256 LLM exports' o_proj): the
    products are emulated up to `EXACT_MACS_QUANTIZED` and the projection is the CPU's. An AVX2
    host quantizes nothing (docs/cpu.md#an-avx2-host-quantizes-no-activations): its attention
    goes through BLAS past `EXACT_MACS`, within 1e-6 of the output's scale."""
    xml, data = cached_attention_model(2, 2, 128, "f32", projection=256)
    path = write(tmp_path, xml, data)
    model = irpool.load(path)
    assert model.validate() == []
    feeds = _feeds(2, 2, 128, "-FLT_MAX", 200)
    expected = ov.Core().compile_model(path, "CPU", CPU_CONFIG).create_infer_request().infer(feeds)
    found = model.create_infer_request().infer(feeds)["projected"]
    if not quantizes_any_activations():
        bound = 1e-6 * np.abs(expected[0]).max()
        np.testing.assert_allclose(found, expected[0], rtol=0, atol=bound)
        return
    np.testing.assert_array_equal(found, expected[0])


def _step_mask(kind: str | None, past: int, length: int) -> np.ndarray | None:
    """The mask of `length` tokens after `past`: row 0's first `PADDED` keys hidden, causal."""
    if kind is None:
        return None
    keys = past + length
    hidden = np.zeros((BATCH, 1, length, keys), np.bool_)
    hidden[0, :, :, :PADDED] = True
    hidden |= np.arange(keys) > np.arange(length)[:, None] + past
    if kind == "boolean":
        return ~hidden
    return np.where(hidden, np.float32(F32_MIN), np.float32(0))


@pytest.mark.parametrize("cache_type", [None, "f16", "f32"])  # None: u8, the default
@pytest.mark.parametrize(
    ("heads", "kv_heads", "depth", "mask", "causal"),
    [
        (8, 8, 16, "-FLT_MAX", False),
        (4, 2, 32, "boolean", False),
        (4, 1, 64, "-FLT_MAX", False),
        (2, 2, 80, None, True),
        (2, 1, 128, "-FLT_MAX", False),
        (2, 1, 96, "-FLT_MAX", False),  # two chunks of 16 past a whole 64, chained on the first
        (4, 2, 112, None, True),  # three
    ],
)
def test_steps_after_a_prompt_give_the_single_token_kernels_bits(
    tmp_path: Path,
    cache_type: str | None,
    heads: int,
    kv_heads: int,
    depth: int,
    mask: str | None,
    causal: bool,
) -> None:
    """A padded prompt of 7 tokens, then steps of 1, 1, 3 and 1 tokens, the cache held in
    f16 or f32 (the rt_info's KV_CACHE_PRECISION) or u8 (none named): every step equals the
    CPU bit for bit, and so does the cache query_state shows after them."""
    element = None if mask is None else "boolean" if mask == "boolean" else "f32"
    xml, data = cached_attention_model(
        heads, kv_heads, depth, element, None, causal, cache_type=cache_type
    )
    path = write(tmp_path, xml, data)
    request = irpool.load(path).create_infer_request()
    expected = ov.Core().compile_model(path, "CPU", CPU_CONFIG).create_infer_request()
    past = 0
    for length in (7, 1, 1, 3, 1):
        feeds = _feeds(heads, kv_heads, depth, None, length, past)
        step_mask = _step_mask(mask, past, length)
        if step_mask is not None:
            feeds["mask"] = step_mask
        wanted = expected.infer(feeds)[0]
        found = request.infer(feeds)["out"]
        np.testing.assert_array_equal(found, wanted, err_msg=f"{length} tokens after {past}")
        past += length
    held = request.query_state()
    for state in expected.query_state():
        np.testing.assert_array_equal(held[state.name], state.state.data, err_msg=state.name)


def test_a_causal_step_past_the_emulated_keys_counts_from_the_pasts_end(tmp_path: Path) -> None:
    """A step after a prompt of 300 tokens (more keys than irpool's chains emulate) runs the
    snippet, with the node's causal mask: counted from the past's end."""
    xml, data = cached_attention_model(2, 2, 64, None, None, True, cache_type="f32")
    path = write(tmp_path, xml, data)
    request = irpool.load(path).create_infer_request()
    expected = ov.Core().compile_model(path, "CPU", CPU_CONFIG).create_infer_request()
    for past, length in ((0, 300), (300, 1)):
        feeds = _feeds(2, 2, 64, None, length, past)
        wanted = expected.infer(feeds)[0]
        found = request.infer(feeds)["out"]
        np.testing.assert_allclose(found, wanted, rtol=1e-5, atol=1e-6)
