"""MatMul on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it (measured,
docs/ops/MatMul.md#numerics-and-tolerances).

Floats are multiplied in f32 (f16 and bf16 widened, f64 saturated to the f32 range, as the
elementwise ops take them) by NumPy's matmul, which hands 2-D and stacked products to BLAS
(sgemm, sgemv): the CPU's accumulation order is its own, so the result is within
1e-6 * sum(|a * b|) of the CPU's, not bit for bit; non-finite values are IEEE's and stay in
the outputs whose dot product holds them (0 * inf is NaN). A product by compressed weights
whose activations the CPU quantizes is summed as the CPU sums it, bit for bit
(`product_by_quantized`), and one whose grouped weights it sums as one FMA chain over K
likewise (`product_by_compressed`). Integers are wrapped to int32,
multiplied in f32 as the CPU does (exact while sums stay below 2**24), saturated to
[-2**31, 2147483520] and stored as the elementwise ops store theirs: 8-bit types saturate,
wider ones wrap. Booleans are true where
a product is.

A large product is cut into spans of output rows or columns fixed by its shape, which the
run's threads (IRPOOL_THREADS) share, BLAS on one thread (engine/blocks.py): the values are
the same bits whatever the thread count.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.compressed_weights import chain_block, sums_in_one_chain
from irpool.cpu.fma_chains import EXACT_MACS, fma_chains
from irpool.cpu.numerics import f32_operand, stored_from_f32_product
from irpool.execute.compressed import LANE_BITS, CompressedWeights
from irpool.execute.engine import blas
from irpool.execute.engine.blocks import for_each_tile, product_spans
from irpool.execute.engine.costs import CHUNK_BYTES, TILE_MACS
from irpool.execute.engine.scratch import Scratch, Slot
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.mat_mul import MatMul1


@kernel_for(MatMul1)
def run_matmul(
    op: MatMul1, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    dtype = inputs[0].dtype
    x = _transposed(_as_f32(inputs[0]), op.transposes[0])
    if op.activation_group is not None and op.compressed_weights is not None:
        product = product_by_quantized(x, op.activation_group, op.compressed_weights)
    elif op.compressed_weights is not None:
        product = product_by_compressed(x, op.compressed_weights)
    elif op.activation_group is not None:
        product = f32_product(
            quantized_activations(x, op.activation_group),
            _transposed(_as_f32(inputs[1]), op.transposes[1]),
        )
    else:
        product = f32_product(x, _transposed(_as_f32(inputs[1]), op.transposes[1]))
    if op.int8_saturation is not None:
        product += op.int8_saturation(x)
    if dtype == np.float32:
        return [product]
    if dtype == np.bool_:
        return [product != 0]
    with np.errstate(over="ignore"):  # beyond f16: inf, as on CPU
        return [stored_from_f32_product(product, dtype)]


def quantized_activations(x: NDArray[np.float32], group: int) -> NDArray[np.float32]:
    """`x` as the CPU quantizes the activations of a MatMul by compressed weights: to int8,
    symmetric, one scale max|x| / 127 per `group` elements along K, each element times the
    scale's f32 reciprocal (not divided by it: a value near a tie rounds as the CPU's does),
    rounded to nearest even; a K not a multiple of `group` ends in a shorter group
    (irpool/cpu/compressed_weights.py)."""
    steps, scale = activation_steps(x, group)
    quantized: NDArray[np.float32] = (steps * scale).reshape(*x.shape[:-1], -1)
    return quantized[..., : x.shape[-1]]


def activation_steps(
    x: NDArray[np.float32], group: int
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """`quantized_activations`' int8 steps ([..., G, group]) and scales ([..., G, 1]), G =
    ceil(K / group): a shorter last group is padded with zeros, which leave its scale and
    its sums as they are, and its ties round away from zero (the CPU's, measured)."""
    short = -x.shape[-1] % group
    if short:
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, short)])
    groups = x.reshape(*x.shape[:-1], x.shape[-1] // group, group)
    scale = np.abs(groups).max(axis=-1, keepdims=True) / np.float32(127)
    with np.errstate(invalid="ignore", divide="ignore"):  # a group of zeros stays zeros
        reciprocal = np.float32(1) / scale
        scaled = groups * reciprocal
        rounded = np.round(scaled)
        if short:
            tail = scaled[..., -1, :]
            whole = np.trunc(tail)  # tail - whole is exact: a tie is exactly 0.5 from it
            rounded[..., -1, :] = np.where(
                np.abs(tail - whole) == 0.5, whole + np.sign(tail), rounded[..., -1, :]
            )
        steps = np.where(scale > 0, rounded, 0).astype(np.float32)
    return steps, scale


_SHARED_STEPS = 1 << 16  # the most activations whose steps the next product may reuse
_last_steps = threading.local()


def _steps_by_group(
    flat_x: NDArray[np.float32], group: int, word_type: np.dtype[Any]
) -> tuple[NDArray[Any], NDArray[np.float32]]:
    """`activation_steps` of [M, K] `flat_x` as [G, 32, M] in `word_type`, and their scales
    as [G, 1, 1, M]: the previous product's on this thread when its activations had the same
    bits (a layer's q, k and v projections read one input, as do gate and up)."""
    last = getattr(_last_steps, "value", None)
    if (
        last is not None
        and last[0].shape == flat_x.shape
        and last[1] == (group, word_type)
        and np.array_equal(last[0].view(np.uint32), flat_x.view(np.uint32))
    ):
        return last[2], last[3]
    steps, scale = activation_steps(flat_x, group)  # [M, G, 32], [M, G, 1]
    by_group = np.ascontiguousarray(steps.transpose(1, 2, 0), word_type)
    scales = scale.transpose(1, 2, 0)[:, None]
    if flat_x.size <= _SHARED_STEPS:
        _last_steps.value = (flat_x.copy(), (group, word_type), by_group, scales)
    return by_group, scales


_last_product = threading.local()


def _rows_of_joined(
    x: NDArray[np.float32], group: int, weights: CompressedWeights
) -> NDArray[np.float32]:
    """`product_by_quantized` by weights joined with others' (`CompressedWeights.fused`): its
    rows of the joined product, which is computed once for all the MatMuls of the joined
    weights and kept on this thread until each took its rows (or another replaced it): the
    same bits, as each output is computed alone."""
    assert weights.fused is not None
    whole, first = weights.fused.whole, weights.fused.first
    last = getattr(_last_product, "value", None)
    if (
        last is None
        or last[0] is not whole
        or last[1].shape != x.shape
        or not np.array_equal(last[1].view(np.uint32), x.view(np.uint32))
    ):
        last = [whole, x.copy(), product_by_quantized(x, group, whole), set()]
        _last_product.value = last
    taken: set[int] = last[3]
    taken.add(first)
    rows: NDArray[np.float32] = np.array(last[2][..., first : first + weights.rows])
    if len(taken) == weights.fused.sharers:
        _last_product.value = None
    return rows


def product_by_quantized(
    x: NDArray[np.float32], group: int, weights: CompressedWeights
) -> NDArray[np.float32]:
    """x @ weights.T as the CPU computes it when it quantizes x (`quantized_activations`):
    per group of K, the steps times the weights' codes (quantized minus zero point) summed
    exactly, times the group's activation scale in f32, then added into the f32 result by
    one FMA with the weights' scale, group after group from the first (measured bit for bit,
    docs/compressed-weights.md#the-products-sums). Each output is so computed alone: the
    spans of words of weight rows (which bound the f64 products held, and which threads
    share) do not change its bits."""
    if weights.fused is not None:
        return _rows_of_joined(x, group, weights)
    flat_x = x.reshape(-1, weights.depth)
    lanes, words = weights.lanes, weights.words
    word_type = np.dtype(np.float64 if lanes > 1 else np.float32)
    by_group, activation_scales = _steps_by_group(flat_x, group, word_type)
    groups, count = by_group.shape[0], flat_x.shape[0]
    per_scale = groups * weights.group // weights.depth  # activation groups per weight scale
    result = np.zeros((*x.shape[:-1], weights.rows), np.float32)
    flat = result.reshape(count, weights.rows)
    span = max(1, CHUNK_BYTES // (8 * groups * count * lanes))
    spans = [(start, min(words, start + span)) for start in range(0, words, span)]

    def tile(span: tuple[int, int], scratch: Scratch) -> None:
        start, stop = span  # words: each holds `lanes` rows, `words` apart
        shape = (groups, lanes, stop - start, count)
        sums = scratch.array(Slot.GROUP_SUMS, shape, np.dtype(np.float32))
        if weights.held_codes is not None and lanes > 1:
            words_shape = (groups, stop - start, count)
            packed = scratch.array(Slot.PACKED_SUMS, words_shape, np.dtype(np.float64))
            spare = scratch.array(Slot.PACKED_SUMS, words_shape, np.dtype(np.float64), 1)
            # integers below 2**51 (each field below 2**16 in size): exact in f64, in any
            # order; one row of activations: NumPy's einsum streams the words faster
            codes = weights.held_codes[:, start:stop]
            if count == 1:
                np.einsum("gwk,gk->gw", codes, by_group[:, :, 0], out=packed[:, :, 0])
            else:
                np.matmul(codes, by_group, out=packed)
            split_fields(packed, sums, spare)
        elif weights.held_codes is not None:
            np.matmul(weights.held_codes[:, start:stop], by_group, out=sums[:, 0])
        else:
            _kept_group_sums(weights, span, by_group, sums[:, 0], scratch)
        np.multiply(sums, activation_scales, out=sums)  # rounded to f32, as the CPU's
        products = scratch.array(Slot.GROUP_PRODUCTS, shape, np.dtype(np.float64))
        # times the weights' scale: exact in f64 (two f32 significands); widened first, as
        # a multiply of mixed types costs more than a copy and one of f64 alone
        np.copyto(products, sums)
        by_scale = products.reshape(-1, per_scale, *shape[1:])
        np.multiply(by_scale, weights.scale_by_group(start, stop)[:, None, :, :, None], by_scale)
        total = np.zeros(shape[1:], np.float32)
        wide = scratch.array(Slot.WIDE_TOTAL, shape[1:], np.dtype(np.float64))
        wide[...] = 0
        for addend in products:  # each sum rounded once to the f32 total: the CPU's FMA
            np.add(addend, wide, out=wide)
            total[...] = wide  # rounded to f32 (an assignment casts faster than a ufunc)
            wide[...] = total
        for lane in range(lanes):
            first, last = lane * words + start, min(weights.rows, lane * words + stop)
            flat[:, first:last] = total[lane, : max(0, last - first)].T

    with np.errstate(all="ignore"):  # inf and NaN are values here
        for_each_tile(spans, tile, count * weights.rows * weights.depth)
    return result


def _kept_group_sums(
    weights: CompressedWeights,
    span: tuple[int, int],
    by_group: NDArray[np.float32],
    out: NDArray[np.float32],
    scratch: Scratch,
) -> None:
    """`product_by_quantized`'s group sums ([G, rows, M] into `out`) of rows [span) of weights
    kept as the `.bin` holds them, unpacked a block of rows at a time: the steps times the
    quantized values, less each zero point times the group's steps' sum (every term an
    integer below 2**24: exact in f32, the sums of the codes; subtracting the zero points
    from the weights instead takes a pass over every weight)."""
    start, stop = span
    step_sums = by_group.sum(axis=1) if weights.zero_point is not None else None  # [G, M]
    for first in range(start, stop, weights.block_rows):
        last = min(stop, first + weights.block_rows)
        buffer = scratch.array(
            Slot.WEIGHTS, (last - first, weights.code_depth), np.dtype(np.float32)
        )
        levels = weights.grouped_codes(first, last, buffer, less_zero_point=False)
        sums = out[:, first - start : last - start]
        np.matmul(levels, by_group, out=sums)  # |steps| <= 127, |levels| <= 255, 32 terms
        if step_sums is not None:
            sums -= weights.zero_point_by_group(first, last)[:, :, None] * step_sums[:, None, :]


def split_fields(
    packed: NDArray[np.float64], out: NDArray[np.float32], spare: NDArray[np.float64]
) -> None:
    """The integer fields of `packed` (each below 2**16 in size, LANE_BITS apart, the
    compressed.LANES rows of a word) into out[:, lane]; `packed` is used up. From the top,
    each field is the word less the fields above it, over its unit, rounded: exact, as the
    fields below it sum to less than half the unit."""
    for lane in range(out.shape[1] - 1, 0, -1):
        unit = 2.0 ** (LANE_BITS * lane)
        np.multiply(packed, 1 / unit, out=spare)
        np.rint(spare, out=spare)
        out[:, lane] = spare
        np.multiply(spare, unit, out=spare)
        np.subtract(packed, spare, out=packed)
    out[:, 0] = packed


def product_by_compressed(
    x: NDArray[np.float32], weights: CompressedWeights
) -> NDArray[np.float32]:
    """x @ weights.T, a block of weight rows (output columns) at a time, each decompressed
    into the thread's buffer unless held so: the blocks depend on the weights' shape alone,
    so the bits do not depend on the thread count or on how the weights are held. Each
    output one FMA chain over K where the CPU sums so (`sums_in_one_chain`) and the product
    is at most `EXACT_MACS` multiply-adds, else BLAS."""
    result = np.zeros((*x.shape[:-1], weights.rows), np.float32)
    flat_x, flat = x.reshape(-1, weights.depth), result.reshape(-1, weights.rows)
    macs = flat_x.shape[0] * weights.rows * weights.depth
    chained = macs <= EXACT_MACS and sums_in_one_chain(
        weights.element_type, flat_x.shape[0], weights.depth, weights.group
    )  # the chains emulated up to EXACT_MACS (a call per K), BLAS beyond
    step = weights.block_rows
    blocks = [(start, min(weights.rows, start + step)) for start in range(0, weights.rows, step)]

    def tile(span: tuple[int, int], scratch: Scratch) -> None:
        start, stop = span
        buffer = scratch.array(Slot.WEIGHTS, (stop - start, weights.depth), np.dtype(np.float32))
        block = weights.block(start, stop, buffer).T
        chains = fma_chains(flat_x, block, chain_block(weights.depth)) if chained else None
        flat[:, start:stop] = flat_x @ block if chains is None else chains

    with np.errstate(all="ignore"):  # inf and NaN are values here
        for_each_tile(blocks, tile, macs)
    return result


def _as_f32(values: NDArray[Any]) -> NDArray[np.float32]:
    return values.astype(np.float32) if values.dtype == np.bool_ else f32_operand(values)


def _transposed(values: NDArray[np.float32], transpose: bool) -> NDArray[np.float32]:
    """A transposed view (BLAS reads it without a copy); a 1-D input is never transposed."""
    return values.swapaxes(-1, -2) if transpose and values.ndim > 1 else values


def f32_product(x: NDArray[np.float32], y: NDArray[np.float32]) -> NDArray[np.float32]:
    """x @ y in f32 into zeros, so that no BLAS path can read NaN from uninitialized memory;
    a large product cut into spans of its longer output axis, rows or columns (the same
    whatever the thread count)."""
    rows = x.shape[-2:-1] if x.ndim > 1 else ()
    columns = y.shape[-1:] if y.ndim > 1 else ()
    result = np.zeros((*_batch_shape(x.shape[:-2], y.shape[:-2]), *rows, *columns), np.float32)
    macs = result.size * x.shape[-1]
    if macs < TILE_MACS:  # one piece (product_spans'), computed here without the pool
        return _small_product(x, y, result, macs)
    by_rows = bool(rows) and (not columns or rows[0] >= columns[0])
    if by_rows:
        cuts = product_spans(rows[0], macs)
    else:  # columns, or a dot product of two vectors: one piece
        cuts = product_spans(columns[0], macs) if columns else [(0, 1)]

    def tile(span: tuple[int, int], scratch: Scratch) -> None:
        if len(cuts) == 1:
            np.matmul(x, y, out=result)
        elif by_rows:
            cut = slice(*span)
            np.matmul(x[..., cut, :], y, out=result[..., cut, :] if columns else result[..., cut])
        else:
            np.matmul(x, y[..., slice(*span)], out=result[..., slice(*span)])

    with np.errstate(all="ignore"):  # inf and NaN are values here
        for_each_tile(cuts, tile, macs)
    return result


def _batch_shape(x: tuple[int, ...], y: tuple[int, ...]) -> tuple[int, ...]:
    """The broadcast batch dimensions; equal or missing ones without np.broadcast_shapes,
    which costs microseconds."""
    if x == y or not y:
        return x
    return y if not x else np.broadcast_shapes(x, y)


def _small_product(
    x: NDArray[np.float32], y: NDArray[np.float32], result: NDArray[np.float32], macs: int
) -> NDArray[np.float32]:
    """x @ y into `result` in one BLAS call, as `for_each_tile` makes it for one piece."""
    with blas.one_thread_for(macs), np.errstate(all="ignore"):  # inf and NaN are values here
        np.matmul(x, y, out=result)
    return result
