"""Convolution-1 and GroupConvolution-1 on NumPy arrays, as OpenVINO 2026.4's CPU plugin
computes them (measured, docs/ops/Convolution.md#numerics-and-tolerances).

Every type is computed in f32 (integers wrapped to int32 first, f64 saturated to the f32
range, as the element-wise ops take them). Three paths, by geometry:
- pointwise (every kernel dim 1, stride 1, no pads): f32 matrix products per image and
  group, straight from the input;
- depthwise (one input channel per group): a small matrix product per plane over the
  input laid out by stride phases (kernels/depthwise.py);
- otherwise the windows of each image are copied from strided views into a reused buffer
  (im2col) and multiplied by the filters in f32 matrix products;
- 3x3 2-D layers of one group, stride and dilation 1, may instead take Winograd F(2x2, 3x3)
  (kernels/convolution_winograd.py), where it measures faster (`tuning`); F(4x4, 3x3), whose
  rounding is above the CPU's f32 bound, only in layers the CPU runs on int8 operands
  (`int8_on_cpu`, irpool/cpu/quantized_convolutions.py), whose results leave the f32 formula
  by far more.
Large products are cut into spans of output positions or rows fixed by the shape, which the
run's threads share (engine/blocks.py): the same bits whatever the thread count.
A NaN or inf reaches exactly the outputs whose window holds it. The paths multiply zero
padding like data; the CPU's kernels skip the padding taps (measured,
docs/ops/Convolution.md#numerics-and-tolerances), which only shows
where a filter holds an inf or NaN (0 * inf): those output channels are computed again from
their real taps. The sums' order differs from the CPU's: measured within
1e-6 * sum(|x * w|) per output (docs/ops/Convolution.md#numerics-and-tolerances).
Integer results saturate into int32 (values from 2**31 give 2147483520, the largest f32
below it), then wrap to 16, 32 and 64 bits and saturate to 8 (measured).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import product
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.int8_pairs import halved_filters, without_vnni
from irpool.cpu.isa import AVX2, int8_isa
from irpool.cpu.numerics import f32_operand, stored_from_f32_product
from irpool.execute.engine import costs, tuning
from irpool.execute.engine.blocks import (
    cached_spans,
    channel_spans,
    for_each_tile,
    product_spans,
)
from irpool.execute.engine.scratch import Scratch, Slot, thread_scratch
from irpool.execute.kernels.convolution_winograd import (
    F2,
    F2_PRODUCTS,
    F4,
    Variant,
    strided_view,
    transformed_filters,
    winograd,
)
from irpool.execute.kernels.depthwise import PhaseLayout, depthwise, zero_borders
from irpool.execute.registry import OutputSpec, kernel_for, prepared
from irpool.ops.convolution import ConvolutionBase, GroupConvolution1
from irpool.ops.pooling_geometry import Window

FLOAT = np.dtype(np.float32)
# Winograd's transforms add rounding of their own: measured against f64 on random data, at
# most 1.5e-7 of sum(|x * w|) from 16 input channels, 1.1e-6 on one channel (the bound the
# CPU holds is 1e-6, docs/ops/Convolution.md#numerics-and-tolerances).
WINOGRAD_MIN_CHANNELS = 16


@dataclass(frozen=True, slots=True)
class Geometry:
    """One layer's convolution on concrete shapes: G groups of `group_in` input and
    `group_out` output channels, the per-axis windows, and the path that computes it."""

    windows: tuple[Window, ...]
    groups: int
    group_in: int
    group_out: int
    path: str  # "pointwise", "depthwise" or "columns"
    layout: PhaseLayout | None = None  # the depthwise path's
    winograd: bool = False  # "columns" that Winograd F(2x2, 3x3) can compute too

    @property
    def kernel(self) -> tuple[int, ...]:
        return tuple(w.kernel for w in self.windows)

    @property
    def out(self) -> tuple[int, ...]:
        return tuple(w.out for w in self.windows)

    @property
    def pads(self) -> list[tuple[int, int]]:
        """(begin, end) per axis: end as far as the last window reads, at least 0."""
        return [(w.pad_begin, max(0, _reach(w) - w.pad_begin - w.size)) for w in self.windows]


def _reach(w: Window) -> int:
    """How far into the padded axis the last window reads."""
    return (w.out - 1) * w.stride + (w.kernel - 1) * w.dilation + 1


@kernel_for(ConvolutionBase)
def run_convolution(
    op: ConvolutionBase, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data, filters = inputs
    geometry = prepared(op, (data.shape, filters.shape), lambda: _geometry(op, data, filters))
    if 0 in geometry.out:  # a dilated kernel one past a run-time input: no windows
        channels = filters.shape[0] * (filters.shape[1] if isinstance(op, GroupConvolution1) else 1)
        return [np.zeros((data.shape[0], channels, *geometry.out), data.dtype)]
    weights = _weights(op, filters, geometry)
    x = np.ascontiguousarray(f32_operand(data))
    with np.errstate(all="ignore"):  # inf and NaN are values here, as on the CPU
        result = None
        if geometry.winograd and not weights.nonfinite:
            result = _tuned_winograd(op, x, filters, weights, geometry)
        if geometry.path == "depthwise":
            # The input's own array, when the run frees it here and the output fits it.
            finite = not weights.nonfinite
            reusable = outputs[0].overwrites_input and x is data and finite
            result = depthwise(x, weights.matrix, geometry, reusable, finite)
        elif result is None:
            result = PATHS[geometry.path](x, weights.matrix, geometry)
        if weights.nonfinite:
            _real_taps_only(x, weights, geometry, result)
        if op.int8_saturation is not None:
            op.int8_saturation(result, x, geometry.windows)
        return [result if data.dtype == FLOAT else stored_from_f32_product(result, data.dtype)]


def _geometry(op: ConvolutionBase, data: NDArray[Any], filters: NDArray[Any]) -> Geometry:
    windows = op.windows(data.shape, filters.shape)
    if isinstance(op, GroupConvolution1):
        groups, group_out, group_in = filters.shape[:3]
    else:
        groups, (group_out, group_in) = 1, filters.shape[:2]
    if all(
        w.kernel == 1 and w.stride == 1 and w.pad_begin == 0 and w.out == w.size for w in windows
    ):
        path = "pointwise"
    elif group_in == 1 and groups > 1:
        path = "depthwise"
    else:
        path = "columns"
    winograd_able = (
        path == "columns"
        and groups == 1
        and group_in >= WINOGRAD_MIN_CHANNELS
        and len(windows) == 2
        and all(w.kernel == 3 and w.stride == 1 and w.dilation == 1 for w in windows)
        and all(w.pad_begin >= 0 and w.out + 2 - w.size - w.pad_begin >= 0 for w in windows)
    )
    geometry = Geometry(windows, groups, group_in, group_out, path, winograd=winograd_able)
    if path == "depthwise":  # worked out once per shape: 36 µs a call (measured)
        geometry = replace(geometry, layout=PhaseLayout.of(geometry))
    return geometry


@dataclass(frozen=True, slots=True)
class Weights:
    """The filters as a path multiplies them (`matrix`), and the output channels whose
    filters hold an inf or NaN (`nonfinite`) with the filters as [O, C/G, *kernel]."""

    matrix: NDArray[Any]
    nonfinite: tuple[int, ...]
    by_output: NDArray[np.float32]


def _weights(op: ConvolutionBase, filters: NDArray[Any], geometry: Geometry) -> Weights:
    """The filters as the path multiplies them, kept in the op (each layer has its own) for
    as long as the layer gets this same filters array (a constant: every run)."""
    kept = op.kernel_cache.get("filters")
    if kept is not None and kept[0] is filters:
        prepared_weights: Weights = kept[1]
        return prepared_weights
    values = f32_operand(filters)
    g, taps = geometry, prod(geometry.kernel)
    # AVX2's 1x1 kernel without pads keeps them (docs/cpu.md, "int8 products without VNNI")
    one_by_one = int8_isa() == AVX2 and taps == 1 and g.groups == 1 and not any(sum(g.pads, ()))
    if filters.dtype == np.int8 and without_vnni() and not one_by_one:  # as the kernel holds them
        values = halved_filters(values)
    # [G, O/G, C/G * taps]: each group's matrix (depthwise: each channel's taps).
    weights = np.ascontiguousarray(values.reshape(g.groups, g.group_out, g.group_in * taps))
    by_output = values.reshape(g.groups * g.group_out, g.group_in, *g.kernel)
    finite = np.isfinite(by_output).reshape(by_output.shape[0], -1).all(axis=1)
    nonfinite = tuple(int(o) for o in np.flatnonzero(~finite))
    prepared_weights = Weights(weights, nonfinite, by_output)
    op.kernel_cache["filters"] = (filters, prepared_weights)
    return prepared_weights


@dataclass(frozen=True, slots=True)
class Algorithm:
    """A way to compute a layer, by the name `tuning` keeps."""

    label: str
    variant: Variant | None = None  # Winograd's


COLUMNS = Algorithm("columns")
WINOGRAD, WINOGRAD4 = Algorithm("winograd", F2), Algorithm("winograd F(4x4, 3x3)", F4)
# F(2x2, 3x3) in a layer run on int8 operands: its transforms as products (the same filters).
WINOGRAD_INT8 = Algorithm("winograd, transforms by products", F2_PRODUCTS)


def _tuned_winograd(
    op: ConvolutionBase,
    x: NDArray[np.float32],
    filters: NDArray[Any],
    weights: Weights,
    g: Geometry,
) -> NDArray[np.float32] | None:
    """The layer by Winograd when it measures faster than im2col on this machine for this
    shape (`tuning`, timed on the first run's input); None otherwise, or when a result is
    not finite. F(4x4, 3x3) competes only where the CPU runs the layer on int8 operands.
    The transformed filters ((m + 2)²/9 of the filters' size) are kept only while a
    Winograd variant is chosen."""
    pads = (g.pads[0], g.pads[1])

    def run(algorithm: Algorithm) -> NDArray[np.float32] | None:
        if algorithm.variant is None:
            return _columns(x, weights.matrix, g)
        # One transform a variant, kept while the tuner alternates them: timing a call
        # must not time the other variant's filter transform again.
        key = ("winograd", algorithm.label)
        transformed = op.kernel_cache.get(key)
        if transformed is None or transformed[0] is not filters:
            transformed = (filters, transformed_filters(weights.by_output, algorithm.variant))
            op.kernel_cache[key] = transformed
        return winograd(x, transformed[1], pads, (g.out[0], g.out[1]), algorithm.variant)

    def choose() -> Algorithm:
        n, channels, outputs = x.shape[0], x.shape[1], g.group_out
        points = n * prod(g.out)
        # im2col copies 9 values a position and channel and multiplies 9; Winograd F(m x m)
        # transforms (m + 2)² values a tile (m² positions) and channel, in and out, and
        # multiplies (m + 2)²; F(4x4)'s products also pack its filters once per span.
        copies = 9 * points * channels * costs.FLAT_NS
        found = [(COLUMNS, copies + 9 * points * channels * outputs * costs.MAC_NS)]
        for algorithm in (WINOGRAD_INT8, WINOGRAD4) if op.int8_on_cpu else (WINOGRAD,):
            found.append((algorithm, _winograd_ns(algorithm, n, channels, outputs, g)))
        found.sort(key=lambda c: c[1])
        operands = "int8 " if op.int8_on_cpu else ""
        key = f"Convolution 3x3 {operands}{x.shape} {g.group_out} {g.pads}"
        return tuning.pick(key, found, run)

    chosen = prepared(op, ("algorithm", x.shape, filters.shape), choose)
    for unchosen in (WINOGRAD, WINOGRAD_INT8, WINOGRAD4):
        if unchosen is not chosen:
            op.kernel_cache.pop(("winograd", unchosen.label), None)
    return None if chosen is COLUMNS else run(chosen)


def _winograd_ns(algorithm: Algorithm, n: int, channels: int, outputs: int, g: Geometry) -> float:
    """The cost model's estimate of a Winograd variant on this layer."""
    variant = algorithm.variant
    assert variant is not None
    m, values = variant.tile, variant.points**2
    tile_rows, tile_columns = -(-g.out[0] // m), -(-g.out[1] // m)
    tiles = n * tile_rows * tile_columns
    macs = values * tiles * channels * outputs
    if variant.tile == F2.tile:
        return values * tiles * (channels + outputs) * costs.WINOGRAD_NS + macs * costs.MAC_NS
    row_bytes = values * tile_columns * channels * FLOAT.itemsize
    most_rows = -(-costs.WINOGRAD_SPAN_TILES // tile_columns)
    spans = n * len(cached_spans(tile_rows, macs // n, row_bytes, most_rows))
    transforms = values * tiles * (channels + outputs) * costs.WINOGRAD4_NS
    return transforms + macs * costs.MAC_NS + spans * values * channels * outputs * costs.PACKED_NS


def _real_taps_only(
    x: NDArray[np.float32], weights: Weights, g: Geometry, out: NDArray[np.float32]
) -> None:
    """The output channels whose filters hold an inf or NaN, again from the real taps only:
    the CPU's kernels skip the taps that fall in the padding (measured: an inf weight over
    the padding leaves the border finite), where the paths multiply zeros (0 * inf = NaN).
    Rare, so tap by tap."""
    for channel in weights.nonfinite:
        first = channel // g.group_out * g.group_in
        data = x[:, first : first + g.group_in]
        sums = np.zeros((x.shape[0], *g.out), FLOAT)
        for taps in product(*(range(k) for k in g.kernel)):
            spans = [w.tap_outputs(j) for w, j in zip(g.windows, taps, strict=True)]
            if any(lo >= hi for lo, hi in spans):
                continue
            source = tuple(
                slice(w.tap(lo, j), w.tap(hi - 1, j) + 1, w.stride)
                for w, j, (lo, hi) in zip(g.windows, taps, spans, strict=True)
            )
            index: tuple[int | slice, ...] = (channel, slice(None), *taps)
            tap_weights = weights.by_output[index]
            products = np.tensordot(tap_weights, data[(slice(None), slice(None), *source)], (0, 1))
            sums[(slice(None), *(slice(lo, hi) for lo, hi in spans))] += products
        out[:, channel] = sums


def _padded(x: NDArray[np.float32], geometry: Geometry, scratch: Scratch) -> NDArray[np.float32]:
    """`x` with zeros around each spatial axis, as far as the windows read (x itself when
    they read no padding)."""
    pads = geometry.pads
    if not any(begin or end for begin, end in pads):
        return x
    spatial = x.shape[2:]
    shape = (
        *x.shape[:2],
        *(size + begin + end for size, (begin, end) in zip(spatial, pads, strict=True)),
    )
    padded = scratch.array(Slot.ZERO_PADDED, shape, FLOAT)
    zero_borders(padded, pads, 2)
    inner = tuple(
        slice(begin, begin + size) for size, (begin, _) in zip(spatial, pads, strict=True)
    )
    padded[(slice(None), slice(None), *inner)] = x
    return padded


def _pointwise(x: NDArray[np.float32], weights: NDArray[Any], g: Geometry) -> NDArray[Any]:
    """One f32 matrix product per image and group, straight from the input, cut into spans of
    output positions (the same whatever the thread count)."""
    n, points = x.shape[0], prod(x.shape[2:])
    out = np.empty((n, g.groups * g.group_out, *g.out), FLOAT)
    columns = x.reshape(n, g.groups, g.group_in, points)
    sums = out.reshape(n, g.groups, g.group_out, points)
    tiles = _pointwise_tiles(n, points, weights.size, g.group_out)

    def tile(piece: tuple[int, tuple[int, int], tuple[int, int]], scratch: Scratch) -> None:
        image, (start, stop), (o0, o1) = piece
        out_tile = sums[image, :, o0:o1, start:stop]
        np.matmul(weights[:, o0:o1], columns[image, ..., start:stop], out=out_tile)

    for_each_tile(tiles, tile, n * weights.size * points, costs.THREAD_MACS)
    return out


@lru_cache(maxsize=256)
def _pointwise_tiles(
    n: int, points: int, weights: int, group_out: int
) -> tuple[tuple[int, tuple[int, int], tuple[int, int]], ...]:
    """A pointwise product's tiles (image, span of positions, span of output channels), from
    the shapes alone; kept, as a run repeats its shapes (about 10 µs a call to work out)."""
    position_spans = product_spans(points, weights * points)
    outputs = channel_spans(group_out, n * len(position_spans), weights * points)
    return tuple((i, span, o) for i in range(n) for span in position_spans for o in outputs)


def _columns(x: NDArray[np.float32], weights: NDArray[Any], g: Geometry) -> NDArray[Any]:
    """Per image and span of output rows (the first spatial axis; the same whatever the
    thread count): the windows copied from a strided view into the thread's buffer (im2col)
    and multiplied by the filters."""
    padded = _padded(x, g, thread_scratch())
    n = x.shape[0]
    rows, row_points = g.out[0], prod(g.out[1:])
    out = np.empty((n, g.groups * g.group_out, *g.out), FLOAT)
    sums = out.reshape(n, g.groups, g.group_out, rows * row_points)
    strides = padded.strides
    window_strides = (
        strides[1],
        *(w.dilation * s for w, s in zip(g.windows, strides[2:], strict=True)),
        *(w.stride * s for w, s in zip(g.windows, strides[2:], strict=True)),
    )
    macs = weights.size * rows * row_points
    row_bytes = x.shape[1] * prod(g.kernel) * row_points * FLOAT.itemsize  # its columns
    most_rows = -(-costs.COLUMN_SPAN_POSITIONS // row_points)
    row_spans = cached_spans(rows, macs, row_bytes, most_rows)
    outputs = channel_spans(g.group_out, n * len(row_spans), macs)
    tiles = [(image, span, o) for image in range(n) for span in row_spans for o in outputs]
    # Each image's windows as one strided view, which a span slices (yolov8n's 640x640
    # layers have 80 spans): `as_strided` costs about 7 µs a view.
    shape = (x.shape[1], *g.kernel, *g.out)
    windows = [strided_view(image, shape, window_strides) for image in padded]
    axis = 1 + len(g.kernel)  # the first spatial axis of the outputs, which spans cut
    whole = (slice(None),) * axis

    def copied(image: int, first: int, last: int, scratch: Scratch) -> NDArray[np.float32]:
        span = (*shape[:axis], last - first, *shape[axis + 1 :])
        columns = scratch.array(Slot.COLUMNS, span, FLOAT)
        np.copyto(columns, windows[image][(*whole, slice(first, last))])
        return columns.reshape(g.groups, -1, (last - first) * row_points)

    # Output channels are cut only when the layer is one image and span of rows: its
    # windows are then copied once, before the spans, not once a span.
    shared = None if len(outputs) == 1 else copied(0, 0, rows, thread_scratch())

    def tile(piece: tuple[int, tuple[int, int], tuple[int, int]], scratch: Scratch) -> None:
        image, (first, last), (o0, o1) = piece
        matrix = shared if shared is not None else copied(image, first, last, scratch)
        out_tile = sums[image, :, o0:o1, first * row_points : last * row_points]
        np.matmul(weights[:, o0:o1], matrix, out=out_tile)

    for_each_tile(tiles, tile, n * weights.size * rows * row_points, costs.THREAD_MACS)
    return out


PATHS: dict[str, Callable[[NDArray[np.float32], NDArray[Any], Geometry], NDArray[Any]]] = {
    "pointwise": _pointwise,
    "columns": _columns,
}
