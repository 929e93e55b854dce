"""One axis pass of the sliding-window sum: what it reads and writes, its estimated cost,
and how it runs (the strategy that picks and orders the passes is `sliding`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.engine.costs import (
    BUFFER,
    BUFFERED_NS,
    BUFFERED_ROW_NS,
    CAST_NS,
    COLD_CAST_NS,
    COLD_NS,
    COLUMN_NS,
    COPY_ROW_NS,
    FLAT_NS,
    ROW_NS,
    STRIDED_NS,
)
from irpool.execute.engine.phases import lay_out_phase
from irpool.execute.engine.scratch import Scratch, Slot

# How a pass reads its input: strided views in place (no flat slices); the input itself,
# summing at every position and keeping every stride-th ("dense"); or phases laid out by
# row copies, by uint64 -> uint32 casts, or as 1-D strided flat views.
VIEW, DENSE, COPY, CAST, STRIDED = "view", "dense", "copy", "cast", "strided"


@dataclass(frozen=True)
class Pass:
    """One axis: `lead` (per plane) x `size` x `inner` elements become `out` along it."""

    axis: int
    kind: str
    lead: int
    size: int
    inner: int
    out: int
    stride: int
    layout: int  # flat kinds: length of the axis in the phases' and the sums' layout
    phases: tuple[tuple[int, int], ...]  # flat kinds: (phase r, entries valid per row)
    terms: tuple[tuple[int, int], ...]  # (phase r, shift q): tap q*stride + r; dense: (0, tap)
    interior: tuple[int, int]  # outputs [lo, hi) summed in bulk
    borders: tuple[tuple[int, tuple[int, ...]], ...]  # other outputs and their real taps

    @property
    def step(self) -> int:
        """Layout positions between consecutive outputs."""
        return self.stride if self.kind == DENSE else 1

    @property
    def compacts(self) -> bool:
        """Whether the sums are copied from their layout into the output afterwards."""
        return self.layout != self.out or self.step > 1

    def shape(self, lead: int, length: int) -> tuple[int, ...]:
        """3-D (lead, length, inner), or 2-D on the last axis so a column is a 1-D view."""
        return (lead, length) if self.inner == 1 else (lead, length, self.inner)

    def cost(self, cold: bool = False) -> tuple[float, int]:
        """Estimated ns per plane and NumPy calls per block; `cold`: the input is in memory."""
        lo, hi = self.interior
        adds = max(1, len(self.terms) - 1) if hi > lo else 0
        bulk = self.lead * (hi - lo) * self.inner
        if self.kind == VIEW:
            if self.inner > 1:
                rate = FLAT_NS + 2 * _buffered_ns(self.inner)
                rows = 0
            else:  # rows merge into one strided loop only when they are back to back
                rate = STRIDED_NS
                merged = lo == 0 and hi == self.out and self.size == self.stride * self.out
                rows = 0 if merged else self.lead
            ns, calls = adds * (bulk * rate + rows * ROW_NS), adds
        else:
            elements = self.lead * self.layout * self.inner
            rate = STRIDED_NS if self.kind == STRIDED else FLAT_NS
            ns, calls = adds * elements * rate, adds
            if self.kind == COPY:
                copied = sum(valid for _, valid in self.phases) * self.lead * self.inner
                ns += copied * _copy_ns(self.inner)
                calls += len(self.phases)
            elif self.kind == CAST:
                ns += len(self.phases) * elements * CAST_NS
                calls += 2 * len(self.phases)
            if self.compacts:
                ns += bulk * _copy_ns(self.inner)
                calls += 1
        for _, taps in self.borders:
            ops = max(1, len(taps) - 1)
            ns += ops * slice_ns(self.lead, self.inner)
            calls += ops
        return ns + (self._cold_ns() if cold else 0.0), calls

    def _cold_ns(self) -> float:
        """Extra ns per plane when the input comes from memory and is read unevenly."""
        source = self.lead * self.size * self.inner
        if self.kind == CAST:
            return source * COLD_CAST_NS * len(self.phases)
        if self.kind == COPY or (self.kind == VIEW and 1 < self.inner < BUFFER):
            return source * COLD_NS
        return 0.0


# A pass, its estimated ns per plane and its NumPy calls per block.
PassCost = tuple[Pass, float, int]


def _copy_ns(inner: int) -> float:
    """Per element of a copy of rows of `inner` elements (element strides when 1)."""
    return STRIDED_NS if inner == 1 else FLAT_NS + COPY_ROW_NS / inner


def _buffered_ns(inner: int) -> float:
    """Extra per element for one operand with strided rows of `inner` elements."""
    return 0.0 if inner >= BUFFER else BUFFERED_NS + BUFFERED_ROW_NS / inner


def slice_ns(lead: int, inner: int) -> float:
    """An operation on one index of an axis: `lead` rows of `inner` elements."""
    if inner == 1:
        return lead * COLUMN_NS
    return lead * (ROW_NS + inner * (FLAT_NS + 2 * _buffered_ns(inner)))


def _sum_into(target: NDArray[Any], terms: Sequence[NDArray[Any]]) -> None:
    if not terms:
        target.fill(0)
    elif len(terms) == 1:
        np.copyto(target, terms[0])
    else:
        np.add(terms[0], terms[1], out=target)
        for term in terms[2:]:
            np.add(target, term, out=target)


def _borders(p: Pass, source: NDArray[Any], target: NDArray[Any]) -> None:
    """Recompute the border outputs from their real taps only."""
    for o, taps in p.borders:
        _sum_into(target[:, o], [source[:, t] for t in taps])


def run_view(p: Pass, a: NDArray[Any], v: NDArray[Any]) -> None:
    """Add strided views of the input directly; only the outputs [lo, hi) in bulk."""
    lead = a.shape[0] * p.lead
    source, target = a.reshape(p.shape(lead, p.size)), v.reshape(p.shape(lead, p.out))
    lo, hi = p.interior
    if hi > lo:
        s = p.stride
        views = [source[:, (lo + q) * s + r : (hi - 1 + q) * s + r + 1 : s] for r, q in p.terms]
        _sum_into(target[:, lo:hi], views)
    _borders(p, source, target)


def run_flat(p: Pass, a: NDArray[Any], v: NDArray[Any], scratch: Scratch) -> None:
    """Lay out the phases like the output, then add each term as one contiguous slice."""
    lead = a.shape[0] * p.lead
    source, target = a.reshape(p.shape(lead, p.size)), v.reshape(p.shape(lead, p.out))
    flat = a.reshape(-1)
    phases: dict[int, NDArray[Any]] = {}
    for number, (r, valid) in enumerate(p.phases):
        if p.kind == DENSE:
            phases[r] = flat
        elif p.kind == STRIDED:
            phases[r] = flat[r :: p.stride]
        else:
            phase = scratch.array(Slot.PHASE, p.shape(lead, p.layout), a.dtype, number)
            lay_out_phase(source, phase, r, p.stride, valid, p.kind == CAST)
            phases[r] = phase.reshape(-1)
    lo, hi = p.interior
    if hi > lo:
        step = p.step
        sums = scratch.array(Slot.SUMS, p.shape(lead, p.layout), a.dtype) if p.compacts else target
        start = lo * step * p.inner
        stop = ((lead - 1) * p.layout + (hi - 1) * step + 1) * p.inner
        terms = [phases[r][start + q * p.inner : stop + q * p.inner] for r, q in p.terms]
        _sum_into(sums.reshape(-1)[start:stop], terms)
        if p.compacts:
            np.copyto(target[:, lo:hi], sums[:, lo * step : (hi - 1) * step + 1 : step])
    _borders(p, source, target)
