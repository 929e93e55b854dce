"""Winograd F(2x2, 3x3) for 2-D 3x3 convolutions of one group, stride and dilation 1
(docs/ops/Convolution.md#winograd-f2x2-3x3): each 2x2 block of outputs (a tile) comes from
its 4x4 input window by 16 products per channel instead of 36.

Per image, channels last ([rows, columns, C], so every operation runs along C):
- the input's 4x4 windows at stride 2 are transformed by Bᵀ d B, adds and subtractions over
  strided views, rows then columns, into 16 matrices [tiles, C];
- 16 f32 matrix products by the filters transformed once per layer (G g Gᵀ, computed in
  f64 and rounded once), stacked in one `np.matmul`;
- the output transform Aᵀ m A, adds again, written as the 2x2 outputs of each tile.
Spans of tile rows fixed by the shape are what the run's threads share (the same bits
whatever the thread count). An inf or NaN spreads over a whole tile in the transforms, so
a result holding one is computed again by im2col (`convolution._columns`), which places
them window by window as the CPU does; filters holding one never come here.
"""

from __future__ import annotations

from math import isfinite
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.engine.blocks import cached_spans, for_each_tile
from irpool.execute.engine.costs import WINOGRAD_SPAN_TILES
from irpool.execute.engine.scratch import Scratch, Slot, thread_scratch
from irpool.execute.kernels.depthwise import zero_borders

FLOAT = np.dtype(np.float32)
# G of F(2x2, 3x3) (Lavin and Gray, 2015): the filters' 4x4 transform G g Gᵀ.
FILTER_TRANSFORM = np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]])


def transformed_filters(filters: NDArray[np.float32]) -> NDArray[np.float32]:
    """[O, C, 3, 3] filters as the 16 matrices [C, O] the products take, G g Gᵀ in f64
    rounded once to f32."""
    g = FILTER_TRANSFORM
    wide = np.einsum("ai,ocij,bj->abco", g, filters.astype(np.float64), g)
    return np.ascontiguousarray(wide.astype(FLOAT).reshape(16, *filters.shape[1::-1]))


def winograd(
    x: NDArray[np.float32],
    filters: NDArray[np.float32],
    pads: tuple[tuple[int, int], tuple[int, int]],
    out_shape: tuple[int, int],
) -> NDArray[np.float32] | None:
    """The convolution of `x` [N, C, H, W] by `filters` (`transformed_filters`) with
    (begin, end) `pads` per axis into [N, O, *out_shape]; None when a result is not finite
    (the caller computes it window by window)."""
    n, channels = x.shape[:2]
    outputs = filters.shape[2]
    oh, ow = out_shape
    tile_rows, tile_columns = -(-oh // 2), -(-ow // 2)
    padded = _channels_last(x, pads, (2 * tile_rows + 2, 2 * tile_columns + 2))
    out = np.empty((n, outputs, oh, ow), FLOAT)
    macs = 16 * channels * outputs * tile_rows * tile_columns
    row_bytes = 16 * tile_columns * channels * FLOAT.itemsize  # its transformed tiles
    most_rows = -(-WINOGRAD_SPAN_TILES // tile_columns)
    row_spans = cached_spans(tile_rows, macs, row_bytes, most_rows)
    tiles = [(image, span) for image in range(n) for span in row_spans]

    def tile(piece: tuple[int, tuple[int, int]], scratch: Scratch) -> None:
        image, (first, last) = piece
        sums = _tile_rows(padded[image, 2 * first : 2 * last + 2], filters, scratch)
        rows = min(oh, 2 * last) - 2 * first
        flat = sums.reshape(2 * (last - first), 2 * tile_columns, outputs)
        out[image, :, 2 * first : 2 * first + rows] = flat[:rows, :ow].transpose(2, 0, 1)

    for_each_tile(tiles, tile, n * macs)
    return out if isfinite(float(np.add.reduce(out, axis=None))) else None


def _channels_last(
    x: NDArray[np.float32], pads: tuple[tuple[int, int], ...], shape: tuple[int, int]
) -> NDArray[np.float32]:
    """`x` as [N, rows, columns, C] with zeros around, as far as the last tile reads."""
    n, channels, h, w = x.shape
    padded = thread_scratch().array(Slot.CHANNELS_LAST, (n, *shape, channels), FLOAT)
    (top, _), (left, _) = pads
    zero_borders(padded, [(top, shape[0] - top - h), (left, shape[1] - left - w)], 1)
    padded[:, top : top + h, left : left + w] = x.transpose(0, 2, 3, 1)
    return padded


def _tile_rows(
    padded: NDArray[np.float32], filters: NDArray[np.float32], scratch: Scratch
) -> NDArray[np.float32]:
    """The outputs [tile rows, 2, tile columns, 2, O] of the tiles whose inputs are the
    rows `padded` [2 * tile rows + 2, columns, C] of one image."""
    rows, columns, channels = padded.shape
    th, tw, outputs = (rows - 2) // 2, (columns - 2) // 2, filters.shape[2]
    # Bᵀ d B: Bᵀ = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], on rows ...
    d = [padded[r : r + 2 * th : 2] for r in range(4)]
    by_rows = scratch.array(Slot.WINOGRAD_ROWS, (4, th, columns, channels), FLOAT)
    _input_transform(d, by_rows)
    # ... then on columns, into the 16 matrices [tiles, C]
    e = [by_rows[:, :, s : s + 2 * tw : 2] for s in range(4)]
    transformed = scratch.array(Slot.WINOGRAD_INPUT, (4, 4, th, tw, channels), FLOAT)
    _input_transform(e, transformed.transpose(1, 0, 2, 3, 4))
    products = scratch.array(Slot.WINOGRAD_PRODUCTS, (16, th * tw, outputs), FLOAT)
    np.matmul(transformed.reshape(16, th * tw, channels), filters, out=products)
    # Aᵀ m A: Aᵀ = [[1, 1, 1, 0], [0, 1, -1, -1]], on rows, then on columns.
    m = products.reshape(4, 4, th, tw, outputs)
    half = scratch.array(Slot.WINOGRAD_HALF, (2, 4, th, tw, outputs), FLOAT)
    _output_transform(m, half)
    sums = scratch.array(Slot.WINOGRAD_OUTPUT, (th, 2, tw, 2, outputs), FLOAT)
    _output_transform(half.transpose(1, 0, 2, 3, 4), sums.transpose(3, 1, 0, 2, 4))
    return sums


def _input_transform(d: list[NDArray[Any]], out: NDArray[np.float32]) -> None:
    """out[0..3] = d0 - d2, d1 + d2, d2 - d1, d1 - d3 (Bᵀ applied along `d`)."""
    np.subtract(d[0], d[2], out=out[0])
    np.add(d[1], d[2], out=out[1])
    np.subtract(d[2], d[1], out=out[2])
    np.subtract(d[1], d[3], out=out[3])


def _output_transform(m: NDArray[np.float32], out: NDArray[np.float32]) -> None:
    """out[0] = m0 + m1 + m2, out[1] = m1 - m2 - m3 (Aᵀ applied along m's first axis)."""
    np.add(m[0], m[1], out=out[0])
    out[0] += m[2]
    np.subtract(m[1], m[2], out=out[1])
    out[1] -= m[3]
