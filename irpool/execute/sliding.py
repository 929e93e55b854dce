"""Separable sliding sums built from shifted slices: the strategy for small kernels.

Wins when the kernel is small (cost grows with the sum of kernel sizes, k-1 additions per
axis). Each axis is summed in one of two modes:

* dense: sums at every start position, as long 1-D additions over the whole flat block
  (row-crossing values appear only at border positions, which are recomputed, or at
  positions no output reads). NumPy pays about 25 ns per inner loop, so long flat loops
  beat row-by-row slicing even when the stride makes half the work wasted.
* select: only the strided windows; wins when rows are long (an outer axis of a 5-D
  input), when the stride is large, or on a strided last axis after dense passes, where
  it reads only the positions the outputs need.

Modes are chosen by an estimated cost. The last step reads the remaining strided
positions and scales by 1/prod(kernel) in one pass; exclude-pad border outputs are then
corrected per axis (the real-tap count is a product of per-axis counts).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.driver import Scratch
from irpool.execute.geometry import Axis
from irpool.execute.window import Window

# Measured on the reference machine (ns): a contiguous element (about 12 per ns for a NumPy
# binary op, in cache or not), a strided element, one inner loop of a NumPy call, and one
# NumPy call from Python.
FLAT_NS = 0.085
STRIDED_NS = 0.27
ROW_NS = 25.0
CALL_NS = 1500.0

DENSE, SELECT, SKIP = "dense", "select", "skip"
Pass = tuple[int, str, tuple[slice, ...]]  # axis, mode, view a selecting pass reads through


class Sliding:
    """Window sums by shifted-slice additions, one pass per axis, modes picked by cost."""

    chunk_bytes = 1 << 23

    def __init__(
        self,
        spatial: tuple[int, ...],
        windows: Sequence[Window],
        count_padding: bool,
        work: np.dtype[Any],
        exact: bool,
    ) -> None:
        itemsize = work.itemsize
        self.axes = [Axis(w) for w in windows]
        options = [self._options(a) for a in self.axes]
        plans = [self._schedule(modes) for modes in itertools.product(*options)]
        self.plane_ns, self.calls, self.passes, self.gather = min(plans, key=lambda p: p[0])
        self.plane_bytes = prod(spatial) * itemsize
        self.scale = None if exact else 1.0 / prod(w.kernel for w in windows)
        self.corrections = [] if exact or count_padding else self._corrections()
        self.calls += len(self.corrections) + 1

    def estimate(self, planes: int) -> float:
        """Estimated ns for `planes` N×C planes."""
        blocks = -(-planes * self.plane_bytes // self.chunk_bytes)
        return planes * self.plane_ns + blocks * self.calls * CALL_NS

    @staticmethod
    def _options(axis: Axis) -> tuple[str, ...]:
        w = axis.window
        if (w.out - 1) * w.stride >= w.size:  # dense sums would need positions past the input
            return (SELECT,)
        if w.kernel == 1 and w.pad_begin == 0:
            return (SKIP,)
        return DENSE, SELECT

    def _schedule(self, modes: tuple[str, ...]) -> tuple[float, int, list[Pass], tuple[slice, ...]]:
        """Order the passes and estimate ns per plane and NumPy calls per block.

        Selecting passes run first, except on the last axis, where a selecting pass (strided
        reads) runs last and also applies the strides the dense passes left pending.
        """
        last = len(modes) - 1
        order = [i for i, m in enumerate(modes) if m == SELECT and i != last]
        order += [i for i, m in enumerate(modes) if m != SELECT]
        order += [last] if modes[last] == SELECT and last not in order else []
        sizes = [a.window.size for a in self.axes]
        pending = [False] * len(modes)
        ns, calls = 0.0, 0
        passes: list[Pass] = []
        for i in order:
            w = self.axes[i].window
            if modes[i] != SELECT:
                pending[i] = w.stride > 1 or w.out < w.size
                if modes[i] == DENSE:
                    ns += (w.kernel - 1) * prod(sizes) * FLAT_NS
                    passes.append((i, DENSE, ()))
            else:
                view = self._view(pending)
                sizes = [
                    a.window.out if p else s
                    for a, p, s in zip(self.axes, pending, sizes, strict=True)
                ]
                sizes[i] = w.out
                strided = any(
                    p and self.axes[j].window.stride > 1 for j, p in enumerate(pending) if j > i
                )
                ns += (w.kernel - 1) * prod(sizes) * self._rate(sizes[i + 1 :], strided)
                pending = [False] * len(modes)
                passes.append((i, SELECT, view))
            borders = len(self.axes[i].borders) * w.kernel
            ns += borders * prod(sizes) / max(1, sizes[i]) * self._rate(sizes[i + 1 :], False)
            calls += w.kernel - 1 + borders
        gather = self._view(pending)
        if any(pending):
            tail = [a.window.out for a in self.axes[max(i for i, p in enumerate(pending) if p) :]]
            strided = pending[last] and self.axes[last].window.stride > 1
            rate = self._rate(tail, strided)
        else:
            rate = FLAT_NS
        ns += prod(a.window.out for a in self.axes) * rate
        return ns, calls, passes, gather

    def _view(self, pending: list[bool]) -> tuple[slice, ...]:
        """Reads the outputs' positions along axes whose strides are still pending."""
        return (
            slice(None),
            *(
                slice(0, (a.window.out - 1) * a.window.stride + 1, a.window.stride)
                if p
                else slice(None)
                for a, p in zip(self.axes, pending, strict=True)
            ),
        )

    @staticmethod
    def _rate(inner: Sequence[int], strided: bool) -> float:
        length = prod(inner)
        if strided or length == 1:
            return STRIDED_NS
        return FLAT_NS + ROW_NS / length

    def _corrections(self) -> list[tuple[tuple[slice, ...], NDArray[np.float64]]]:
        """Exclude-pad: border outputs divide by their real-tap count, not by the kernel."""
        result = []
        for index, axis in enumerate(self.axes):
            lo, hi = axis.interior
            k = axis.window.kernel
            counts = axis.counts
            factors = np.where(counts > 0, k / np.maximum(counts, 1), 0.0)
            trailing = (1,) * (len(self.axes) - index - 1)
            for start, stop in ((0, lo), (hi, axis.window.out)):
                if stop > start:
                    where = (slice(None),) * (index + 1) + (slice(start, stop),)
                    result.append((where, factors[start:stop].reshape(-1, *trailing)))
        return result

    def run(self, src: NDArray[Any], dst: NDArray[Any], scratch: Scratch) -> None:
        current = src
        for step, (index, mode, view) in enumerate(self.passes):
            axis = self.axes[index]
            if mode == DENSE:
                target = scratch.array(step % 2, current.shape, src.dtype)
                _dense(current, target, index + 1, axis)
            else:
                source = current[view]
                shape = list(source.shape)
                shape[index + 1] = axis.window.out
                target = scratch.array(step % 2, tuple(shape), src.dtype)
                _select(source, target, index + 1, axis)
            current = target
        final = current[self.gather]
        if self.scale is None:
            np.copyto(dst, final)
        else:
            np.multiply(final, self.scale, out=dst, dtype=dst.dtype)
        for where, factors in self.corrections:
            part = dst[where]
            np.multiply(part, factors, out=part, dtype=dst.dtype)


def _sum_into(target: NDArray[Any], terms: Sequence[NDArray[Any]]) -> None:
    if not terms:
        target.fill(0)
    elif len(terms) == 1:
        np.copyto(target, terms[0])
    else:
        np.add(terms[0], terms[1], out=target)
        for term in terms[2:]:
            np.add(target, term, out=target)


def _fill_borders(
    source: NDArray[Any], target: NDArray[Any], ax: int, axis: Axis, position: int
) -> None:
    """Recompute the border outputs of `axis` from their real taps only."""
    w = axis.window
    for o in axis.borders:
        taps = [source[_at(ax, t)] for t in axis.real_taps(o)]
        _sum_into(target[_at(ax, o * w.stride if position else o)], taps)


def _at(ax: int, where: int | slice) -> tuple[int | slice, ...]:
    """Index of `where` along array axis `ax`."""
    return (*(slice(None),) * ax, where)


def _dense(source: NDArray[Any], target: NDArray[Any], ax: int, axis: Axis) -> None:
    """Sums at every start position along `ax` (same shape), as flat shifted additions."""
    w = axis.window
    inner = prod(source.shape[ax + 1 :])
    flat_in, flat_out = source.reshape(-1), target.reshape(-1)
    total = flat_in.size
    shifts = [(j * w.dilation - w.pad_begin) * inner for j in range(w.kernel)]
    lo, hi = max(0, -shifts[0]), min(total, total - shifts[-1])
    if hi > lo:
        _sum_into(flat_out[lo:hi], [flat_in[lo + s : hi + s] for s in shifts])
    _fill_borders(source, target, ax, axis, position=True)


def _select(source: NDArray[Any], target: NDArray[Any], ax: int, axis: Axis) -> None:
    """Sums of the strided windows along `ax` only (the axis shrinks or grows to `out`)."""
    w = axis.window
    lo, hi = axis.interior
    if hi > lo:
        span = (hi - lo - 1) * w.stride + 1
        taps = [
            source[_at(ax, slice(t, t + span, w.stride))]
            for t in (axis.tap(lo, j) for j in range(w.kernel))
        ]
        _sum_into(target[_at(ax, slice(lo, hi))], taps)
    _fill_borders(source, target, ax, axis, position=False)
