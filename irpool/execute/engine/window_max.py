"""The maximum over sliding windows on NumPy arrays, one spatial axis at a time: the passes
of each axis, their strided views or laid-out stride phases, and the first tap holding each
maximum. Which start value and compare type apply is the kernel's (kernels/max_pool.py)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.engine.costs import BUFFER
from irpool.execute.engine.phases import CAST_OK, lay_out_phase
from irpool.execute.engine.scratch import Scratch, Slot
from irpool.ops.pooling_geometry import Window


@dataclass(frozen=True, slots=True)
class Span:
    """Outputs [lo, hi) of one pass that read the same taps, as offsets from o*stride."""

    lo: int
    hi: int
    taps: tuple[int, ...]  # input position of output o, tap j: o*stride + taps[j]


@dataclass(frozen=True, slots=True)
class AxisPass:
    """Reduces array axis `axis + 1` (after the planes) from `size` to `out` positions."""

    axis: int
    size: int
    out: int
    stride: int
    spans: tuple[Span, ...]


@lru_cache(maxsize=256)
def axis_passes(windows: tuple[Window, ...]) -> tuple[AxisPass, ...]:
    """One pass per axis that is not the identity, outer axes first: the inner passes, whose
    views are element-strided, then work on the smallest arrays."""
    passes = []
    for index, w in enumerate(windows):
        if w.kernel == 1 and w.pad_begin == 0 and w.stride == 1 and w.out == w.size:
            continue
        lo, hi = w.interior
        offsets = tuple(j * w.dilation - w.pad_begin for j in range(w.kernel))
        spans = [Span(lo, hi, offsets)] if hi > lo else []
        for o in w.borders:
            real = tuple(t - o * w.stride for t in w.real_taps(o))
            spans.append(Span(o, o + 1, real))
        passes.append(AxisPass(index, w.size, w.out, w.stride, tuple(spans)))
    return tuple(passes)


def shaped(array: NDArray[Any], axis: int) -> NDArray[Any]:
    """[lead, length, inner] view of `array` [planes, *spatial] around spatial `axis`, or
    [lead, length] on the last axis (NumPy loops over a trailing 1 slowly)."""
    shape = array.shape
    lead, inner = prod(shape[: axis + 1]), prod(shape[axis + 2 :])
    return array.reshape(lead, shape[axis + 1], inner) if inner > 1 else array.reshape(lead, -1)


def window_maxima(
    chunk: NDArray[Any],
    passes: tuple[AxisPass, ...],
    phased: tuple[bool, ...],
    lowest: Any,
    scratch: Scratch,
    final: NDArray[Any] | None = None,
) -> NDArray[Any]:
    """Window maxima, written into `final` when given (saves a copy of the output);
    `maximum` is twice as fast as `fmax` (measured), so NaN, which it propagates, sends the
    block through `fmax` again."""
    current = reduce_pass(chunk, passes, phased, lowest, np.maximum, scratch, final)
    if current.dtype.kind != "f":
        return current
    smallest = current.min()
    if np.isnan(smallest):
        current = reduce_pass(chunk, passes, phased, lowest, np.fmax, scratch, final)
        smallest = current.min()
    if not smallest >= lowest:
        np.fmax(current, lowest, out=current)  # -inf and all-NaN windows give the lowest
    return current


def reduce_pass(
    chunk: NDArray[Any],
    passes: tuple[AxisPass, ...],
    phased: tuple[bool, ...],
    lowest: Any,
    combine: np.ufunc,
    scratch: Scratch,
    final: NDArray[Any] | None = None,
) -> NDArray[Any]:
    current = chunk
    for step, p in enumerate(passes):
        shape = list(current.shape)
        shape[p.axis + 1] = p.out
        if final is not None and step == len(passes) - 1:
            result = final
        else:
            result = scratch.array(Slot.PASS, tuple(shape), current.dtype, step % 2)
        source, target = shaped(current, p.axis), shaped(result, p.axis)
        for number, span in enumerate(p.spans):
            if number == 0 and p.stride == 1 and p.out == p.size:
                views, part = flat_interior(current, result, p, span)
            elif number == 0 and phased[step]:
                views, part = phase_interior(current, result, p, span, scratch)
            else:
                views = [tap_views(source, span, p.stride, t) for t in span.taps]
                part = target[:, span.lo : span.hi]
            if not views:
                part.fill(lowest)
            elif len(views) == 1:
                np.copyto(part, views[0])
            else:
                combine(views[0], views[1], out=part)
                for view in views[2:]:
                    combine(part, view, out=part)
        current = result
    return chunk.copy() if current is chunk else current


def flat_interior(
    source: NDArray[Any], target: NDArray[Any], p: AxisPass, span: Span
) -> tuple[list[NDArray[Any]], NDArray[Any]]:
    """Stride 1 onto an output as long as its input: the interior as 1-D contiguous slices of
    the whole block (measured: NumPy loops over short rows slowly). Outputs between two rows'
    interiors get values across the row end; they are borders, which the later spans redo."""
    inner = prod(source.shape[p.axis + 2 :])
    flat_source, flat_target = source.reshape(-1), target.reshape(-1)
    start = span.lo * inner
    stop = flat_target.size - (p.out - span.hi) * inner
    views = [flat_source[start + t * inner : stop + t * inner] for t in span.taps]
    return views, flat_target[start:stop]


@dataclass(frozen=True, slots=True)
class Layout:
    """Per pass, whether its first span reads stride phases laid out contiguously."""

    phased: tuple[bool, ...]

    @property
    def label(self) -> str:
        return "maxpool " + " ".join("phases" if p else "views" for p in self.phased)


def can_phase(p: AxisPass, inner: int, work: np.dtype[Any]) -> bool:
    """Stride 2 over an even axis: the first span can read the two phases laid out
    contiguously (a last axis of 4-byte words splits by a uint64 cast, engine/phases.py;
    an outer axis by row copies)."""
    if p.stride != 2 or p.size % 2 or not p.spans:
        return False
    return inner > 1 or (CAST_OK and work.itemsize == 4)


def rule_layout(
    passes: tuple[AxisPass, ...], spatial: tuple[int, ...], work: np.dtype[Any]
) -> Layout:
    """The measured rule (AMD EPYC): NumPy combines contiguous phases at full speed, so a
    last axis always phases; an outer axis whose rows NumPy would buffer phases only with
    more taps than phases (the row copies pay off then)."""
    phased = []
    for p in passes:
        inner = prod(spatial[p.axis + 1 :])  # passes go outer axes first
        able = can_phase(p, inner, work)
        phased.append(able and (inner == 1 or (inner < BUFFER and len(p.spans[0].taps) > 2)))
    return Layout(tuple(phased))


def phase_interior(
    source: NDArray[Any], target: NDArray[Any], p: AxisPass, span: Span, scratch: Scratch
) -> tuple[list[NDArray[Any]], NDArray[Any]]:
    """Tap t = 2q + r of output o is element o + q of phase r. When the output is as long
    as a phase, each tap is one flat slice of the block; outputs spilling across a row end
    are borders, which the later spans redo."""
    rows = shaped(source, p.axis)
    lead, inner = rows.shape[0], prod(rows.shape[2:])
    half = p.size // 2
    phases: dict[int, NDArray[Any]] = {}
    for r in sorted({t % 2 for t in span.taps}):
        phase = scratch.array(Slot.PHASE, (lead, half, *rows.shape[2:]), source.dtype, r)
        lay_out_phase(rows, phase, r, 2, half, inner == 1)
        phases[r] = phase
    if p.out == half:
        start, stop = span.lo * inner, (lead * half - (p.out - span.hi)) * inner
        flats = {r: phase.reshape(-1) for r, phase in phases.items()}
        shifts = [(t % 2, t // 2 * inner) for t in span.taps]
        views = [flats[r][start + shift : stop + shift] for r, shift in shifts]
        return views, target.reshape(-1)[start:stop]
    views = [phases[t % 2][:, span.lo + t // 2 : span.hi + t // 2] for t in span.taps]
    return views, shaped(target, p.axis)[:, span.lo : span.hi]


def indexed_maxima(
    chunk: NDArray[Any],
    windows: tuple[Window, ...],
    phased: tuple[bool, ...],
    lowest: Any,
    scratch: Scratch,
) -> tuple[NDArray[Any], NDArray[np.int64]]:
    """The maxima, then for each the first tap in row-major order holding it: taps are
    scanned last to first over a copy padded with the lowest value (which no window keeps),
    remembering each equal tap's number; the numbers become flat input indices at the end.
    A window whose maximum is the lowest value kept no tap: index 0."""
    values = window_maxima(chunk, axis_passes(windows), phased, lowest, scratch)
    padded = scratch.array(Slot.PADDED, (len(chunk), *padded_sizes(windows)), chunk.dtype)
    padded.fill(lowest)
    inside = tuple(slice(w.pad_begin, w.pad_begin + w.size) for w in windows)
    padded[(slice(None), *inside)] = chunk
    taps = scratch.array(Slot.TAP_NUMBERS, values.shape, np.dtype(np.int32))
    taps.fill(0)
    equal = scratch.array(Slot.EQUAL, values.shape, np.dtype(np.bool_))
    kernel = [range(w.kernel) for w in windows]
    for number, tap in reversed(list(enumerate(itertools.product(*kernel)))):
        view = padded[
            (
                slice(None),
                *(
                    slice(j * w.dilation, j * w.dilation + (w.out - 1) * w.stride + 1, w.stride)
                    for j, w in zip(tap, windows, strict=True)
                ),
            )
        ]
        np.equal(view, values, out=equal)
        np.copyto(taps, number, where=equal)
    where = np.zeros(values.shape, np.int64)
    later = 1  # taps of the axes after this one
    unit = 1  # input elements between consecutive positions on this axis
    for axis in reversed(range(len(windows))):
        w = windows[axis]
        tap_on_axis = (taps // later) % w.kernel if later > 1 else taps % w.kernel
        starts = np.arange(w.out, dtype=np.int64) * w.stride - w.pad_begin
        along = starts.reshape(-1, *(1,) * (len(windows) - 1 - axis))
        where += (tap_on_axis * w.dilation + along) * unit
        later *= w.kernel
        unit *= w.size
    where[~(values > lowest)] = 0
    return values, where


def padded_sizes(windows: tuple[Window, ...]) -> tuple[int, ...]:
    """Each axis padded to hold its data and every tap of every window."""
    return tuple(
        max(w.pad_begin + w.size, (w.out - 1) * w.stride + (w.kernel - 1) * w.dilation + 1)
        for w in windows
    )


def tap_views(source: NDArray[Any], span: Span, stride: int, tap: int) -> NDArray[Any]:
    """The inputs that tap `tap` reads for the outputs of `span` (a strided view)."""
    start = span.lo * stride + tap
    return source[:, start : (span.hi - 1) * stride + tap + 1 : stride]
