"""Winograd F(2x2, 3x3) and F(4x4, 3x3) for 2-D 3x3 convolutions of one group, stride and
dilation 1 (docs/ops/Convolution.md#winograd): each m x m block of outputs (a tile) comes from
its (m + 2) x (m + 2) input window by (m + 2)² products per channel instead of 9m².

Per image, channels last ([rows, columns, C], so every operation runs along C):
- the input's windows at stride m are transformed by Bᵀ d B, rows then columns, into
  (m + 2)² matrices [tiles, C];
- (m + 2)² f32 matrix products by the filters transformed once per layer (G g Gᵀ, computed
  in f64 and rounded once), stacked in one `np.matmul`;
- the output transform Aᵀ m A, written as the m x m outputs of each tile.
F(2x2)'s transforms are adds and subtractions over strided views, whose order fixes the bits
the f32 models keep; F(4x4)'s, which its kernel takes only where the CPU's results leave the
f32 formula anyway (`convolution`), are matrix products by Bᵀ and Aᵀ (five to seven times
faster than 15 to 17 adds over views per point), and so are F(2x2)'s in those layers
(`F2_PRODUCTS`: fewer NumPy calls, which small layers pay most for).
Spans of tile rows fixed by the shape are what the run's threads share (the same bits
whatever the thread count). An inf or NaN spreads over a whole tile in the transforms, so
a result holding one is computed again by im2col (`convolution._columns`), which places
them window by window as the CPU does; filters holding one never come here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import isfinite
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.engine.blocks import cached_spans, channel_spans, for_each_tile
from irpool.execute.engine.costs import SPAN_BYTES, WINOGRAD_SPAN_TILES
from irpool.execute.engine.scratch import Scratch, Slot, thread_scratch
from irpool.execute.kernels.depthwise import zero_borders

FLOAT = np.dtype(np.float32)
Transform = Callable[[list[NDArray[Any]], NDArray[np.float32]], None]
_TRANSFORM_CHUNK = 1 << 18  # f64 values of transformed filters computed at a time


@dataclass(frozen=True, slots=True)
class Variant:
    """F(m x m, 3x3): the tile's side m, G (the filters' transform, [m + 2, 3]), and the input
    and output transforms either as adds along the first axis of views (`adds`) or as the
    matrices Bᵀ and Aᵀ (`products`)."""

    tile: int
    filter_transform: NDArray[np.float64]
    adds: tuple[Transform, Transform] | None
    products: tuple[NDArray[np.float32], NDArray[np.float32]] | None

    @property
    def points(self) -> int:
        """The side of a tile's input window: m + 2."""
        return self.tile + 2


def _input_transform_2(d: list[NDArray[Any]], out: NDArray[np.float32]) -> None:
    """Bᵀ = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]] along `d`."""
    np.subtract(d[0], d[2], out=out[0])
    np.add(d[1], d[2], out=out[1])
    np.subtract(d[2], d[1], out=out[2])
    np.subtract(d[1], d[3], out=out[3])


def _output_transform_2(m: list[NDArray[Any]], out: NDArray[np.float32]) -> None:
    """Aᵀ = [[1, 1, 1, 0], [0, 1, -1, -1]] along `m`."""
    np.add(m[0], m[1], out=out[0])
    out[0] += m[2]
    np.subtract(m[1], m[2], out=out[1])
    out[1] -= m[3]


# Lavin and Gray (2015); F(4x4, 3x3) at the points 0, ±1, ±2.
F2 = Variant(
    2,
    np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]]),
    (_input_transform_2, _output_transform_2),
    None,
)
F4 = Variant(
    4,
    np.array(
        [
            [1 / 4, 0, 0],
            [-1 / 6, -1 / 6, -1 / 6],
            [-1 / 6, 1 / 6, -1 / 6],
            [1 / 24, 1 / 12, 1 / 6],
            [1 / 24, -1 / 12, 1 / 6],
            [0, 0, 1],
        ]
    ),
    None,
    (
        np.array(
            [
                [4, 0, -5, 0, 1, 0],
                [0, -4, -4, 1, 1, 0],
                [0, 4, -4, -1, 1, 0],
                [0, -2, -1, 2, 1, 0],
                [0, 2, -1, -2, 1, 0],
                [0, 4, 0, -5, 0, 1],
            ],
            FLOAT,
        ),
        np.array(
            [[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0], [0, 1, -1, 8, -8, 1]],
            FLOAT,
        ),
    ),
)


def transformed_filters(filters: NDArray[np.float32], variant: Variant = F2) -> NDArray[np.float32]:
    """[O, C, 3, 3] filters as the (m + 2)² matrices [C, O] the products take, G g Gᵀ in f64
    rounded once to f32."""
    g, points = variant.filter_transform, variant.points
    outputs, channels = filters.shape[:2]
    result = np.empty((points**2, channels, outputs), FLOAT)
    by_point = result.reshape(points, points, channels, outputs)
    # A few output channels at a time: the f64 copy and sums of a 512-channel layer whole
    # were 50 MB beside the result (resnet18_int8's peak memory); each value is the same.
    step = max(1, _TRANSFORM_CHUNK // (channels * points**2))
    for first in range(0, outputs, step):
        part = filters[first : first + step].astype(np.float64)
        by_point[..., first : first + step] = np.einsum("ai,ocij,bj->abco", g, part, g)
    return result


# F(2x2, 3x3) with its transforms as matrix products: the same filters and, but for the
# sign of a zero sum (0 · x terms add +0), the same values as F2's adds.
F2_PRODUCTS = Variant(
    2,
    F2.filter_transform,
    None,
    (
        np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], FLOAT),
        np.array([[1, 1, 1, 0], [0, 1, -1, -1]], FLOAT),
    ),
)


def variant_of(filters: NDArray[np.float32]) -> Variant:
    """The variant, of those with adds, whose products `transformed_filters` made."""
    return F2 if filters.shape[0] == F2.points**2 else F4


def winograd(
    x: NDArray[np.float32],
    filters: NDArray[np.float32],
    pads: tuple[tuple[int, int], tuple[int, int]],
    out_shape: tuple[int, int],
    variant: Variant | None = None,
) -> NDArray[np.float32] | None:
    """The convolution of `x` [N, C, H, W] by `filters` (`transformed_filters` of `variant`,
    by default the one of F2 and F4 whose filters they are) with (begin, end) `pads` per axis
    into [N, O, *out_shape]; None when a result is not finite (the caller computes it window
    by window)."""
    variant = variant or variant_of(filters)
    m = variant.tile
    n, channels = x.shape[:2]
    outputs = filters.shape[2]
    oh, ow = out_shape
    tile_rows, tile_columns = -(-oh // m), -(-ow // m)
    padded = _channels_last(x, pads, (m * tile_rows + 2, m * tile_columns + 2))
    out = np.empty((n, outputs, oh, ow), FLOAT)
    macs = filters.shape[0] * channels * outputs * tile_rows * tile_columns
    row_bytes = filters.shape[0] * tile_columns * channels * FLOAT.itemsize  # its tiles
    most_rows = -(-WINOGRAD_SPAN_TILES // tile_columns)
    row_spans = cached_spans(tile_rows, macs, row_bytes, most_rows)
    spans = channel_spans(outputs, n * len(row_spans), macs)
    tiles = [(image, span, o) for image in range(n) for span in row_spans for o in spans]
    # Output channels are cut only when the layer is one image and span of rows: its input
    # is then transformed once, before the spans, not once a span.
    shared = None if len(spans) == 1 else _input_tiles(padded[0], variant, thread_scratch())

    def tile(piece: tuple[int, tuple[int, int], tuple[int, int]], scratch: Scratch) -> None:
        image, (first, last), (o0, o1) = piece
        transformed = shared
        if transformed is None:
            transformed = _input_tiles(padded[image, m * first : m * last + 2], variant, scratch)
        sums = _tile_outputs(transformed, filters[..., o0:o1], variant, scratch)
        rows = min(oh, m * last) - m * first
        flat = sums.reshape(m * (last - first), m * tile_columns, o1 - o0)
        out[image, o0:o1, m * first : m * first + rows] = flat[:rows, :ow].transpose(2, 0, 1)

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
    inner = padded[:, top : top + h, left : left + w]
    # Channels a block whose planes fit the cache: a large image transposed whole reads each
    # plane back from memory (32x160x160: 1.5 -> 0.5 ms; 64x80x80: 0.35 -> 0.17 ms).
    block = max(8, SPAN_BYTES // (h * w * FLOAT.itemsize) // 8 * 8)
    for first in range(0, channels, block):
        inner[..., first : first + block] = x[:, first : first + block].transpose(0, 2, 3, 1)
    return padded


def _input_tiles(
    padded: NDArray[np.float32], variant: Variant, scratch: Scratch
) -> NDArray[np.float32]:
    """The tiles [m + 2, m + 2, tile rows, tile columns, C] transformed (Bᵀ d B) whose inputs
    are the rows `padded` [m * tile rows + 2, columns, C] of one image."""
    rows, columns, channels = padded.shape
    m, points = variant.tile, variant.points
    th, tw = (rows - 2) // m, (columns - 2) // m
    shape = (points, points, th, tw, channels)
    transformed = scratch.array(Slot.WINOGRAD_INPUT, shape, FLOAT)
    if variant.adds is not None:  # on rows, then on columns
        d = [padded[r : r + m * th : m] for r in range(points)]
        by_rows = scratch.array(Slot.WINOGRAD_ROWS, (points, th, columns, channels), FLOAT)
        variant.adds[0](d, by_rows)
        e = [by_rows[:, :, s : s + m * tw : m] for s in range(points)]
        variant.adds[0](e, transformed.transpose(1, 0, 2, 3, 4))
    else:
        assert variant.products is not None
        _input_by_products(padded, m, variant.products[0], transformed, scratch)
    return transformed


def _tile_outputs(
    transformed: NDArray[np.float32],
    filters: NDArray[np.float32],
    variant: Variant,
    scratch: Scratch,
) -> NDArray[np.float32]:
    """The outputs [tile rows, m, tile columns, m, O] of the `transformed` tiles
    (`_input_tiles`) by `filters` [(m + 2)², C, O]."""
    points, _, th, tw, channels = transformed.shape
    m, outputs = variant.tile, filters.shape[2]
    products = scratch.array(Slot.WINOGRAD_PRODUCTS, (points**2, th * tw, outputs), FLOAT)
    np.matmul(transformed.reshape(points**2, th * tw, channels), filters, out=products)
    sums = scratch.array(Slot.WINOGRAD_OUTPUT, (th, m, tw, m, outputs), FLOAT)
    if variant.adds is not None:  # Aᵀ m A on rows, then on columns
        by_points = products.reshape(points, points, th, tw, outputs)
        half = scratch.array(Slot.WINOGRAD_HALF, (m, points, th, tw, outputs), FLOAT)
        variant.adds[1](list(by_points), half)
        variant.adds[1](list(half.transpose(1, 0, 2, 3, 4)), sums.transpose(3, 1, 0, 2, 4))
        return sums
    assert variant.products is not None
    output_matrix = variant.products[1]
    half = scratch.array(Slot.WINOGRAD_HALF, (m, points, th * tw * outputs), FLOAT)
    np.matmul(output_matrix, products.reshape(points, -1), out=half.reshape(m, -1))
    tiles = scratch.array(Slot.WINOGRAD_HALF, (m, m, th * tw * outputs), FLOAT, 1)
    np.matmul(output_matrix, half, out=tiles)
    np.copyto(sums.transpose(1, 3, 0, 2, 4), tiles.reshape(m, m, th, tw, outputs))
    return sums


def _input_by_products(
    padded: NDArray[np.float32],
    m: int,
    input_matrix: NDArray[np.float32],
    out: NDArray[np.float32],
    scratch: Scratch,
) -> None:
    """Bᵀ d B into `out` [m + 2, m + 2, tile rows, tile columns, C] as matrix products by Bᵀ:
    each tile row's m + 2 input rows (a strided view), then each tile's m + 2 columns."""
    rows, columns, channels = padded.shape
    points = m + 2
    th, tw = (rows - 2) // m, (columns - 2) // m
    row, column, item = padded.strides
    windows = strided_view(padded, (th, points, columns * channels), (m * row, row, item))
    by_rows = scratch.array(Slot.WINOGRAD_ROWS, (th, points, columns, channels), FLOAT)
    np.matmul(input_matrix, windows, out=by_rows.reshape(th, points, -1))
    tile, point, column, item = by_rows.strides
    shape = (th, points, tw, points, channels)
    tiles = strided_view(by_rows, shape, (tile, point, m * column, column, item))
    np.matmul(input_matrix, tiles, out=out.transpose(2, 0, 3, 1, 4))


def strided_view(
    base: NDArray[np.float32], shape: tuple[int, ...], strides: tuple[int, ...]
) -> NDArray[np.float32]:
    """A view of the C-contiguous f32 `base` with these `shape` and `strides` (NumPy checks
    that it stays inside `base`): what `as_strided` makes, in 0.4 µs instead of 7, which a
    layer cut into many spans pays per span."""
    return np.ndarray(shape, FLOAT, base, 0, strides)
