"""Per-axis window arithmetic shared by every strategy: which taps are real, and the divisors.

Everything here depends only on one axis's `Window`, so the strategies can treat a
multi-dimensional window as a product of one-dimensional ones: the real-tap count of a box
is the product of the per-axis counts, which makes every divisor separable.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from irpool.execute.window import Window


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class Axis:
    """One spatial axis of an AvgPool: tap positions, real-tap counts and the interior."""

    window: Window

    def tap(self, o: int, j: int) -> int:
        """Input index of tap `j` of output `o` (may lie in the padding)."""
        w = self.window
        return o * w.stride - w.pad_begin + j * w.dilation

    def real_taps(self, o: int) -> list[int]:
        """Input indices of the real (non-padding) taps of output `o`."""
        size = self.window.size
        return [t for t in (self.tap(o, j) for j in range(self.window.kernel)) if 0 <= t < size]

    def tap_outputs(self, j: int) -> tuple[int, int]:
        """The outputs [lo, hi) for which tap `j` is real (hi may equal lo)."""
        w = self.window
        offset = j * w.dilation - w.pad_begin
        lo = min(w.out, max(0, _cdiv(-offset, w.stride)))
        hi = min(w.out, (w.size - 1 - offset) // w.stride + 1)
        return lo, max(lo, hi)

    @cached_property
    def interior(self) -> tuple[int, int]:
        """The outputs [lo, hi) whose taps are all real; the rest are border outputs."""
        lo, hi = self.tap_outputs(0)
        last_lo, last_hi = self.tap_outputs(self.window.kernel - 1)
        lo, hi = max(lo, last_lo), min(hi, last_hi)
        return lo, max(lo, hi)

    @property
    def borders(self) -> list[int]:
        lo, hi = self.interior
        return [*range(lo), *range(hi, self.window.out)]

    @cached_property
    def counts(self) -> NDArray[np.int64]:
        """Real taps per output."""
        return np.array([len(self.real_taps(o)) for o in range(self.window.out)], np.int64)

    def divisors(self, count_padding: bool) -> NDArray[np.float64]:
        """Per-output divisor on this axis; an empty window gets 1, so its zero sum stays 0."""
        if count_padding:
            return np.full(self.window.out, float(self.window.kernel))
        return np.maximum(self.counts, 1).astype(np.float64)

    def taps(self) -> NDArray[np.intp]:
        """[out, kernel] input index of each tap, -1 for a tap in the padding."""
        w = self.window
        index = np.array([[self.tap(o, j) for j in range(w.kernel)] for o in range(w.out)])
        return np.where((index >= 0) & (index < w.size), index, -1).reshape(w.out, w.kernel)

    def matrix(self) -> NDArray[np.float64]:
        """[size, out] 0/1 matrix: column `o` selects the real taps of output `o`."""
        w = self.window
        result = np.zeros((w.size, w.out))
        for o in range(w.out):
            result[self.real_taps(o), o] = 1.0
        return result


def divisor_grid(axes: list[Axis], count_padding: bool) -> NDArray[np.float64]:
    """The full divisor over the output's spatial shape (outer product of the per-axis ones)."""
    grid = np.ones((), np.float64)
    for axis in axes:
        grid = np.multiply.outer(grid, axis.divisors(count_padding))
    return grid


def adaptive_matrix(size: int, out: int) -> NDArray[np.float64]:
    """[size, out] 0/1 matrix of AdaptiveAvgPool boxes [floor(i*In/Out), ceil((i+1)*In/Out))."""
    result = np.zeros((size, out))
    for i in range(out):
        result[(i * size) // out : _cdiv((i + 1) * size, out), i] = 1.0
    return result


def adaptive_taps(size: int, out: int) -> NDArray[np.intp]:
    """[out, longest box] input index of each box element, -1 past the end of a shorter box."""
    boxes = [range((i * size) // out, _cdiv((i + 1) * size, out)) for i in range(out)]
    longest = max((len(box) for box in boxes), default=0)
    result = np.full((out, longest), -1, np.intp)
    for i, box in enumerate(boxes):
        result[i, : len(box)] = box
    return result
