"""Separable window sums over stride phases: the strategy for small kernels.

Wins when the kernel is small: each axis costs k-1 additions per output, so the cost grows
with the kernel (`matmul` does not). Each axis is one pass from `size` to `out` positions.

Output o reads input o*stride + t for each tap t = j*dilation - pad_begin. Writing
t = q*stride + r, that is element o + q of phase r (input positions r, r + stride, ...), so
a pass adds shifted phases. Measured facts about NumPy decide how:

* An addition runs at full speed (~0.1 ns per element) only when every operand is
  contiguous; strided rows shorter than ~2048 elements go through its buffer (2-3x slower),
  and element strides cost ~0.28 ns per element.
* `copyto` moves strided rows at nearly contiguous speed, and casting a uint64 view of
  float32 pairs to uint32 keeps one float of each pair twice as fast as a strided copy.
* Each NumPy call costs about a microsecond, so blocks stay large (megabytes).

So a pass is one of five kinds. "copy", "cast" and "strided" lay each phase out like the
output (row copies; the uint64 cast on a last axis with stride 2; 1-D strided views of the
flat block) and add each term as one long slice of the whole block; "dense" sums at every
input position with slices of the block itself and keeps every stride-th. Flat slices
spill across row ends only at border outputs (a tap in the padding or past the phase),
which are then recomputed from their real taps. "view" adds strided views in place: it
wins when rows are long. The kind of each pass and the order of the axes are chosen by
estimated cost. The last pass writes the output, then scaled by 1/prod(kernel) with the
exclude-pad borders corrected per axis (the real-tap count is a product of per-axis
counts), or multiplied by the reciprocal divisor grid when that is cheaper.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Sequence
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.engine.axis_pass import (
    CAST,
    COPY,
    DENSE,
    STRIDED,
    VIEW,
    Pass,
    PassCost,
    run_flat,
    run_view,
    slice_ns,
)
from irpool.execute.engine.costs import (
    CHUNK_BYTES,
    COLD_BYTES,
    FLAT_NS,
    GRID_NS,
    UFUNC_CALL_NS,
)
from irpool.execute.engine.phases import CAST_OK
from irpool.execute.engine.scratch import Scratch, Slot
from irpool.execute.engine.window_arrays import divisor_grid
from irpool.ops.pooling_geometry import Window, cdiv


class Sliding:
    """Window sums by shifted phase additions, one pass per axis, kinds picked by cost."""

    chunk_bytes = CHUNK_BYTES
    blas_macs = 0  # NumPy additions only

    def __init__(
        self,
        spatial: tuple[int, ...],
        windows: Sequence[Window],
        count_padding: bool,
        work: np.dtype[Any],
        exact: bool,
        planes: int,
    ) -> None:
        """Plans for `planes` N×C planes, each choice by estimated cost (`pick_pass`,
        `prefers_grid`)."""
        self.windows = tuple(windows)
        self.plane_bytes = prod(spatial) * work.itemsize
        self.scale = None if exact else 1.0 / prod(w.kernel for w in windows)
        self.corrections = [] if exact or count_padding else self._corrections()
        self.reciprocals: NDArray[Any] | None = None
        cast = CAST_OK and work.itemsize == 4
        block = max(1, min(planes, self.chunk_bytes // max(1, self.plane_bytes)))
        cold = planes * self.plane_bytes > COLD_BYTES
        orders = itertools.permutations(range(len(windows)))
        plans = [self._schedule(order, spatial, cast, block, cold) for order in orders]
        self.plane_ns, self.calls, self.passes, _ = min(
            plans, key=lambda p: p[0] * block + p[1] * UFUNC_CALL_NS
        )
        self.block = block
        # Every order's options per pass, for `variants`.
        self.schedules = [options for _, _, _, options in plans]
        # Means: scale by 1/prod(kernel) and correct the exclude-pad borders one slice at a
        # time, or multiply by the reciprocal divisors in one pass, whichever is cheaper.
        out_size = prod(w.out for w in windows)
        scale_ns, scale_calls = out_size * FLAT_NS, 1 + len(self.corrections)
        for index, _, _ in self.corrections:
            lead = prod(w.out for w in windows[:index])
            scale_ns += slice_ns(lead, out_size // lead // windows[index].out)
        grid_ns = out_size * GRID_NS
        grid_cost = grid_ns * block + UFUNC_CALL_NS
        scale_cost = scale_ns * block + scale_calls * UFUNC_CALL_NS
        if self.corrections and self.prefers_grid(grid_cost, scale_cost):
            self.reciprocals = (1.0 / divisor_grid(self.windows, count_padding)).astype(work)
            self.corrections = []
            scale_ns, scale_calls = grid_ns, 1
        self.scaling = scale_ns, scale_calls
        self.plane_ns += scale_ns
        self.calls += scale_calls

    @property
    def label(self) -> str:
        """The plan by name: each pass's axis and kind, in order."""
        return "sliding " + " ".join(f"{p.axis}:{p.kind}" for p in self.passes)

    def variants(self, count: int) -> list[Sliding]:
        """This plan, then its neighbours by estimate, `count` in all at most: each plan
        that changes the kind of one pass, each that runs every pass with one kind, and the
        cheapest in each other order of the axes. Another machine may rank them otherwise
        than the cost model (`tuning`): on an Intel Xeon, view+view ran about 15% under the
        copy+cast picked for W1, which the model ranks 20th of 30."""
        block = self.block

        def cost(option: PassCost) -> float:
            return option[1] * block + option[2] * UFUNC_CALL_NS

        mine = [p.axis for p in self.passes]
        plans: list[tuple[PassCost, ...]] = []
        for options in self.schedules:
            if [choices[0][0].axis for choices in options] != mine:
                plans.append(tuple(min(choices, key=cost) for choices in options))
                continue
            chosen = tuple(
                next(c for c in choices if c[0] == p)
                for choices, p in zip(options, self.passes, strict=True)
            )
            for index, choices in enumerate(options):
                plans += [(*chosen[:index], c, *chosen[index + 1 :]) for c in choices]
            for kind in (VIEW, DENSE, COPY, CAST, STRIDED):
                same = [[c for c in choices if c[0].kind == kind] for choices in options]
                if all(same):
                    plans.append(tuple(found[0] for found in same))
        plans.sort(key=lambda plan: sum(cost(option) for option in plan))
        found = [self]
        for plan in plans:
            passes = [p for p, _, _ in plan]
            if len(found) == count:
                break
            if any(v.passes == passes for v in found):
                continue
            variant = copy.copy(self)
            variant.passes = passes
            variant.plane_ns = sum(ns for _, ns, _ in plan) + self.scaling[0]
            variant.calls = sum(calls for _, _, calls in plan) + self.scaling[1]
            found.append(variant)
        return found

    def estimate(self, planes: int) -> float:
        """Estimated ns for `planes` N×C planes."""
        blocks = cdiv(planes * self.plane_bytes, self.chunk_bytes)
        return planes * self.plane_ns + blocks * self.calls * UFUNC_CALL_NS

    def _schedule(
        self,
        order: tuple[int, ...],
        spatial: tuple[int, ...],
        cast: bool,
        block: int,
        cold: bool,
    ) -> tuple[float, int, list[Pass], list[list[PassCost]]]:
        """The cheapest kind for each axis in this order: ns per plane, calls, passes; and
        every kind of each pass with its cost."""
        sizes = list(spatial)
        ns, calls = 0.0, 0
        passes: list[Pass] = []
        every: list[list[PassCost]] = []
        for index in order:
            w = self.windows[index]
            if w.kernel == 1 and w.stride == 1 and w.pad_begin == 0 and w.out == w.size:
                continue  # identity
            lead, inner = prod(sizes[:index]), prod(sizes[index + 1 :])
            first = cold and not passes
            options = [(p, *p.cost(first)) for p in self._options(index, lead, inner, cast)]
            step, step_ns, step_calls = self.pick_pass(options, block)
            ns, calls = ns + step_ns, calls + step_calls
            passes.append(step)
            every.append(options)
            sizes[index] = w.out
        return ns, calls, passes, every

    def pick_pass(self, options: list[PassCost], block: int) -> PassCost:
        """The cheapest of the ways to run one pass over blocks of `block` planes."""
        return min(options, key=lambda o: o[1] * block + o[2] * UFUNC_CALL_NS)

    def prefers_grid(self, grid_cost: float, scale_cost: float) -> bool:
        """Whether exclude-pad means multiply by the reciprocal divisor grid (one pass)
        rather than scale and correct the borders slice by slice, given both costs."""
        return grid_cost < scale_cost

    def _options(self, index: int, lead: int, inner: int, cast: bool) -> list[Pass]:
        """Every way to run the pass over axis `index`."""
        w = self.windows[index]
        s, n = w.stride, w.size
        taps = [j * w.dilation - w.pad_begin for j in range(w.kernel)]
        terms = tuple((t % s, t // s) for t in taps)
        dense = tuple((0, t) for t in taps)
        used = sorted({r for r, _ in terms})
        layouts: list[tuple[str, int, tuple[tuple[int, int], ...]]]
        layouts = [(DENSE, n, ((0, n),))]
        if s > 1:
            valid = [min(w.out, cdiv(n - r, s)) for r in used]
            layouts.append((COPY, w.out, tuple(zip(used, valid, strict=True))))
            if inner == 1 and n % s == 0:
                layouts.append((STRIDED, n // s, tuple((r, n // s) for r in used)))
            if inner == 1 and s == 2 and cast and n % 2 == 0:
                layouts.append((CAST, n // 2, tuple((r, n // 2) for r in used)))
        options = [self._pass(index, VIEW, lead, inner, w.out, (), terms)]
        for kind, layout, phases in layouts:
            if kind == DENSE:
                options.append(self._pass(index, kind, lead, inner, layout, phases, dense))
            elif layout >= w.out:
                options.append(self._pass(index, kind, lead, inner, layout, phases, terms))
        return options

    def _pass(
        self,
        index: int,
        kind: str,
        lead: int,
        inner: int,
        layout: int,
        phases: tuple[tuple[int, int], ...],
        terms: tuple[tuple[int, int], ...],
    ) -> Pass:
        """A pass whose bulk covers the outputs every term can be read for."""
        w = self.windows[index]
        if kind == VIEW:
            lo, hi = w.interior
        elif kind == DENSE:  # outputs whose taps all lie in the row
            shifts = [t for _, t in terms]
            first, last = max(0, -min(shifts)), w.size - 1 - max(0, max(shifts))
            lo = min(w.out, cdiv(first, w.stride))
            hi = max(lo, min(w.out, last // w.stride + 1 if last >= 0 else 0))
        else:  # each term must stay inside its phase's valid entries of the same row
            valid = dict(phases)
            lo = max([0, *(-q for _, q in terms)])
            hi = max(lo, min([w.out, *(valid[r] - q for r, q in terms)]))
        borders = tuple((o, tuple(w.real_taps(o))) for o in range(w.out) if not lo <= o < hi)
        return Pass(
            index, kind, lead, w.size, inner, w.out, w.stride, layout, phases, terms, (lo, hi),
            borders,
        )  # fmt: skip

    def _corrections(self) -> list[tuple[int, int, float]]:
        """Exclude-pad: border outputs divide by their real-tap count, not by the kernel."""
        result = []
        for index, w in enumerate(self.windows):
            for o in w.borders:
                count = len(w.real_taps(o))
                result.append((index, o, w.kernel / count if count else 0.0))
        return result

    def run(self, src: NDArray[Any], dst: NDArray[Any], scratch: Scratch) -> None:
        current = src
        shape = list(src.shape)
        for step, p in enumerate(self.passes):
            shape[p.axis + 1] = p.out
            last = step == len(self.passes) - 1
            target = dst if last else scratch.array(Slot.PASS, tuple(shape), src.dtype, step % 2)
            if p.kind == VIEW:
                run_view(p, current, target)
            else:
                run_flat(p, current, target, scratch)
            current = target
        if self.scale is None:
            if current is not dst:
                np.copyto(dst, current)
        elif self.reciprocals is not None:
            planes = dst.shape[0]
            grid = self.reciprocals.reshape(-1)
            np.multiply(current.reshape(planes, -1), grid, out=dst.reshape(planes, -1))
        else:
            np.multiply(current, self.scale, out=dst, dtype=dst.dtype)
        planes = dst.shape[0]
        for index, o, factor in self.corrections:
            lead = planes * prod(dst.shape[1 : index + 1])
            rows = dst.reshape(lead, dst.shape[index + 1], -1)[:, o]
            part = rows[:, 0] if rows.shape[1] == 1 else rows
            np.multiply(part, factor, out=part, dtype=dst.dtype)
