"""The dense way of irpool/cpu/int8_pairs.py (levels about the middle, codes that fill the i8
range: yolov8n_int8's layers), tap by tap over every output position: what saturating one
tap's pairs takes off, with each output whose codes may pass 16 bits. NumPy's u16 products
over contiguous planes cost about 0.1 ns a value here, a gather 1.8 ns: filtering the
positions first and gathering the few that may saturate (8-22% of them on yolov8n_int8) was
slower than computing every one (docs/performance.md#int8-models)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import product
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.ops.pooling_geometry import Window

PAIR_MIN, PAIR_MAX = -32768, 32767  # vpmaddubsw's 16-bit saturation
_ROW = 64  # rows of views shorter than this are copied whole first


def summed(
    sums: NDArray[np.float64], found: list[tuple[NDArray[np.intp], NDArray[Any]]], total: int
) -> NDArray[np.float64]:
    """`sums` [total] (size 0: none yet) plus the changes `found` (flat index, change), in
    f64 (bincount's with weights): integers well below 2^53, so the sums are exact."""
    at, taken = zip((np.zeros(0, np.intp), np.zeros(0)), *found, strict=True)
    added: NDArray[Any] = np.bincount(np.concatenate(at), np.concatenate(taken), total)
    return added + sums if sums.size else added


def saturated(
    window: NDArray[np.signedinteger[Any]],
    codes: tuple[NDArray[np.int32], NDArray[np.int32]],
    reach: NDArray[np.bool_],
    outputs: int,
) -> Iterator[tuple[NDArray[np.intp], NDArray[Any]]]:
    """What saturating one tap's pairs takes off, by blocks of pairs: flat indices into
    [N, O, *out] and changes (two pairs of a block may share an index), of the tap's levels
    `window` [N, 2J, *out], codes (first, second) [O, J] and `reach` [O, J], the outputs whose
    codes of a pair (one sign) can pass 16 bits. The sum a |c| + b |d| lies in u16 for levels
    up to 255; what passes, over 32767 (codes above 0: taken off) or 32768 (below 0: added), is
    the change. About 1% of the sums saturate on yolov8n_int8: only those are added."""
    images, used = window.shape[0], np.flatnonzero(reach.any(axis=0))
    kind = np.uint16 if window.dtype == np.int16 else window.dtype.type  # levels are ≥ 0
    positions = int(np.prod(window.shape[2:]))
    spots = images * positions  # the flat (image, position)s
    # each pair's planes [J, N, *out]: a copy if strided (products 7 times slower) or of short
    # rows, or a view
    planes = [np.moveaxis(window[:, j::2].view(kind), 1, 0) for j in (0, 1)]
    short = window.shape[-1] < _ROW
    if used.size < reach.shape[1] or window.strides[-1] != window.itemsize or short:
        planes = [np.ascontiguousarray(plane[used]) for plane in planes]
    a, b, spread = *planes, (1,) * (window.ndim - 1)
    # each pair's outputs that reach [J, W], padded with outputs of codes 0 (no change)
    reached = reach[:, used].T
    counts = reached.sum(axis=1)
    order = np.argsort(~reached, axis=1, kind="stable")[:, : int(counts.max())]
    valid = np.take_along_axis(reached, order, axis=1)
    first, second = (np.where(valid, np.take_along_axis(c[:, used].T, order, 1), 0) for c in codes)
    negative = (first < 0) | (second < 0)  # one sign where reached: both below 0, or one 0
    size, other = (np.abs(c).astype(kind).reshape(*c.shape, *spread) for c in (first, second))
    limit = np.where(negative, -PAIR_MIN, PAIR_MAX)
    top = limit.astype(kind).reshape(*first.shape, *spread)
    limit, sign = limit.reshape(-1), np.where(negative, 1, -1).reshape(-1)
    base = order.reshape(-1) * positions  # each (pair, output)'s start in [O, positions]
    width = order.shape[1]
    step = max(1, (1 << 18) // (width * spots))  # pairs a block: about L2's size
    # the sums', second products' and mask's buffers, written again by each block: fresh
    # pages cost
    held = min(step, used.size) * width * spots
    buffers = np.empty(held, kind), np.empty(held, kind), np.empty(held, np.bool_)
    for lo in range(0, used.size, step):
        part = slice(lo, lo + step)
        wide = int(counts[part].max())  # the block's own width: half the sums on yolov8n_int8
        shape = (min(step, used.size - lo), wide, *a.shape[1:])
        past, second, over = (buffer[: prod(shape)].reshape(shape) for buffer in buffers)
        np.multiply(a[part, None], size[part, :wide], out=past)  # [B, wide, N, *out]
        past += np.multiply(b[part, None], other[part, :wide], out=second)
        # nonzero of a bool mask: 5 times faster
        taken = np.flatnonzero(np.greater(past, top[part, :wide], out=over))
        entry, spot = np.divmod(taken, spots)
        if wide < width:  # the block's (pair, output) to the padded ones'
            pair, slot = np.divmod(entry, wide)
            entry = pair * width + slot
        entry += lo * width
        index = base[entry] + spot
        if images > 1:  # spot = image * positions + at
            index += spot // positions * (outputs - 1) * positions
        yield index, (past.reshape(-1)[taken] - limit[entry]) * sign[entry]


def taps_of(level: NDArray[np.int32], windows: Sequence[Window]) -> dict[tuple[int, ...], Any]:
    """Each tap's levels [N, C, *out], 0 (no product) in the padding: views whose last axis
    is contiguous, of the padded levels split by the strides' phases (one copy of each phase
    instead of a strided copy of each tap)."""
    pads = [(0, 0), (0, 0)] + [
        (max(w.pad_begin, 0), max(w.tap(w.out - 1, w.kernel - 1) + 1 - w.size, 0)) for w in windows
    ]
    padded = np.pad(level, pads)
    phases: dict[tuple[int, ...], NDArray[Any]] = {}
    taps = {}
    for tap in product(*(range(w.kernel) for w in windows)):
        starts = [
            j * w.dilation - w.pad_begin + before
            for w, j, (before, _) in zip(windows, tap, pads[2:], strict=True)
        ]
        phase = tuple(start % w.stride for w, start in zip(windows, starts, strict=True))
        if phase not in phases:
            split = [slice(p, None, w.stride) for w, p in zip(windows, phase, strict=True)]
            strided = padded[(slice(None), slice(None), *split)]
            unit = all(w.stride == 1 for w in windows)  # the padded levels themselves
            phases[phase] = strided if unit else np.ascontiguousarray(strided)
        index = [
            slice(start // w.stride, start // w.stride + w.out)
            for w, start in zip(windows, starts, strict=True)
        ]
        taps[tap] = phases[phase][(slice(None), slice(None), *index)]
    return taps
