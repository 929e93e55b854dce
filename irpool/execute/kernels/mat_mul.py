"""MatMul on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it (measured,
docs/ops/MatMul.md#numerics-and-tolerances).

Floats are multiplied in f32 (f16 and bf16 widened, f64 saturated to the f32 range, as the
elementwise ops take them) by NumPy's matmul, which hands 2-D and stacked products to BLAS
(sgemm, sgemv): the CPU's accumulation order is its own, so the result is within
1e-6 * sum(|a * b|) of the CPU's, not bit for bit; non-finite values are IEEE's and stay in
the outputs whose dot product holds them (0 * inf is NaN). Integers are wrapped to int32,
multiplied in f32 as the CPU does (exact while sums stay below 2**24), saturated to
[-2**31, 2147483520] and stored as the elementwise ops store theirs: 8-bit types saturate,
wider ones wrap. Booleans are true where
a product is.

A large product is cut into spans of output rows or columns fixed by its shape, which the
run's threads (IRPOOL_THREADS) share, BLAS on one thread (engine/blocks.py): the values are
the same bits whatever the thread count.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import f32_operand, stored_from_f32_product
from irpool.execute.compressed import CompressedWeights
from irpool.execute.engine import blas
from irpool.execute.engine.blocks import for_each_tile, product_spans
from irpool.execute.engine.costs import TILE_MACS
from irpool.execute.engine.scratch import Scratch, Slot
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.mat_mul import MatMul1


@kernel_for(MatMul1)
def run_matmul(
    op: MatMul1, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    dtype = inputs[0].dtype
    x = _transposed(_as_f32(inputs[0]), op.transposes[0])
    if op.activation_group is not None:
        x = quantized_activations(x, op.activation_group)
    if op.compressed_weights is not None:
        product = product_by_compressed(x, op.compressed_weights)
    else:
        product = f32_product(x, _transposed(_as_f32(inputs[1]), op.transposes[1]))
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
    rounded to nearest even (irpool/cpu/compressed_weights.py)."""
    groups = x.reshape(*x.shape[:-1], x.shape[-1] // group, group)
    scale = np.abs(groups).max(axis=-1, keepdims=True) / np.float32(127)
    with np.errstate(invalid="ignore", divide="ignore"):  # a group of zeros stays zeros
        reciprocal = np.float32(1) / scale
        steps = np.where(scale > 0, np.round(groups * reciprocal), 0).astype(np.float32)
    quantized: NDArray[np.float32] = (steps * scale).reshape(x.shape)
    return quantized


def product_by_compressed(
    x: NDArray[np.float32], weights: CompressedWeights
) -> NDArray[np.float32]:
    """x @ weights.T, a block of weight rows (output columns) at a time, each decompressed
    into the thread's buffer unless held so: the blocks depend on the weights' shape alone,
    so the bits do not depend on the thread count or on how the weights are held."""
    result = np.zeros((*x.shape[:-1], weights.rows), np.float32)
    flat_x, flat = x.reshape(-1, weights.depth), result.reshape(-1, weights.rows)
    step = weights.block_rows
    blocks = [(start, min(weights.rows, start + step)) for start in range(0, weights.rows, step)]

    def tile(span: tuple[int, int], scratch: Scratch) -> None:
        start, stop = span
        buffer = scratch.array(Slot.WEIGHTS, (stop - start, weights.depth), np.dtype(np.float32))
        flat[:, start:stop] = flat_x @ weights.block(start, stop, buffer).T

    with np.errstate(all="ignore"):  # inf and NaN are values here
        for_each_tile(blocks, tile, flat_x.shape[0] * weights.rows * weights.depth)
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
    """x @ y into `result` in one BLAS call, as `for_each_tile` makes it for one piece: BLAS
    held to one thread from `THREADED_MACS` on."""
    held = macs >= blas.THREADED_MACS
    if held:
        blas.hold(1)
    try:
        with np.errstate(all="ignore"):  # inf and NaN are values here
            np.matmul(x, y, out=result)
    finally:
        if held:
            blas.release()
    return result
