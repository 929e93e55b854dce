"""Pooling windows as the NumPy arrays kernels compute with: tap indices, 0/1 selection
matrices and exclude-pad divisors. The geometry itself (which input index each tap reads) is
`Window` and `adaptive_box` in ops/pooling_geometry.py, which checking uses without NumPy."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from irpool.ops.pooling_geometry import Window, adaptive_box


def divisors(window: Window, count_padding: bool) -> NDArray[np.float64]:
    """Per-output divisor on one axis; an empty window gets 1, so its zero sum stays 0."""
    if count_padding:
        return np.full(window.out, float(window.kernel))
    counts = [len(window.real_taps(o)) for o in range(window.out)]
    return np.maximum(np.array(counts, np.float64), 1.0)


def divisor_grid(windows: Sequence[Window], count_padding: bool) -> NDArray[np.float64]:
    """The full divisor over the output's spatial shape (outer product of the per-axis ones)."""
    grid = np.ones((), np.float64)
    for window in windows:
        grid = np.multiply.outer(grid, divisors(window, count_padding))
    return grid


def tap_indices(window: Window) -> NDArray[np.intp]:
    """[out, kernel] input index of each tap, -1 for a tap in the padding."""
    index = np.array(
        [[window.tap(o, j) for j in range(window.kernel)] for o in range(window.out)], np.intp
    )
    real = (index >= 0) & (index < window.size)
    return np.where(real, index, -1).reshape(window.out, window.kernel)


def tap_matrix(window: Window) -> NDArray[np.float64]:
    """[size, out] 0/1 matrix: column `o` selects the real taps of output `o`."""
    result = np.zeros((window.size, window.out))
    for o in range(window.out):
        result[window.real_taps(o), o] = 1.0
    return result


def adaptive_matrix(size: int, out: int) -> NDArray[np.float64]:
    """[size, out] 0/1 matrix of the adaptive boxes."""
    result = np.zeros((size, out))
    for i in range(out):
        box = adaptive_box(i, size, out)
        result[box.start : box.stop, i] = 1.0
    return result


def adaptive_taps(size: int, out: int) -> NDArray[np.intp]:
    """[out, longest box] input index of each box element, -1 past the end of a shorter box."""
    boxes = [adaptive_box(i, size, out) for i in range(out)]
    longest = max((len(box) for box in boxes), default=0)
    result = np.full((out, longest), -1, np.intp)
    for i, box in enumerate(boxes):
        result[i, : len(box)] = box
    return result
