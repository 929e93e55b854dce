"""The order in which OpenVINO's CPU plugin folds the reduced elements of each output, shared
by its ReduceMax, ReduceMin, ReduceSum, ReduceL1 and ReduceL2 (measured,
docs/ops/ReduceMax.md#the-cpus-scan and docs/ops/ReduceSum.md#summation-order): one element
after another, or, for contiguous runs of a vector or more, in the vector's SIMD lanes (16 on
AVX-512, 8 with at most AVX2: `lanes`) combined as a fixed tree. The same order decides where
a NaN wins a maximum or a minimum and how an f32 sum rounds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.isa import AVX512_CORE, host_cpu_isa

# The CPU's f32 vector width: its reduce kernels scan runs in this many lanes (a zmm register
# on AVX-512, a ymm one with at most AVX2).
LANES = 16
AVX2_LANES = 8
SEQUENTIAL = 0


def lanes() -> int:
    """The f32 lanes of the CPU's reduce kernel on this host (docs/reductions.md)."""
    return LANES if host_cpu_isa() == AVX512_CORE else AVX2_LANES


Fold = Callable[[NDArray[Any], NDArray[Any]], NDArray[Any]]
Hold = Callable[[NDArray[Any]], NDArray[Any]]


def scan_run(shape: tuple[int, ...], axes: tuple[int, ...]) -> int | None:
    """How the CPU scans the reduced elements of each output, measured with NaN at every
    position (ReduceMax) and on sums that round: `SEQUENTIAL` (one by one), the length of the
    contiguous innermost runs it scans in SIMD lanes, or None where its kernel takes another
    order irpool does not reproduce: on AVX-512, a vector or more of reduced elements with
    rank 5, every axis reduced, rank 4 reduced over axes 1-3, or a kept innermost axis of 1.
    With at most AVX2 each of those scans the runs of its last two axes (measured,
    docs/reductions.md)."""
    rank, width = len(shape), lanes()
    if prod(shape[axis] for axis in axes) < width or rank == 1:
        return SEQUENTIAL
    if width == AVX2_LANES:
        run = _last_two_axes_run(shape, axes)
        return run if run >= width else SEQUENTIAL
    if rank == 5 or len(axes) == rank or (rank == 4 and sorted(axes) == [1, 2, 3]):
        return None
    if shape[-1] == 1 and rank - 1 not in axes:
        return None
    run, axis = 1, rank - 1
    while axis in axes:
        run, axis = run * shape[axis], axis - 1
    return run if run >= width else SEQUENTIAL


def stored_run(shape: tuple[int, ...], axes: tuple[int, ...]) -> int:
    """With at most AVX2, the run of reduced elements of the last two axes after which the
    CPU stores each output, where a shorter one than a vector is scanned one by one (measured
    on integer sums held in their type: docs/ops/ReduceSum.md); SEQUENTIAL on AVX-512 (not
    measured) or where that run is a single element."""
    if lanes() == LANES or len(shape) < 2:
        return SEQUENTIAL
    run = _last_two_axes_run(shape, axes)
    return run if run > 1 else SEQUENTIAL


def _last_two_axes_run(shape: tuple[int, ...], axes: tuple[int, ...]) -> int:
    """The elements of the reduced axes among the last two, from the innermost one on: a kept
    axis of 1 (an innermost one included) does not end the run, another kept axis does."""
    run, axis = 1, len(shape) - 1
    while axis >= len(shape) - 2 and (axis in axes or shape[axis] == 1):
        run, axis = run * shape[axis], axis - 1
    return run


@dataclass(frozen=True)
class Extremum:
    """A maximum or a minimum as the CPU scans it: `acc = acc if better(acc, v) else v`."""

    better: Callable[[NDArray[Any], NDArray[Any]], NDArray[np.bool_]]
    reduce: Callable[..., NDArray[Any]]
    worst: float  # what every element beats

    def pick(self, first: NDArray[Any], second: NDArray[Any]) -> NDArray[Any]:
        """x86 MAXPS/MINPS: `first` when it is better, else `second` (so a NaN on either side
        gives `second`)."""
        return np.where(self.better(first, second), first, second)

    def scan(self, rows: NDArray[Any], start: Any) -> NDArray[Any]:
        """The CPU's sequential scan from `start`, per row: the element after the last NaN
        restarts it (even an infinity the start value would have hidden), so the result is the
        extremum of what follows the last NaN, or NaN when the last element is NaN."""
        count = rows.shape[1]
        nan = np.isnan(rows)
        has_nan = nan.any(axis=1)
        last_nan = np.where(has_nan, count - 1 - np.argmax(nan[:, ::-1], axis=1), -1)
        after = np.arange(count) > last_nan[:, None]
        begin = np.where(has_nan, rows.dtype.type(self.worst), start).astype(rows.dtype)
        found = self.reduce(np.where(after, rows, begin[:, None]), axis=1, initial=self.worst)
        found = self.reduce(np.stack([found, begin]), axis=0)
        return np.where(last_nan == count - 1, rows.dtype.type(np.nan), found)


MAXIMUM = Extremum(np.greater, np.max, -np.inf)
MINIMUM = Extremum(np.less, np.min, np.inf)


def sequential_sum(rows: NDArray[Any], start: Any = 0) -> NDArray[Any]:
    """Each row's sum from `start`, one element after another in the rows' type."""
    total = np.full(len(rows), start, rows.dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        for column in rows.T:
            total += column
    return total


def lane_fold(
    rows: NDArray[Any],
    run: int,
    start: Any,
    combine: Fold,
    scan: Callable[[NDArray[Any], Any], NDArray[Any]],
    hold: Hold | None = None,
) -> NDArray[Any]:
    """The CPU's reduction over runs of `run` (a vector or more) contiguous elements (rows
    hold whole runs, one after the other), measured on NaN at every position and on sums: each
    vector of `lanes()` elements (16 on AVX-512, 8 with AVX2) is folded into its lanes (lane j
    scans elements j, j + lanes(), ... from `start`); 16 lanes are combined as
    ((l0,l4),(l8,l12)) for each of the four lane groups, 8 as (l0,l4); then ((g0,g1),(g2,g3)),
    each pair by `combine` with the later lanes second; the run's result r then updates the
    output as combine(r, output); the run's last `run % lanes()` elements continue the scan
    from there. A shorter run (`stored_run`) is scanned one by one and stored. `hold`: how the
    output is stored between those steps (an integer sum in its type)."""
    count, width = len(rows), lanes()
    vectors = run // width * width
    output = np.full(count, start, rows.dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        for begin in range(0, rows.shape[1], run):
            body = rows[:, begin : begin + vectors].reshape(count, -1, width)
            folded = scan(body.transpose(0, 2, 1).reshape(count * width, -1), start)
            folded = folded.reshape(count, width)
            groups = combine(folded[:, 0:4], folded[:, 4:8])
            if width == LANES:  # the upper 256 bits' groups, then the two halves
                groups = combine(groups, combine(folded[:, 8:12], folded[:, 12:16]))
            result = combine(
                combine(groups[:, 0], groups[:, 1]), combine(groups[:, 2], groups[:, 3])
            )
            output = combine(result, output)
            output = output if hold is None else hold(output)
            tail = rows[:, begin + vectors : begin + run]
            output = scan(np.concatenate([output[:, None], tail], axis=1), start)
            output = output if hold is None else hold(output)
    return output


def reduced_rows(x: NDArray[Any], axes: tuple[int, ...]) -> tuple[NDArray[Any], int]:
    """x as [kept elements, reduced elements] (C-contiguous), and the reduced count."""
    kept = [axis for axis in range(x.ndim) if axis not in axes]
    reduced = sorted(axes)
    count = prod(x.shape[axis] for axis in reduced)
    ordered = x if reduced == list(range(len(kept), x.ndim)) else x.transpose(*kept, *reduced)
    rows = prod(x.shape[axis] for axis in kept)
    return np.ascontiguousarray(ordered).reshape(rows, count), count


def shaped(
    values: NDArray[Any], shape: tuple[int, ...], axes: tuple[int, ...], keep_dims: bool
) -> NDArray[Any]:
    """Per-row results in the output shape."""
    if keep_dims:
        target = tuple(1 if axis in axes else size for axis, size in enumerate(shape))
    else:
        target = tuple(size for axis, size in enumerate(shape) if axis not in axes)
    return values.reshape(target)
