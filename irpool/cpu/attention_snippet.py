"""The CPU plugin's fused attention (its MHA snippet), which runs a ScaledDotProductAttention
of f32 data at rank 3 or 4 that is not fused with a KV cache, as `snippet_attention` computes
it to the bit (docs/ops/ScaledDotProductAttention.md, "The fused snippet's bits"):

- scores = query @ keysᵀ (key already multiplied by a scale known when compiling, else the
  product times the scale, rounded): each element one chain of FMAs over E from 0.
- the mask added; softmax along the keys: the row's max, e = exp(score - max) by the
  polynomial of irpool.cpu.vector_exp times 2ⁿ (not 2 · 2ⁿ⁻¹, so values from ln FLT_MIN to
  about -86.99 keep their subnormal bits: `vector_exp`'s `whole_power`), summed in 16
  lanes (8 with at most AVX2: a ymm register) whose halves are then added; the tail of
  fewer keys goes to the lanes it falls on when the shapes are static, all to the first
  lane in order when they are dynamic (the snippet's scalar tail loop); weights
  e * (1/sum). The max is not clamped: a row masked entirely by -inf is NaN.
- output = weights @ value: FMA chains over the keys from 0 in blocks of 512 keys, the
  blocks' sums added.
Up to `EXACT_MACS` multiply-adds (`EXACT_MACS_QUANTIZED` where an int8 quantization of
activations reads the output; a step of one query row: up to `EXACT_STEP_KEYS` keys) the
products are so emulated; beyond, the caller computes the layer through BLAS (within the
op's tolerance).
Measured 2026-12-07 (AMD EPYC family 25 model 17, 2 cores, AVX-512, OpenVINO 2026.4.1), and
under ONEDNN_MAX_CPU_ISA=AVX2 (docs/cpu.md#an-avx2-hosts-snippet-sums-in-8-lanes).
"""

from __future__ import annotations

from math import prod

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.attention_node import EXACT_STEP_KEYS, LANES, lane_sum
from irpool.cpu.fma_chains import EXACT_MACS, EXACT_MACS_QUANTIZED, fma_chains
from irpool.cpu.isa import AVX512_CORE, cpu_isa
from irpool.cpu.numerics import F32
from irpool.cpu.vector_exp import vector_exp

SNIPPET_RANKS = (3, 4)  # rank 5 runs as separate MatMul and SoftMax nodes
KEY_BLOCK = 512  # keys per chain of the weights-by-values product
AVX2_LANES = 8  # the exp-sum's lanes with at most AVX2 (a ymm register)


def emulates_snippet(
    query: NDArray[np.float32],
    keys: NDArray[np.float32],
    value: NDArray[np.float32],
    read_by_quantization: bool = False,
) -> bool:
    """Whether `snippet_attention` computes this attention (keys transposed, [..., E, S]):
    a rank the snippet runs, at most `EXACT_MACS` multiply-adds (`EXACT_MACS_QUANTIZED` when
    `read_by_quantization`) and, for one query row (a step, whose FMA chains take a NumPy
    call a key), at most `EXACT_STEP_KEYS` keys."""
    if query.ndim not in SNIPPET_RANKS or not query.ndim == keys.ndim == value.ndim:
        return False
    batch = np.broadcast_shapes(query.shape[:-2], keys.shape[:-2], value.shape[:-2])
    (rows, depth), count = query.shape[-2:], keys.shape[-1]
    macs = prod(batch) * rows * count * (depth + value.shape[-1])
    budget = EXACT_MACS_QUANTIZED if read_by_quantization else EXACT_MACS
    return bool(macs <= budget and (rows > 1 or count <= EXACT_STEP_KEYS))


def snippet_attention(
    query: NDArray[np.float32],
    keys: NDArray[np.float32],
    value: NDArray[np.float32],
    bias: NDArray[np.float32] | None,
    late_scale: np.float32 | None,
    dynamic: bool,
) -> NDArray[np.float32]:
    """softmax(query @ keys (* late_scale) + bias) @ value as the snippet computes it; keys
    [..., E, S] (scaled already unless `late_scale`); `dynamic`: compiled for dynamic
    shapes. For callers that ignore floating-point errors."""
    scores = fma_chains(query, keys, query.shape[-1])
    if late_scale is not None:
        scores *= late_scale
    if bias is not None:
        scores = scores + bias
    powers = vector_exp(scores - np.max(scores, axis=-1, keepdims=True), whole_power=True)
    lanes = LANES if cpu_isa() == AVX512_CORE else AVX2_LANES
    total = lane_sum(powers, tail_in_first_lane=dynamic, lanes_count=lanes)[..., None]
    weights: NDArray[np.float32] = powers * (F32(1) / total)
    return fma_chains(weights, value, KEY_BLOCK)
