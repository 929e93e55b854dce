"""Windows summed tap by tap, as the CPU plugin sums them: the path for planes that hold inf
or NaN, or values near the top of the float range.

Measured on OpenVINO 2026.4.1 (CPU, f32 inference precision): each window is one running sum
in f32 over its taps in row-major order, then divided. So one inf or NaN changes only the
windows that hold it (inf and -inf in one window give NaN), and a window whose running sum
leaves the f32 range gives ±inf: [3e38]*3 averages to inf, [3e38, 3e38, -3e38] too, but
[-3e38, 3e38, 3e38] to 1e38. The fast strategies spread non-finite values (inf * 0 in a matrix
product is NaN, as is inf - inf) and never overflow a mean, so the driver checks each block's
means and recomputes here the planes whose means are non-finite or so large that their sum
may have left the range. Both can only come from such planes, so finite inputs of ordinary
size never take this path.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray


class Direct:
    """Window means from running sums over `taps` (per axis, [out, taps] input indices, -1
    for padding) divided by `divisor` (the grid over the output), in the compute dtype."""

    def __init__(
        self, taps: Sequence[NDArray[np.intp]], divisor: NDArray[np.float64], work: np.dtype[Any]
    ) -> None:
        self.taps = list(taps)
        self.divisor = divisor
        self.work = work
        self.work_divisor = divisor.astype(work)
        # A mean below this in magnitude comes from a sum inside the float range.
        self.threshold = float(np.finfo(work).max) / max(1.0, float(divisor.max(initial=1.0)))

    def repair(self, src: NDArray[Any], means: NDArray[Any]) -> None:
        """Recompute the planes of `means` (the block's window means of `src`) that need it."""
        # One BLAS pass: a finite sum of squares bounds every |mean| by ~1e19 (f32), far
        # below any threshold, so ordinary blocks stop here (about 0.5 µs plus 0.06 ns a mean).
        if math.isfinite(np.vdot(means, means)):
            return
        planes = means.reshape(means.shape[0], -1)
        suspect = ~(np.abs(planes).max(axis=1, initial=0.0) < self.threshold)  # NaN: suspect
        if suspect.any():
            means[suspect] = self.means(src[suspect])

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
                index = np.ix_(*(t[:, j] for t, j in zip(self.taps, taps, strict=True)))
                sums += padded[(everyone, *index)]
        else:
            # Few outputs with long windows: one running sum (cumsum) per output.
            for outputs in itertools.product(*(range(t.shape[0]) for t in self.taps)):
                index = np.ix_(*(t[o] for t, o in zip(self.taps, outputs, strict=True)))
                box = padded[(everyone, *index)].reshape(src.shape[0], -1)
                sums[(everyone, *outputs)] = np.cumsum(box, axis=1, dtype=self.work)[:, -1]
        return np.divide(sums, self.work_divisor, out=sums)
