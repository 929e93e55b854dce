"""The CPU plugin's attention node, which runs a ScaledDotProductAttention fused with its KV
cache (irpool.cpu.kv_cache), as `node_attention` computes it: a prompt (several tokens, the
past empty) through its MLAS kernel, any other step through its single-token kernel, which
reads a cache held in u8, f16 or f32 as its values read back in f32
(docs/ops/ScaledDotProductAttention.md, "The attention node").

On a prompt, each head's query rows go in blocks of 4 through MLAS's sgemm twice
(irpool.cpu.attention_mlas):
- scores = query @ keyᵀ: each element a chain of FMAs over E from 0 (MLAS's K blocks, each
  from 0, added); a block of one row runs MLAS's M=1 AVX kernel instead: products and sums
  rounded apart in 8 lanes over E, reduced by the key's place among groups of 4.
- a = scores * scale + mask, each rounded: the scale input, or 1/sqrt(E) computed in f32
  when there is none or it is 0; a boolean mask adds 0 or -FLT_MAX, `causal` -inf above the
  diagonal.
- softmax along the keys: the row's max (from -FLT_MAX), e = the CPU's exp polynomial of
  a - max (irpool.cpu.vector_exp: 0 below ln FLT_MIN), summed in 16 lanes whose halves are
  then added (`lane_sum`); weights e * (1/sum), all 0 where the sum is 0 (a row masked by -inf).
- output = weights @ value: FMA chains over the keys as above; one row by MLAS's M=1 kernel,
  groups of 4 keys summed, then added to the running sum.
A step: the same scale, mask and softmax between `_cached_dot`'s scores and FMA chains over
the keys. Up to `EXACT_MACS` multiply-adds (`EXACT_MACS_QUANTIZED` where an int8 quantization
of activations reads the output) the products are so emulated and the output is the node's
bits; beyond, BLAS computes a prompt's (within the op's tolerance) and the rest is the same,
and a step runs as the op's snippet, as does a step past `EXACT_STEP_KEYS` keys.
Measured 2026-12-07 (AMD EPYC family 25 model 17, 2 cores, AVX-512, OpenVINO 2026.4.1).
The node's kernels follow the CPU's flags, not ONEDNN_MAX_CPU_ISA (irpool.cpu.isa.
host_cpu_isa); on an AVX2 host (AMD EPYC family 25 model 1, measured 2026-12-07) the
softmax sums in 8 lanes added in neighbouring pairs (`_pairs_added`), a step's dot chains in
8 lanes added by halves then pairs (`_halves_added`), and a u8 key's scores come from its
codes (`_u8_dot`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.attention_mlas import mlas_product
from irpool.cpu.fma_chains import EXACT_MACS, EXACT_MACS_QUANTIZED
from irpool.cpu.isa import AVX512_CORE, host_cpu_isa
from irpool.cpu.kv_cache import held_u8_parameters
from irpool.cpu.numerics import F32, F32_MAX, f32_operand
from irpool.cpu.vector_exp import vector_exp

# Cache types whose held values (a u8 cache's read back) the single-token kernel reads as f32.
READ_AS_HELD = frozenset({"u8", "f16", "f32"})
# A step's FMA chains take a NumPy call a key (about 5 us with its scores): beyond so many
# keys a step runs as the snippet, so a long generation's steps do not grow by that per layer.
EXACT_STEP_KEYS = 256
LANES = 16  # the AVX-512 exp-sum's lanes
AVX2_LANES = 8  # an AVX2 host's (a ymm register)
_ADDED_APART = 16  # up to so many chunks of lanes are added one call each, not accumulated
# A matrix product x @ y in f32 (the run's BLAS).
Product = Callable[[NDArray[np.float32], NDArray[np.float32]], NDArray[np.float32]]


def node_attention(
    query: NDArray[np.float32],
    key: NDArray[np.float32],
    value: NDArray[np.float32],
    mask: NDArray[Any] | None,
    scale: NDArray[Any] | None,
    causal: bool,
    cache_type: str | None,
    blas: Product,
    read_by_quantization: bool = False,
) -> NDArray[np.float32] | None:
    """The node's attention of query [B, H, L, E], key [B, H, S, E] and value [B, H, S, Ev]
    (S counts the past), with the layer's mask and scale inputs if any and its cache held in
    `cache_type`; `blas` computes a prompt's products beyond `EXACT_MACS`
    (`EXACT_MACS_QUANTIZED` when `read_by_quantization`). None for a step irpool does not
    emulate: a cache type not in `READ_AS_HELD`, E not a multiple of 16, more multiply-adds
    than that or more than `EXACT_STEP_KEYS` keys."""
    rows, depth = query.shape[-2:]
    keys = key.shape[-2]
    prompt = 1 < rows == keys
    batch = query.shape[:-2]
    if batch != key.shape[:-2]:  # np.broadcast_shapes costs microseconds
        batch = np.broadcast_shapes(batch, key.shape[:-2])
    macs = prod(batch) * rows * keys
    budget = EXACT_MACS_QUANTIZED if read_by_quantization else EXACT_MACS
    exact = macs * (depth + value.shape[-1]) <= budget
    emulated = exact and keys <= EXACT_STEP_KEYS
    if not prompt and not (cache_type in READ_AS_HELD and depth % node_lanes() == 0 and emulated):
        return None
    with np.errstate(all="ignore"):
        if not prompt:
            stepped = _step_scores(query, key, cache_type, batch)
            if stepped is None:
                return None
            scores = stepped
        elif exact:
            scores = mlas_product(query, np.swapaxes(key, -1, -2), True)
        else:
            scores = blas(query, np.swapaxes(key, -1, -2))
        scores = scores * _factor(scale, depth)
        bias = _bias(mask, causal, rows, keys)
        if bias is not None:
            scores = scores + bias
        weights = node_softmax(scores)
        if not prompt:
            return _step_chains(weights, value, batch)
        return mlas_product(weights, value, False) if exact else blas(weights, value)


def _step_scores(
    query: NDArray[np.float32], key: NDArray[np.float32], cache_type: str | None, batch: Any
) -> NDArray[np.float32] | None:
    """A step's query @ keyᵀ: `_cached_dot`, or on an AVX2 host a u8 key's codes, zero points
    and scales as its kernel reads them (`_u8_dot`; None where irpool does not know them)."""
    if cache_type != "u8" or node_lanes() != AVX2_LANES:
        return _cached_dot(query, key, batch)
    parameters = held_u8_parameters(key)
    if parameters is None:
        return None
    return _u8_dot(query, key, *parameters, batch)


def _u8_dot(
    query: NDArray[np.float32],
    key: NDArray[np.float32],
    zero_point: NDArray[np.float32],
    scale: NDArray[np.float32],
    batch: tuple[int, ...],
) -> NDArray[np.float32] | None:
    """query @ keyᵀ of a u8-held key ([..., keys, E], its zero points and scales [..., keys])
    as an AVX2 host's single-token kernel computes it: the codes' `_cached_dot`, less the zero
    point times the query's sum (8 lanes, E's chunks added in order, `_halves_added`) in one
    rounding (an FMA), times the scale. None where the codes are not the held values' own."""
    zero, step = zero_point[..., None], scale[..., None]
    codes = np.rint(key.astype(np.float64) / step + zero).astype(F32)
    if not np.array_equal(((codes - zero) * step).astype(F32), key):
        return None
    chunks = query.reshape(*query.shape[:-1], -1, AVX2_LANES)
    lanes = chunks[..., 0, :].copy()
    for chunk in range(1, chunks.shape[-2]):
        lanes += chunks[..., chunk, :]
    total = _halves_added(lanes, axis=-1).astype(np.float64)[..., None]
    inner = _cached_dot(query, codes, batch) - zero_point[..., None, :].astype(np.float64) * total
    scores: NDArray[np.float32] = scale[..., None, :] * inner.astype(F32)
    return scores


def _cached_dot(
    query: NDArray[np.float32], key: NDArray[np.float32], batch: tuple[int, ...]
) -> NDArray[np.float32]:
    """query @ keyᵀ as the single-token kernel's dot_product: FMA chains in `node_lanes` lanes,
    the chunks of each whole 4 chunks to 4 accumulators in turn and the rest to the first, the
    accumulators added ((a0 + a1) + a2) + a3, then the lanes as `lane_sum` adds them (AVX2:
    `_halves_added`)."""
    rows, depth = query.shape[-2:]
    width = node_lanes()
    keys, chunks = key.shape[-2], depth // width
    started = 4 if chunks >= 4 else 1  # the chunks of the first round, whose chains start at 0
    scores = (*batch, rows, keys)
    if chunks == 4:
        return _first_round_dot(query, key, scores, width)
    # Every product exact in f64 (NumPy's f64 loop, not a casting one), into kept buffers.
    wide_key = _buffers.array("wide key", key.shape, np.float64)
    np.copyto(wide_key, key)
    products = np.multiply(
        query.astype(np.float64)[..., :, None, :],
        wide_key[..., None, :, :],
        out=_buffers.array("products", (*scores, depth), np.float64),
    ).reshape(*scores, chunks, width)
    # A chain's first FMA adds to 0: the product rounded once, as f32 by f32 gives it.
    accumulators = _buffers.array("accumulators", (*scores, started, width), F32)
    np.copyto(accumulators, products[..., :started, :], casting="same_kind")
    whole = chunks // 4 * 4
    if whole > 4:
        sums = _buffers.array("round sums", accumulators.shape, np.float64)
        for round_start in range(4, whole, 4):
            np.add(products[..., round_start : round_start + 4, :], accumulators, out=sums)
            np.copyto(accumulators, sums, casting="same_kind")
    summed = accumulators[..., 0, :]
    if chunks > max(whole, 1):
        sum_of_first = _buffers.array("first sums", summed.shape, np.float64)
        for chunk in range(max(whole, 1), chunks):  # the rest on the first accumulator
            np.add(products[..., chunk, :], summed, out=sum_of_first)
            np.copyto(summed, sum_of_first, casting="same_kind")
    for other in range(1, started):
        summed += accumulators[..., other, :]
    # The lanes first (a copy of the fewest values), so the halves add whole rows; the
    # accumulators a chain leaves at 0 add +0 (once is as thrice).
    lanes = _buffers.array("lanes", (width, prod(scores)), F32)
    flat = summed.reshape(-1, width).T
    if started < 4:
        np.add(flat, F32(0), out=lanes)
    else:
        np.copyto(lanes, flat)
    if width == AVX2_LANES:
        return _halves_added(lanes).reshape(scores)
    return _lanes_added(lanes).reshape(scores)


def _first_round_dot(
    query: NDArray[np.float32], key: NDArray[np.float32], scores: tuple[int, ...], width: int
) -> NDArray[np.float32]:
    """`_cached_dot` of 4 chunks (E of 32 on AVX2, 64 on AVX-512): every chain is one FMA onto
    0, the product rounded once, which f32 by f32 gives; the accumulators and lanes added in
    f32 along the last axis, with no f64 products nor lanes-first copy (7 or 8 NumPy calls)."""
    products = np.multiply(
        query[..., :, None, :],
        key[..., None, :, :],
        out=_buffers.array("f32 products", (*scores, 4 * width), F32),
    ).reshape(*scores, 4, width)
    summed = np.add(
        products[..., 0, :], products[..., 1, :], out=_buffers.array("sums", (*scores, width), F32)
    )
    summed += products[..., 2, :]
    summed += products[..., 3, :]
    if width == AVX2_LANES:
        return _halves_added(summed, axis=-1)
    return _lanes_added(summed, axis=-1)


def _step_chains(
    weights: NDArray[np.float32], value: NDArray[np.float32], batch: tuple[int, ...]
) -> NDArray[np.float32]:
    """weights @ value as `fma_chains` sums it in one block of all the keys (up to
    `EXACT_STEP_KEYS`), its products and chains in kept buffers."""
    rows, keys = weights.shape[-2:]
    shape = (*batch, rows, value.shape[-1])
    last = weights.ndim - 1  # the keys' axis first (np.moveaxis costs microseconds)
    products = np.multiply(  # [keys, ..., L, Ev]: each key's a contiguous array
        weights.transpose(last, *range(last))[..., None],
        value.transpose(last - 1, *range(last - 1), last)[..., None, :],
        out=_buffers.array("products", (keys, *shape), np.float64),
        dtype=np.float64,
    )
    chain = _buffers.array("chain", (prod(shape),), F32)
    wide = _buffers.array("wide chain", chain.shape, np.float64)
    wide[...] = 0
    add = np.add  # a call a key: the out argument by place, not by name, costs less
    for product in list(products.reshape(keys, -1)):
        add(product, wide, wide)  # summed in f64, rounded as an FMA rounds
        chain[...] = wide
        wide[...] = chain
    return chain.reshape(shape).copy()


class _Buffers(threading.local):
    """A thread's work buffers, kept across calls: fresh ones of a long cache's size (half a
    MiB at 256 keys) cost page faults at every call, several times their arithmetic."""

    def __init__(self) -> None:
        self.held: dict[str, NDArray[Any]] = {}
        self.views: dict[str, NDArray[Any]] = {}  # the last view of each: a step's shapes

    def array(self, name: str, shape: tuple[int, ...], dtype: type[Any]) -> NDArray[Any]:
        """A buffer of this shape (one dtype per name), its values undefined; beyond
        `_KEPT_BYTES` a fresh one, so a large model's steps hold no more memory after them."""
        view = self.views.get(name)
        if view is not None and view.shape == shape:
            return view
        size = prod(shape)
        if size * np.dtype(dtype).itemsize > _KEPT_BYTES:
            return np.empty(shape, dtype)
        buffer = self.held.get(name)
        if buffer is None or buffer.size < size:
            buffer = self.held[name] = np.empty(size, dtype)
        view = self.views[name] = buffer[:size].reshape(shape)
        return view


_KEPT_BYTES = 4 << 20  # a buffer's most a thread keeps (8 heads of 32 at 256 keys: 0.5 MiB)
_buffers = _Buffers()


def _factor(scale: NDArray[Any] | None, depth: int) -> np.float32:
    """The scale input, or 1/sqrt(E) computed in f32 where there is none or it is 0 (in
    double it would be a last bit apart for E 96 and 112)."""
    given = F32(0) if scale is None else f32_operand(scale).reshape(-1)[0]
    return given if given != 0 else F32(1) / np.sqrt(F32(depth))


def _bias(mask: NDArray[Any] | None, causal: bool, rows: int, keys: int) -> NDArray[Any] | None:
    """What the scores get added: `causal`, -inf past each query's place counted from the
    keys' end (the past's); a boolean mask 0 or -FLT_MAX; a float mask itself."""
    if causal:
        seen = np.arange(keys) <= np.arange(rows)[:, None] + (keys - rows)
        return np.where(seen, F32(0), F32(-np.inf))
    if mask is None:
        return None
    if mask.dtype == np.bool_:
        return np.where(mask, F32(0), F32(-F32_MAX))
    return f32_operand(mask)


def node_lanes() -> int:
    """The lanes of the node's vector sums: 16 on an AVX-512 host, 8 on an AVX2 one (by the
    CPU's flags, not ONEDNN_MAX_CPU_ISA: irpool.cpu.isa.host_cpu_isa)."""
    return LANES if host_cpu_isa() == AVX512_CORE else AVX2_LANES


def node_softmax(scores: NDArray[np.float32]) -> NDArray[np.float32]:
    """Softmax along the last axis as the node's kernel computes it (a new array)."""
    top = np.maximum(np.max(scores, axis=-1, keepdims=True), F32(-F32_MAX))
    powers = vector_exp(scores - top)
    lanes = node_lanes()
    total = lane_sum(powers, lanes_count=lanes, pairs=lanes == AVX2_LANES)[..., None]
    weights: NDArray[np.float32] = powers * (F32(1) / total)
    if not total.all():
        weights[np.broadcast_to(total == 0, weights.shape)] = 0
    return weights


def lane_sum(
    powers: NDArray[np.float32],
    tail_in_first_lane: bool = False,
    lanes_count: int = LANES,
    pairs: bool = False,
) -> NDArray[np.float32]:
    """Σ along the last axis: `lanes_count` lanes (16, or AVX2's 8), each summed in order, the
    tail of fewer than that added to the first lanes (`tail_in_first_lane`: all to the first,
    in order), then halves added down to 4 lanes, those as (0 + 2) + (1 + 3) (GCC's
    _mm512_reduce_add_ps, the snippet's horizontal sum); `pairs`: 8 lanes as the node's AVX2
    `hsum` adds them (`_pairs_added`)."""
    length = powers.shape[-1]
    body = length // lanes_count * lanes_count
    lanes = np.zeros((*powers.shape[:-1], lanes_count), F32)
    if body > lanes_count * (1 if pairs else _ADDED_APART):  # AVX2: its NumPy calls cost more
        chunks = powers[..., :body].reshape(*powers.shape[:-1], body // lanes_count, lanes_count)
        lanes = np.add.accumulate(chunks, axis=-2)[..., -1, :]
    elif body:  # the same sums in fewer NumPy calls
        lanes = powers[..., :lanes_count].copy()
        for start in range(lanes_count, body, lanes_count):
            lanes += powers[..., start : start + lanes_count]
    if tail_in_first_lane:
        for place in range(body, length):
            lanes[..., 0] += powers[..., place]
    elif length > body:
        lanes[..., : length - body] += powers[..., body:]
    if pairs:
        return _pairs_added(lanes)
    return _lanes_added(lanes, axis=-1)


def _lanes_added(lanes: NDArray[np.float32], axis: int = 0) -> NDArray[np.float32]:
    """The lanes (`axis`: 0 or -1) added as a horizontal sum adds them: halves down to 4
    lanes, those as (0 + 2) + (1 + 3)."""
    while lanes.shape[axis] > 4:
        half = lanes.shape[axis] // 2
        lanes = lanes[_along(axis, slice(half, None))] + lanes[_along(axis, slice(None, half))]
    pairs = lanes[_along(axis, slice(0, 2))] + lanes[_along(axis, slice(2, 4))]
    result: NDArray[np.float32] = pairs[_along(axis, 0)] + pairs[_along(axis, 1)]
    return result


def _along(axis: int, index: int | slice) -> tuple[Any, ...]:
    """The index `index` along the first (`axis` 0) or the last (-1) axis."""
    return (index,) if axis == 0 else (..., index)


def _pairs_added(lanes: NDArray[np.float32]) -> NDArray[np.float32]:
    """8 lanes (the last axis) added as the node's AVX2 `hsum` adds them: neighbours within
    each 128-bit half, ((0 + 1) + (2 + 3)) + ((4 + 5) + (6 + 7)), three NumPy calls."""
    pairs = lanes[..., 0::2] + lanes[..., 1::2]
    quads = pairs[..., 0::2] + pairs[..., 1::2]
    result: NDArray[np.float32] = quads[..., 0] + quads[..., 1]
    return result


def _halves_added(lanes: NDArray[np.float32], axis: int = 0) -> NDArray[np.float32]:
    """8 lanes (`axis`: 0 or -1) added as the AVX2 single-token dot product adds them: lane
    i + 4 to lane i, then those 4 as (0 + 1) + (2 + 3) (two horizontal adds)."""
    half = lanes[_along(axis, slice(4, None))] + lanes[_along(axis, slice(None, 4))]
    pairs = half[_along(axis, slice(0, None, 2))] + half[_along(axis, slice(1, None, 2))]
    result: NDArray[np.float32] = pairs[_along(axis, 0)] + pairs[_along(axis, 1)]
    return result
