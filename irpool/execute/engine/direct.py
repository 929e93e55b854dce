"""Planes that hold inf or NaN, or values near the top of the float range, recomputed so
that they come out as the CPU plugin computes them.

Measured on OpenVINO 2026.4.1 (CPU, f32 inference precision): each window is one running sum
in f32 over its taps in row-major order, then divided. So one inf or NaN changes only the
windows that hold it (inf and -inf in one window give NaN), and a window whose running sum
leaves the f32 range gives ±inf: [3e38]*3 averages to inf, [3e38, 3e38, -3e38] too, but
[-3e38, 3e38, 3e38] to 1e38. The fast strategies spread non-finite values (inf * 0 in a matrix
product is NaN, as is inf - inf) and never overflow a mean, so the driver checks each block's
means; only planes with a non-finite mean or one near the range's top are repaired here.
Their finite windows come from the same strategy run on the plane with its non-finite values
made 0, and the NaN/±inf placement from two more runs on 0/1 masks (a window's mean of a mask
is > 0 exactly when it holds a marked value). Planes whose finite means reach the top of the
range instead sum every window tap by tap, in the CPU's order.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray

# Runs the block's strategy: window means of [planes, *spatial] into [planes, *out].
Pool = Callable[[NDArray[Any], NDArray[Any]], None]
# An index into [planes, *spatial]: every plane, then an int or an np.ix_ array per axis.
# Declared because mypy types a display like `(everyone, *index)` as tuple[object, ...].
PlaneIndex = tuple[slice | int | NDArray[np.integer[Any]], ...]


class Direct:
    """Repairs blocks; holds `taps` (per axis, [out, taps] input indices, -1 for padding) and
    `divisor` (the grid over the output) for sums tap by tap in the compute dtype."""

    def __init__(
        self, taps: Sequence[NDArray[np.intp]], divisor: NDArray[np.float64], work: np.dtype[Any]
    ) -> None:
        self.taps = list(taps)
        self.divisor = divisor
        self.work = work
        self.work_divisor = divisor.astype(work)
        # A mean below this in magnitude comes from a sum inside the float range.
        self.threshold = float(np.finfo(work).max) / max(1.0, float(divisor.max(initial=1.0)))

    def repair(self, src: NDArray[Any], means: NDArray[Any], pool: Pool) -> None:
        """Fix the planes of `means`, which `pool` computed from `src`, that need it."""
        # One BLAS pass: a finite sum of squares bounds every |mean| by ~1e19 (f32), far
        # below any threshold, so ordinary blocks stop here (about 0.5 µs plus 0.06 ns a mean).
        if math.isfinite(np.vdot(means, means)):
            return
        suspect = self._beyond(means)
        if not suspect.any():
            return
        picked = src[suspect]
        marked = ~np.isfinite(picked)
        fixed = np.empty_like(means[suspect])
        pool(np.where(marked, 0, picked), fixed)
        # Sums near or beyond the top of the range: the CPU's tap order decides, follow it.
        overflowing = self._beyond(fixed)
        if overflowing.any():
            fixed[overflowing] = self.means(picked[overflowing])
        holding = ~overflowing & marked.reshape(len(picked), -1).any(axis=1)
        if holding.any():
            values, nan = picked[holding], np.isnan(picked[holding])
            up, down = np.empty_like(fixed[holding]), np.empty_like(fixed[holding])
            pool(((values == np.inf) | nan).astype(self.work), up)
            pool(((values == -np.inf) | nan).astype(self.work), down)
            finite = fixed[holding]
            fixed[holding] = np.where(
                up > 0, np.where(down > 0, np.nan, np.inf), np.where(down > 0, -np.inf, finite)
            )
        means[suspect] = fixed

    def _beyond(self, means: NDArray[Any]) -> NDArray[np.bool_]:
        """Planes holding a mean that is non-finite or at least the threshold in magnitude."""
        planes = means.reshape(means.shape[0], -1)
        peaks: NDArray[Any] = np.abs(planes).max(axis=1, initial=0.0)
        return ~(peaks < self.threshold)  # NaN: True

    def means(self, src: NDArray[Any]) -> NDArray[Any]:
        """[planes, *spatial] -> [planes, *out], summing each window's taps in order."""
        # One zero appended on every axis: index -1 (padding) reads it.
        padded = np.zeros((src.shape[0], *(size + 1 for size in src.shape[1:])), self.work)
        padded[(slice(None), *(slice(0, size) for size in src.shape[1:]))] = src
        sums = np.zeros((src.shape[0], *(t.shape[0] for t in self.taps)), self.work)
        everyone = slice(None)
        if prod(t.shape[1] for t in self.taps) <= sums[0].size:
            # Few taps: add each tap's value for every output, tap after tap.
            for taps in itertools.product(*(range(t.shape[1]) for t in self.taps)):
                index: PlaneIndex = (
                    everyone,
                    *np.ix_(*(t[:, j] for t, j in zip(self.taps, taps, strict=True))),
                )
                sums += padded[index]
        else:
            # Few outputs with long windows: one running sum (cumsum) per output.
            for outputs in itertools.product(*(range(t.shape[0]) for t in self.taps)):
                index = (
                    everyone,
                    *np.ix_(*(t[o] for t, o in zip(self.taps, outputs, strict=True))),
                )
                box = padded[index].reshape(src.shape[0], -1)
                output: PlaneIndex = (everyone, *outputs)
                sums[output] = np.cumsum(box, axis=1, dtype=self.work)[:, -1]
        np.divide(sums, self.work_divisor, out=sums)
        return sums
