"""The CPU plugin's fused attention snippet, and its attention node's sums on an AVX2 host,
re-measured with the rest by tools/measure_cpu.py (which imports this module; its sections
close docs/cpu.md)."""

from __future__ import annotations

import numpy as np
from cpu_probe import (
    Measurement,
    behaviour,
    constant,
    kv_cache_model,
    observe,
    observe_steps,
    parameter,
)
from ov_builders import ov  # says how to install OpenVINO where it is missing


@behaviour(
    "A dynamic attention's snippet sums its tail in one lane", "irpool.cpu.attention_snippet"
)
def dynamic_attention_snippet_sums_its_tail_in_one_lane() -> Measurement:
    """Dynamic shapes, 18 keys: the softmax's sum adds keys 16 and 17 to lane 0 in order, and
    a score 87 below the row's maximum weighs 0x00B3368A (subnormal), not 0: the first query
    row's outputs, -0.39225978 and 0.14673039 (an ulp from summing as static shapes do, or
    from the attention node's exp)."""
    q, k, v = (parameter(name, "?,1,?,?", np.float32) for name in "qkv")
    mask, scale = constant(np.float32(0), np.float32), constant(np.float32(1), np.float32)
    attention = ov.opset13.scaled_dot_product_attention(q, k, v, mask, scale)
    rng = np.random.default_rng(3)
    keys = np.clip(rng.standard_normal((1, 1, 18, 1)), -1.9, 1.9).astype(np.float32)
    keys[0, 0, :2, 0] = 2.0, -85.0  # the row's max and, for the first query, 87 below it
    values = rng.standard_normal((1, 1, 18, 2)).astype(np.float32)
    values[0, 0, 1] = 1e30
    queries = np.array([1, 1.001, 0.999, 0.7], np.float32).reshape(1, 1, 4, 1)
    return observe([attention], [q, k, v], [queries, keys, values])


@behaviour("An AVX2 host's snippet sums in 8 lanes", "irpool.cpu.attention_snippet")
def avx2_snippet_sums_in_eight_lanes() -> Measurement:
    """Dynamic shapes, 24 keys, one query row: the softmax's sum in the host's lanes, 16 with
    AVX-512 (keys 16 to 23 join lanes 0 to 7 last) and 8 with at most AVX2 (a ymm register: key
    i + 8 joins lane i before key i + 16), then halved down to 4 and added (0 + 2) + (1 + 3):
    0.09941065 on AVX-512, 0.09941064 with `ONEDNN_MAX_CPU_ISA=AVX2`."""
    q, k, v = (parameter(name, "?,1,?,?", np.float32) for name in "qkv")
    mask, scale = constant(np.float32(0), np.float32), constant(np.float32(1), np.float32)
    attention = ov.opset13.scaled_dot_product_attention(q, k, v, mask, scale)
    rng = np.random.default_rng(0)
    keys = rng.standard_normal((1, 1, 24, 1)).astype(np.float32)
    values = rng.standard_normal((1, 1, 24, 1)).astype(np.float32)
    queries = np.ones((1, 1, 1, 1), np.float32)
    return observe([attention], [q, k, v], [queries, keys, values])


@behaviour("An AVX2 host's attention node sums in 8 lanes", "irpool.cpu.attention_node")
def avx2_attention_node_sums_in_eight_lanes() -> Measurement:
    """A u8 cache of 2 heads of 64: a prompt of 3 tokens, then a step (randn, seed 0). The
    node's kernels take AVX-512 or AVX2 by the CPU's flags, whatever ONEDNN_MAX_CPU_ISA says;
    on AVX2 the softmax sums in 8 lanes added in neighbouring pairs, a step's dot products
    chain in 8 lanes added by halves then pairs, and a u8 key's scores are scale · (the
    codes' dot − zero point · Σ q), not the held values' dot: the step's first output is
    -0.5526178 on an AVX2 host, where the AVX-512 forms give -0.55261785."""
    rng, beams = np.random.default_rng(0), np.zeros(1, np.int32)
    steps = [
        {name: rng.standard_normal((1, 2, tokens, 64), np.float32) for name in "qkv"}
        | {"beam_idx": beams}
        for tokens in (3, 1)
    ]
    return observe_steps(kv_cache_model(64, heads=2), steps)
