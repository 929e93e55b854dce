"""MaxPool on NumPy arrays: separable passes over strided views, one spatial axis at a time.

The CPU plugin (measured: docs/semantics.md, "MaxPool-1 / -8 / -14") starts each window at
the element type's lowest finite value and keeps a tap only when it is strictly greater:
padding is never selected, NaN never wins, -inf never beats the start value, ties keep the
first tap in row-major order, and a window without a real tap gives the lowest value at
index 0.

A maximum is separable, so each pass reduces one axis: outputs whose taps are all real
(the interior) take one NumPy operation per tap over strided views of the whole block,
or, with stride 2, over its two phases laid out contiguously (see `Layout`: which passes
do is a measured rule, or timed on the machine that runs, `tuning`); border outputs use
their real taps only. Values use `maximum`, and `fmax` (which skips NaN)
on a block holding NaN, then are clamped to the lowest value. Indices come after the
values: the first tap in row-major order that equals its window's maximum (see `_indexed`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.engine import tuning
from irpool.execute.engine.blocks import for_each_block
from irpool.execute.engine.costs import BUFFER, CHUNK_BYTES, FLAT_NS
from irpool.execute.engine.maxima import BF16_LOWEST, compared_in_f32, flushed_subnormals, from_f32
from irpool.execute.engine.phases import CAST_OK, lay_out_phase
from irpool.execute.engine.scratch import Scratch, Slot
from irpool.execute.registry import OutputSpec, kernel_for, prepared
from irpool.ops.max_pool import MaxPoolBase
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


@kernel_for(MaxPoolBase)
def run_max_pool(
    op: MaxPoolBase, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    """MaxPool-1 has one output; MaxPool-8/14 compute indices only when something reads them."""
    x = inputs[0]
    indices = len(outputs) > 1 and outputs[1].used
    axis = op.attrs["axis"] % x.ndim if indices else 0
    windows = op.windows(x.shape)
    if indices and op.unpadded_axes:
        windows = tuple(
            replace(w, pad_begin=0) if number in op.unpadded_axes else w
            for number, w in enumerate(windows)
        )
    bf16 = outputs[0].type.rounds_when_held  # held as f32; runs values only (IR214)
    lowest = _bf16_lowest(windows) if bf16 else None
    layout = prepared(
        op,
        (x.shape, x.dtype, indices, axis, lowest),
        lambda: _tuned_layout(x, windows, indices, axis, lowest),
    )
    values, found = max_pool(x, windows, indices, axis, lowest, layout)
    if bf16:
        values = flushed_subnormals(values)
    if not indices and x.dtype.kind in "iu" and _runs_in_f32(x.shape, windows):
        values = _through_f32(values)
    if len(outputs) == 1:
        return [values]
    return [values, None if found is None else found.astype(outputs[1].dtype)]


def _runs_in_f32(shape: tuple[int, ...], windows: Sequence[Window]) -> bool:
    """Whether the CPU's kernel for integer values without indices computes in f32: with more
    than one channel, or on the windows of `_general_kernel` (measured; one channel otherwise
    runs an exact integer kernel)."""
    return (len(shape) > 1 and shape[1] > 1) or _general_kernel(windows)


def _general_kernel(windows: Sequence[Window]) -> bool:
    """Whether the CPU's values-only kernel is its general one whatever the channels: with a
    dilation, or when some window holds no real element (measured)."""
    if any(w.dilation > 1 for w in windows):
        return True
    return any(not w.real_taps(o) for w in windows for o in w.borders)


def _bf16_lowest(windows: Sequence[Window]) -> float:
    """Where a bf16 window starts (measured): the general kernel starts at bf16's lowest
    value, the other at -inf, so there an all -inf or all-NaN window gives -inf."""
    return float(BF16_LOWEST) if _general_kernel(windows) else -np.inf


def _through_f32(values: NDArray[Any]) -> NDArray[Any]:
    """The values as the CPU's oneDNN kernel gives them in f32 (`_runs_in_f32`): its int32
    compare type in f32, rounded to nearest and clamped to the largest f32 below 2**31
    (2147483647 -> 2147483520), then wrapped back to the type. Measured on i32, i64, u32 and
    u64 (docs/semantics.md, MaxPool); 8- and 16-bit integers are exact in f32."""
    if values.dtype.itemsize < 4:
        return values
    return from_f32(compared_in_f32(values), values.dtype)


def max_pool(
    x: NDArray[Any],
    windows: Sequence[Window],
    indices: bool,
    axis: int = 0,
    start: float | None = None,
    layout: Layout | None = None,
) -> tuple[NDArray[Any], NDArray[np.int64] | None]:
    """Max over each window of `x` [N, C, *spatial], and with `indices` the flat index of
    the winning element over the whole tensor, taken modulo prod(x.shape[axis:]) when
    `axis` (already non-negative) is not 0. `start`: where each window starts instead of
    the compare type's lowest value (bf16 held as f32: `_bf16_lowest`). `layout`: which
    passes lay out stride phases (`layouts`); by default the measured rule's."""
    work, lowest = _work_type(x.dtype)
    if start is not None:
        lowest = work.type(start)
    out_spatial = tuple(w.out for w in windows)
    values = np.empty((*x.shape[:2], *out_spatial), x.dtype)
    found = np.zeros(values.shape, np.int64) if indices else None
    planes = x.shape[0] * x.shape[1]
    if values.size == 0:
        return values, found
    source = np.ascontiguousarray(x).reshape(planes, *x.shape[2:])
    target = values.reshape(planes, *out_spatial)
    passes = _passes(tuple(windows))
    phased = (layout or _rule_layout(passes, x.shape[2:], work)).phased

    def pool(start: int, stop: int, scratch: Scratch) -> None:
        chunk = source[start:stop]
        if chunk.dtype != work:
            chunk = _to_work(chunk, work)
        block_target = target[start:stop]
        if found is None:
            final = block_target if block_target.dtype == work else None
            reduced = _values(chunk, passes, phased, lowest, scratch, final)
        else:
            reduced, where = _indexed(chunk, tuple(windows), phased, lowest, scratch)
            found.reshape(planes, -1)[start:stop] = where.reshape(stop - start, -1)
        if reduced is not block_target:
            np.copyto(block_target, reduced, casting="unsafe")

    plane_bytes = max(1, prod(x.shape[2:]) * work.itemsize)
    for_each_block(planes, plane_bytes, CHUNK_BYTES, pool)
    if found is not None:
        plane = prod(x.shape[2:])
        offsets = np.arange(planes, dtype=np.int64) * plane
        found += offsets.reshape(*x.shape[:2], *(1,) * len(windows))
        if axis:
            found %= prod(x.shape[axis:])
    return values, found


def _work_type(dtype: np.dtype[Any]) -> tuple[np.dtype[Any], Any]:
    """The type the CPU plugin compares in, and its lowest value (the start of a window).

    Measured: floats go through f32 (f64 saturating first); i8 and u8 (and boolean, as u8)
    are compared as they are; every other integer type is wrapped to i32 and back, so u32
    values above 2**31 compare as negative and an empty u16 window gives 0 (INT32_MIN)."""
    work: np.dtype[Any]
    if dtype.kind == "f":
        work = np.dtype(np.float32)
        return work, np.finfo(work).min
    if dtype.itemsize == 1:
        work = np.dtype(np.uint8) if dtype == np.bool_ else dtype
    else:
        work = np.dtype(np.int32)
    return work, np.iinfo(work).min


def _to_work(chunk: NDArray[Any], work: np.dtype[Any]) -> NDArray[Any]:
    if chunk.dtype == np.float64:
        limit = np.finfo(np.float32).max
        clipped: NDArray[Any] = np.clip(chunk, -limit, limit)
        return clipped.astype(work)
    return chunk.astype(work)  # integers wrap, as the runtime's conversion does


@lru_cache(maxsize=256)
def _passes(windows: tuple[Window, ...]) -> tuple[AxisPass, ...]:
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


def _shaped(array: NDArray[Any], axis: int) -> NDArray[Any]:
    """[lead, length, inner] view of `array` [planes, *spatial] around spatial `axis`, or
    [lead, length] on the last axis (NumPy loops over a trailing 1 slowly)."""
    shape = array.shape
    lead, inner = prod(shape[: axis + 1]), prod(shape[axis + 2 :])
    return array.reshape(lead, shape[axis + 1], inner) if inner > 1 else array.reshape(lead, -1)


def _values(
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
    current = _reduce(chunk, passes, phased, lowest, np.maximum, scratch, final)
    if current.dtype.kind != "f":
        return current
    smallest = current.min()
    if np.isnan(smallest):
        current = _reduce(chunk, passes, phased, lowest, np.fmax, scratch, final)
        smallest = current.min()
    if not smallest >= lowest:
        np.fmax(current, lowest, out=current)  # -inf and all-NaN windows give the lowest
    return current


def _reduce(
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
        source, target = _shaped(current, p.axis), _shaped(result, p.axis)
        for number, span in enumerate(p.spans):
            if number == 0 and p.stride == 1 and p.out == p.size:
                views, part = _flat_interior(current, result, p, span)
            elif number == 0 and phased[step]:
                views, part = _phase_interior(current, result, p, span, scratch)
            else:
                views = [_taps(source, span, p.stride, t) for t in span.taps]
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


def _flat_interior(
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


def _can_phase(p: AxisPass, inner: int, work: np.dtype[Any]) -> bool:
    """Stride 2 over an even axis: the first span can read the two phases laid out
    contiguously (a last axis of 4-byte words splits by a uint64 cast, engine/phases.py;
    an outer axis by row copies)."""
    if p.stride != 2 or p.size % 2 or not p.spans:
        return False
    return inner > 1 or (CAST_OK and work.itemsize == 4)


def _rule_layout(
    passes: tuple[AxisPass, ...], spatial: tuple[int, ...], work: np.dtype[Any]
) -> Layout:
    """The measured rule (AMD EPYC): NumPy combines contiguous phases at full speed, so a
    last axis always phases; an outer axis whose rows NumPy would buffer phases only with
    more taps than phases (the row copies pay off then)."""
    phased = []
    for p in passes:
        inner = prod(spatial[p.axis + 1 :])  # passes go outer axes first
        able = _can_phase(p, inner, work)
        phased.append(able and (inner == 1 or (inner < BUFFER and len(p.spans[0].taps) > 2)))
    return Layout(tuple(phased))


def layouts(
    windows: tuple[Window, ...], spatial: tuple[int, ...], dtype: np.dtype[Any]
) -> list[Layout]:
    """The rule's layout first, then the others by how many passes they change (at most
    `tuning.SHORTLIST` in all): every one computes the same maxima, in other passes."""
    work, _ = _work_type(dtype)
    passes = _passes(windows)
    rule = _rule_layout(passes, spatial, work)
    able = [_can_phase(p, prod(spatial[p.axis + 1 :]), work) for p in passes]
    found = [
        Layout(tuple(bool(c) and a for c, a in zip(choice, able, strict=True)))
        for choice in itertools.product((False, True), repeat=len(passes))
    ]
    distinct = sorted(
        set(found), key=lambda f: sum(a != b for a, b in zip(f.phased, rule.phased, strict=True))
    )
    return distinct[: tuning.SHORTLIST]


def _tuned_layout(
    x: NDArray[Any], windows: Sequence[Window], indices: bool, axis: int, start: float | None
) -> Layout:
    """The fastest layout on this machine for this shape, timed on `x` (`tuning`)."""
    found = layouts(tuple(windows), x.shape[2:], x.dtype)
    # One estimate for all: no cost model ranks them; it bounds how long timing takes.
    taps = sum(w.kernel for w in windows)
    estimate = x.size * taps * FLAT_NS
    key = f"MaxPool {tuple(windows)} {x.dtype.str} {x.shape[0] * x.shape[1]} {indices}"
    return tuning.pick(
        key,
        [(layout, estimate) for layout in found],
        lambda layout: max_pool(x, windows, indices, axis, start, layout),
    )


def _phase_interior(
    source: NDArray[Any], target: NDArray[Any], p: AxisPass, span: Span, scratch: Scratch
) -> tuple[list[NDArray[Any]], NDArray[Any]]:
    """Tap t = 2q + r of output o is element o + q of phase r. When the output is as long
    as a phase, each tap is one flat slice of the block; outputs spilling across a row end
    are borders, which the later spans redo."""
    rows = _shaped(source, p.axis)
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
    return views, _shaped(target, p.axis)[:, span.lo : span.hi]


def _indexed(
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
    values = _values(chunk, _passes(windows), phased, lowest, scratch)
    padded = scratch.array(Slot.PADDED, (len(chunk), *_padded_sizes(windows)), chunk.dtype)
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


def _padded_sizes(windows: tuple[Window, ...]) -> tuple[int, ...]:
    """Each axis padded to hold its data and every tap of every window."""
    return tuple(
        max(w.pad_begin + w.size, (w.out - 1) * w.stride + (w.kernel - 1) * w.dilation + 1)
        for w in windows
    )


def _taps(source: NDArray[Any], span: Span, stride: int, tap: int) -> NDArray[Any]:
    """The inputs that tap `tap` reads for the outputs of `span` (a strided view)."""
    start = span.lo * stride + tap
    return source[:, start : (span.hi - 1) * stride + tap + 1 : stride]
