"""ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1 on NumPy arrays, as OpenVINO
2026.4's CPU plugin computes them (measured,
docs/ops/ConvolutionBackpropData.md#numerics-and-tolerances).

Every type is computed in f32 as Convolution takes it (integers wrapped to int32, f64
saturated to the f32 range) and stored as Convolution stores it. Per image, group and span of
output channels (fixed by the shape, shared by the run's threads: the same bits whatever the
thread count), one f32 matrix product gives every tap's contribution of every input position
([O/G * taps, C/G] by [C/G, positions]); each tap's contributions are then added into the
outputs it reaches, tap after tap. Only real products are summed, as on the CPU: an inf or
NaN reaches exactly the outputs an input's taps reach, and an inf weight only the outputs it
multiplies an input into. The sums' order differs from the CPU's: measured within
1e-6 * sum(|x * w|) per output, the bound Convolution keeps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import f32_operand, stored_from_f32_product
from irpool.execute.engine.blocks import for_each_tile, product_spans
from irpool.execute.engine.scratch import Scratch
from irpool.execute.registry import OutputSpec, kernel_for, prepared
from irpool.ops.convolution_backprop import BackpropAxis, ConvolutionBackpropBase

FLOAT = np.dtype(np.float32)


@dataclass(frozen=True, slots=True)
class Geometry:
    """One layer on concrete shapes: G groups of `group_in` input and `group_out` output
    channels, each spatial axis, and per tap the input and output slices it joins."""

    axes: tuple[BackpropAxis, ...]
    groups: int
    group_in: int
    group_out: int
    # Per tap (row-major over the kernel): (input slices, output slices), spatial axes only.
    moves: tuple[tuple[int, tuple[slice, ...], tuple[slice, ...]], ...]

    @property
    def out(self) -> tuple[int, ...]:
        return tuple(axis.out for axis in self.axes)


@kernel_for(ConvolutionBackpropBase)
def run_convolution_backprop(
    op: ConvolutionBackpropBase, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data, filters = inputs[:2]
    out = None if len(inputs) < 3 else tuple(int(v) for v in inputs[2].ravel())
    geometry = prepared(
        op, (data.shape, filters.shape, out), lambda: _geometry(op, data.shape, filters, out)
    )
    weights = _weights(op, filters, geometry)
    x = np.ascontiguousarray(f32_operand(data))
    with np.errstate(all="ignore"):  # inf and NaN are values here, as on the CPU
        result = _transposed(x, weights, geometry)
    return [result if data.dtype == FLOAT else stored_from_f32_product(result, data.dtype)]


def _geometry(
    op: ConvolutionBackpropBase,
    data: tuple[int, ...],
    filters: NDArray[Any],
    out: tuple[int, ...] | None,
) -> Geometry:
    axes = op.axes(data, filters.shape, out)
    if op.filter_prefix == 3:
        groups, group_in, group_out = filters.shape[:3]
    else:
        groups, (group_in, group_out) = 1, filters.shape[:2]
    moves = []
    for number, taps in enumerate(product(*(range(axis.kernel) for axis in axes))):
        spans = [axis.tap_inputs(j) for axis, j in zip(axes, taps, strict=True)]
        if any(lo >= hi for lo, hi in spans):
            continue
        source = tuple(slice(lo, hi) for lo, hi in spans)
        target = tuple(
            slice(
                lo * axis.stride + j * axis.dilation - axis.pad_begin,
                (hi - 1) * axis.stride + j * axis.dilation - axis.pad_begin + 1,
                axis.stride,
            )
            for axis, j, (lo, hi) in zip(axes, taps, spans, strict=True)
        )
        moves.append((number, source, target))
    return Geometry(axes, groups, group_in, group_out, tuple(moves))


def _weights(
    op: ConvolutionBackpropBase, filters: NDArray[Any], geometry: Geometry
) -> NDArray[np.float32]:
    """The filters as [G, O/G, taps, C/G], kept in the op (each layer has its own) for as
    long as the layer gets this same filters array (a constant: every run)."""
    kept = op.kernel_cache.get("filters")
    if kept is not None and kept[0] is filters:
        matrix: NDArray[np.float32] = kept[1]
        return matrix
    g = geometry
    taps = prod(axis.kernel for axis in g.axes)
    values = f32_operand(filters).reshape(g.groups, g.group_in, g.group_out, taps)
    matrix = np.ascontiguousarray(values.transpose(0, 2, 3, 1))
    op.kernel_cache["filters"] = (filters, matrix)
    return matrix


def _transposed(
    x: NDArray[np.float32], weights: NDArray[np.float32], g: Geometry
) -> NDArray[np.float32]:
    """Per image, group and span of output channels: every tap's contributions in one f32
    matrix product, then added into the outputs, tap after tap."""
    n = x.shape[0]
    spatial = x.shape[2:]
    positions = prod(spatial)
    taps = weights.shape[2]
    out = np.zeros((n, g.groups * g.group_out, *g.out), FLOAT)
    if not positions or not out.size:
        return out
    columns = x.reshape(n, g.groups, g.group_in, positions)
    macs = g.group_in * taps * positions
    channel_spans = product_spans(g.group_out, g.group_out * macs)
    tiles = [
        (image, group, span)
        for image in range(n)
        for group in range(g.groups)
        for span in channel_spans
    ]

    def tile(piece: tuple[int, int, tuple[int, int]], scratch: Scratch) -> None:
        image, group, (first, last) = piece
        matrix = weights[group, first:last].reshape(-1, g.group_in)
        moved = np.matmul(matrix, columns[image, group]).reshape(last - first, taps, *spatial)
        channels = slice(group * g.group_out + first, group * g.group_out + last)
        sums = out[image, channels]
        for number, source, target in g.moves:
            sums[(slice(None), *target)] += moved[(slice(None), number, *source)]

    for_each_tile(tiles, tile, n * g.groups * g.group_out * macs)
    return out
