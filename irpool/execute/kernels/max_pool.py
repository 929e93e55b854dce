"""MaxPool on NumPy arrays: separable passes over strided views, one spatial axis at a time.

The CPU plugin (measured: docs/ops/MaxPool.md) starts each window at
the element type's lowest finite value and keeps a tap only when it is strictly greater:
padding is never selected, NaN never wins, -inf never beats the start value, ties keep the
first tap in row-major order, and a window without a real tap gives the lowest value at
index 0.

A maximum is separable, so each pass reduces one axis: outputs whose taps are all real
(the interior) take one NumPy operation per tap over strided views of the whole block,
or, with stride 2, over its two phases laid out contiguously (`engine/window_max.py`; which passes
do is a measured rule, or timed on the machine that runs, `tuning`); border outputs use
their real taps only. Values use `maximum`, and `fmax` (which skips NaN)
on a block holding NaN, then are clamped to the lowest value. Indices come after the
values: the first tap in row-major order that equals its window's maximum
(`indexed_maxima`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.maxima import (
    bf16_window_start,
    flushed_subnormals,
    integer_maxima_through_f32,
    max_pool_values_in_f32,
)
from irpool.execute.engine import tuning
from irpool.execute.engine.blocks import for_each_block
from irpool.execute.engine.costs import CHUNK_BYTES, FLAT_NS
from irpool.execute.engine.scratch import Scratch
from irpool.execute.engine.window_max import (
    Layout,
    axis_passes,
    can_phase,
    indexed_maxima,
    rule_layout,
    window_maxima,
)
from irpool.execute.registry import OutputSpec, kernel_for, prepared
from irpool.ops.max_pool import MaxPoolBase
from irpool.ops.pooling_geometry import Window


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
    bf16 = outputs[0].type.rounds_when_held  # held as f32; runs values only (IR605)
    lowest = bf16_window_start(windows) if bf16 else None
    layout = prepared(
        op,
        (x.shape, x.dtype, indices, axis, lowest),
        lambda: _tuned_layout(x, windows, indices, axis, lowest),
    )
    values, found = max_pool(x, windows, indices, axis, lowest, layout)
    if bf16:
        values = flushed_subnormals(values)
    if not indices and x.dtype.kind in "iu" and max_pool_values_in_f32(x.shape, windows):
        values = integer_maxima_through_f32(values)
    if len(outputs) == 1:
        return [values]
    return [values, None if found is None else found.astype(outputs[1].dtype)]


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
    the compare type's lowest value (bf16 held as f32: `bf16_window_start`). `layout`: which
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
    passes = axis_passes(tuple(windows))
    phased = (layout or rule_layout(passes, x.shape[2:], work)).phased

    def pool(start: int, stop: int, scratch: Scratch) -> None:
        chunk = source[start:stop]
        if chunk.dtype != work:
            chunk = _to_work(chunk, work)
        block_target = target[start:stop]
        if found is None:
            final = block_target if block_target.dtype == work else None
            reduced = window_maxima(chunk, passes, phased, lowest, scratch, final)
        else:
            reduced, where = indexed_maxima(chunk, tuple(windows), phased, lowest, scratch)
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


def layouts(
    windows: tuple[Window, ...], spatial: tuple[int, ...], dtype: np.dtype[Any]
) -> list[Layout]:
    """The rule's layout first, then the others by how many passes they change (at most
    `tuning.SHORTLIST` in all): every one computes the same maxima, in other passes."""
    work, _ = _work_type(dtype)
    passes = axis_passes(windows)
    rule = rule_layout(passes, spatial, work)
    able = [can_phase(p, prod(spatial[p.axis + 1 :]), work) for p in passes]
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
