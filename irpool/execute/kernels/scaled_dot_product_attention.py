"""ScaledDotProductAttention on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it
(measured, docs/ops/ScaledDotProductAttention.md).

A layer the plugin fuses with its KV cache runs in its attention node, which
irpool.cpu.attention_node computes to the bit on a prompt (several tokens, no past) and on
other steps of a cache held in u8, f16 or f32. Any other layer: the plugin decomposes the op
into MatMul, Multiply, Add, SoftMax and MatMul and runs them fused (its snippet, which
irpool.cpu.attention_snippet computes to the bit for f32 data of rank 3 or 4 within its
limits: multiply-adds, keys of a one-row step); every float type is computed in
f32 (f16 and bf16 widened, f64 saturated to the f32 range) and the result rounded to the
input's type. Here: scores = query @ (key * scale)ᵀ in
f32 when the scale is known at compile time (a constant, or 1/sqrt(E) of a static E), else
(query @ keyᵀ) * scale (a product beyond FLT_MAX is then inf, so NaN, even with a small
scale: measured), the mask added (boolean: 0 where true, -inf where false; causal: -inf above the
diagonal, counted from the top left, or for a step the attention node declines, from the
bottom right as the node counts), so +inf or NaN under a masked position still poisons its
row; softmax along keys as exp(score - row max) times the reciprocal of the row's sum; then
weights @ value. The CPU's exp flushes results below FLT_MIN to 0 (at rank 5, which the
plugin runs through its SoftMax node instead, scores more than 86.98997 below the maximum give
0, as SoftMax's). Non-finite values follow IEEE: a row holding NaN or +inf, or only -inf,
gives NaN in every output element of the row; a zero weight times an infinite value is NaN.
With f64 data the masks' -inf is -FLT_MAX (a row masked out entirely averages value).
The products are BLAS's (engine/blas.py holds its threads), so values are within the
tolerance docs/ops/ScaledDotProductAttention.md states, not bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.attention_node import node_attention
from irpool.cpu.attention_snippet import emulates_snippet, snippet_attention
from irpool.cpu.compilation import attention_runs_softmax_node
from irpool.cpu.kv_cache import GroupedAttention
from irpool.cpu.numerics import EXP_UNDERFLOW, F32, F32_MAX, f32_operand, stored_from_f32
from irpool.execute.engine.blocks import for_each_tile, product_spans
from irpool.execute.engine.scratch import Scratch
from irpool.execute.kernels.mat_mul import f32_product
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.scaled_dot_product_attention import ScaledDotProductAttention13

FLT_MIN = F32(np.finfo(F32).tiny)
# A matrix product x @ y in f32.
Product = Callable[[NDArray[np.float32], NDArray[np.float32]], NDArray[np.float32]]


@kernel_for(ScaledDotProductAttention13)
def run_scaled_dot_product_attention(
    op: ScaledDotProductAttention13,
    inputs: Sequence[NDArray[Any]],
    outputs: Sequence[OutputSpec],
) -> list[NDArray[Any] | None]:
    if isinstance(op, GroupedAttention):  # each cached head read by kv_groups query heads
        repeated = (np.repeat(x, op.kv_groups, axis=-3) for x in inputs[1:3])
        inputs = [inputs[0], *repeated, *inputs[3:]]
    query, key, value = (f32_operand(x) for x in inputs[:3])
    if op.reads_cache and query.ndim == key.ndim == 4:
        mask = None if op.causal or len(inputs) < 4 else inputs[3]
        scale_input = inputs[4] if len(inputs) > 4 else None
        node = node_attention(
            query,
            key,
            value,
            mask,
            scale_input,
            op.causal,
            op.cache_type,
            f32_product,
            op.read_by_quantization,
        )
        if node is not None:
            return [stored_from_f32(node, inputs[0].dtype)]
    if len(inputs) > 4:
        scale = f32_operand(inputs[4]).reshape(-1)[0]
    else:
        scale = F32(1) / np.sqrt(F32(query.shape[-1]))
    # f64 data: the -inf, made in f64, reaches f32 saturated (a row masked out entirely
    # then averages value, measured)
    masked = F32(-F32_MAX) if inputs[0].dtype == np.float64 else F32(-np.inf)
    with np.errstate(all="ignore"):  # inf - inf, 0 * inf: values here, as on the CPU
        keys = (key * scale if op.scales_key else key).swapaxes(-1, -2)
        bias = None
        if op.causal:  # the node counts from the past's end: the queries are the last tokens
            bias = _causal_bias(query.shape[-2], key.shape[-2], masked, op.reads_cache)
        elif len(inputs) > 3:
            bias = _bias(inputs[3], masked)
        late_scale = None if op.scales_key else scale
        snippet_runs = not op.reads_cache and inputs[0].dtype == np.float32
        if snippet_runs and emulates_snippet(query, keys, value, op.read_by_quantization):
            snippet = snippet_attention(query, keys, value, bias, late_scale, op.dynamic_shapes)
            return [snippet]
        exp_floor = not attention_runs_softmax_node(max(query.ndim, key.ndim))
        attend = partial(_attend, late_scale=late_scale, exp_floor=exp_floor)
        attention = _by_row_blocks(query, keys, value, bias, attend)
        if attention is None:
            attention = attend(query, keys, value, bias, f32_product)
    return [stored_from_f32(attention, inputs[0].dtype)]


def _attend(
    query: NDArray[np.float32],
    keys: NDArray[np.float32],
    value: NDArray[np.float32],
    bias: NDArray[np.float32] | None,
    product: Product,
    *,
    late_scale: np.float32 | None,
    exp_floor: bool,
) -> NDArray[np.float32]:
    """softmax(query @ keys (* late_scale) + bias) @ value."""
    scores = product(query, keys)
    if late_scale is not None:
        scores *= late_scale
    if bias is not None:
        scores = scores + bias
    return product(_softmax(scores, exp_floor), value)


def _by_row_blocks(
    query: NDArray[np.float32],
    keys: NDArray[np.float32],
    value: NDArray[np.float32],
    bias: NDArray[np.float32] | None,
    attend: Callable[..., NDArray[np.float32]],  # _attend, its scale and softmax given
) -> NDArray[np.float32] | None:
    """The attention of each head and span of query rows (`product_spans` of the scores'
    product, the same whatever the thread count) on its own, shared by the run's threads:
    its scores stay in the cache instead of a [heads, rows, keys] array going through
    memory (54 MB in a Whisper encoder layer). None for a product of one span, or heads
    that broadcast."""
    batch, (rows, depth) = query.shape[:-2], query.shape[-2:]
    if not batch or keys.shape[:-2] != batch or value.shape[:-2] != batch:
        return None
    macs = prod(batch) * rows * keys.shape[-1] * depth
    spans = product_spans(rows, macs)
    if len(spans) == 1:
        return None
    attention = np.empty((*batch, rows, value.shape[-1]), F32)
    full_bias = None if bias is None else np.broadcast_to(bias, (*batch, rows, keys.shape[-1]))

    def block(piece: tuple[int, tuple[int, int]], _: Scratch) -> None:
        head, (first, last) = piece
        at = np.unravel_index(head, batch)
        rows_bias = None if full_bias is None else full_bias[at][first:last]
        with np.errstate(all="ignore"):
            rows_query = query[at][first:last]
            attention[at][first:last] = attend(
                rows_query, keys[at], value[at], rows_bias, _one_call
            )

    pieces = [(head, span) for head in range(prod(batch)) for span in spans]
    for_each_tile(pieces, block, macs)
    return attention


def _one_call(x: NDArray[np.float32], y: NDArray[np.float32]) -> NDArray[np.float32]:
    """x @ y into zeros (no BLAS path reads NaN from uninitialized memory), as one call."""
    result = np.zeros((x.shape[0], y.shape[1]), F32)
    np.matmul(x, y, out=result)
    return result


def _bias(mask: NDArray[Any], masked: np.float32) -> NDArray[np.float32]:
    if mask.dtype == np.bool_:
        return np.where(mask, F32(0), masked)
    return f32_operand(mask)


def _causal_bias(length: int, keys: int, masked: np.float32, from_end: bool) -> NDArray[np.float32]:
    """`masked` above the diagonal, counted from the top left or, `from_end`, the bottom right."""
    above = np.triu(np.ones((length, keys), np.bool_), k=1 + (keys - length if from_end else 0))
    return np.where(above, masked, F32(0))


def _softmax(scores: NDArray[np.float32], exp_floor: bool) -> NDArray[np.float32]:
    """Softmax along the last axis, as the CPU computes it (a new array)."""
    shifted = scores - np.max(scores, axis=-1, keepdims=True)
    if exp_floor:
        powers = np.exp(shifted, out=shifted)
        powers[powers < FLT_MIN] = 0
    else:
        underflow = shifted < EXP_UNDERFLOW
        powers = np.exp(shifted, out=shifted)
        powers[underflow] = 0
    powers *= F32(1) / np.sum(powers, axis=-1, keepdims=True)
    weights: NDArray[np.float32] = powers
    return weights
