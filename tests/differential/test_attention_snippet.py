"""Live differential test: a ScaledDotProductAttention not fused with a KV cache, as a
non-stateful export writes it, runs in the CPU's fused attention snippet, and irpool gives its
bits (irpool/cpu/attention_snippet.py,
docs/ops/ScaledDotProductAttention.md#the-fused-snippets-bits).

Models from tests/ir.py's `concat_attention_model`: head dims 8 to 128, grouped queries, a
batch of 2 whose first row is left-padded by 2 tokens (a float mask of -FLT_MAX or -inf, or a
boolean mask), causal without a mask, scales given or not; 1 to 300 tokens (every tail of the
softmax's 16 lanes, dynamic and static shapes), after a past of up to 596 (more than the 512
keys of one chain of the values' product), and a one-token step on 256 keys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irpool
from tests.differential.oracle_batch import CPU_CONFIG
from tests.ir import concat_attention_model, write

ov = pytest.importorskip("openvino")

pytestmark = pytest.mark.oracle

BATCH, PADDED = 2, 2
F32_MIN = np.finfo(np.float32).min


def _mask(kind: str, past: int, tokens: int) -> np.ndarray:
    """Row 0 left-padded by `PADDED` tokens, and causal after the past: as optimum's
    exports mask a prompt."""
    hidden = np.zeros((BATCH, 1, tokens, past + tokens), np.bool_)
    hidden[0, :, :, :PADDED] = True
    hidden |= np.triu(np.ones((tokens, past + tokens), np.bool_), past + 1)
    if kind == "boolean":
        return ~hidden
    fill = -np.inf if kind == "-inf" else F32_MIN
    return np.where(hidden, np.float32(fill), np.float32(0))


def _feeds(
    heads: int, kv_heads: int, depth: int, mask: str | None, past: int, tokens: int
) -> dict[str, Any]:
    rng = np.random.default_rng(depth * 100_000 + past * 1000 + tokens)
    step, before = (BATCH, kv_heads, tokens, depth), (BATCH, kv_heads, past, depth)
    feeds: dict[str, Any] = {
        "q": rng.standard_normal((BATCH, heads, tokens, depth), np.float32),
        "k": rng.standard_normal(step, np.float32),
        "v": rng.standard_normal(step, np.float32),
        "past_key": rng.standard_normal(before, np.float32),
        "past_value": rng.standard_normal(before, np.float32),
    }
    if mask is not None:
        feeds["mask"] = _mask(mask, past, tokens)
    return feeds


@pytest.mark.parametrize(
    ("heads", "kv_heads", "depth", "mask", "scale", "causal", "past", "lengths"),
    [
        # the phi3 width-40 export's layer, up to its 200-token prompt
        (5, 1, 8, "-FLT_MAX", 0.35355339, False, 0, (1, 2, 13, 16, 17, 33, 200)),
        (5, 1, 8, "-FLT_MAX", 0.35355339, False, 3, (13,)),
        (5, 1, 8, "-FLT_MAX", 0.35355339, False, 255, (1,)),  # a step of 256 keys
        (4, 2, 16, "-inf", 0.25, False, 0, (5, 31, 47)),
        (2, 2, 32, "boolean", None, False, 0, (19, 64, 100)),
        (2, 1, 64, None, None, True, 0, (7, 150)),
        (1, 1, 80, "-FLT_MAX", None, False, 0, (21, 200)),
        (2, 2, 16, "-FLT_MAX", None, False, 0, (255, 300)),
        (2, 2, 128, None, 0.1, False, 0, (9, 77)),
        (2, 2, 16, "-FLT_MAX", 0.25, False, 596, (4,)),  # 600 keys: chains of 512 keys
    ],
)
def test_a_non_stateful_layer_gives_the_snippets_bits(
    tmp_path: Path,
    heads: int,
    kv_heads: int,
    depth: int,
    mask: str | None,
    scale: float | None,
    causal: bool,
    past: int,
    lengths: tuple[int, ...],
) -> None:
    element = None if mask is None else "boolean" if mask == "boolean" else "f32"
    xml, data = concat_attention_model(heads, kv_heads, depth, element, scale, causal)
    path = write(tmp_path, xml, data)
    model = irpool.load(path)
    compiled = ov.Core().compile_model(str(path), "CPU", CPU_CONFIG)
    for tokens in lengths:
        feeds = _feeds(heads, kv_heads, depth, mask, past, tokens)
        want = compiled(feeds)[compiled.output("out")]
        got = model.run(feeds)["out"]
        np.testing.assert_array_equal(got, want, err_msg=f"{tokens} tokens after {past}")


@pytest.mark.parametrize(("batch", "past", "tokens"), [(1, 0, 37), (2, 3, 21), (1, 0, 200)])
def test_a_static_layer_gives_the_snippets_bits(
    tmp_path: Path, batch: int, past: int, tokens: int
) -> None:
    """Static shapes: the softmax's tail of keys goes to the lanes it falls on."""
    xml, data = concat_attention_model(2, 2, 40, "f32", 0.3, static=(batch, past, tokens))
    path = write(tmp_path, xml, data)
    feeds = _feeds(2, 2, 40, "-FLT_MAX", past, tokens)
    feeds = {name: array[:batch] for name, array in feeds.items()}
    compiled = ov.Core().compile_model(str(path), "CPU", CPU_CONFIG)
    want = compiled(feeds)[compiled.output("out")]
    got = irpool.load(path).run(feeds)["out"]
    np.testing.assert_array_equal(got, want)
