"""Global pooling: one window covering every element of a plane exactly once.

Wins whenever it applies (AdaptiveAvgPool to 1x1, AvgPool whose kernel covers the input).
Long planes are reduced with NumPy's pairwise summation, whose error grows with log(n),
so a 224x224 mean in f32 keeps full precision; short planes use one matrix-vector product,
which avoids NumPy's per-row reduction overhead.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.engine.costs import CHUNK_BYTES, PAIRWISE_MIN
from irpool.execute.engine.scratch import Scratch


class Whole:
    """Plane sums, divided by `divisor` unless the driver divides exactly (divisor None)."""

    chunk_bytes = CHUNK_BYTES
    label = "whole"

    def __init__(self, size: int, divisor: float | None, dtype: np.dtype[Any]) -> None:
        self.size = size
        self.divisor = divisor
        weight = 1.0 if divisor is None else 1.0 / divisor
        self.weights = np.full(size, weight, dtype)
        self.blas_macs = size if size < PAIRWISE_MIN else 0

    def run(self, src: NDArray[Any], dst: NDArray[Any], scratch: Scratch) -> None:
        planes = src.reshape(src.shape[0], self.size)
        sums = dst.reshape(src.shape[0])
        if self.size < PAIRWISE_MIN:
            np.matmul(planes, self.weights, out=sums)
            return
        np.add.reduce(planes, axis=1, out=sums)
        if self.divisor is not None:
            np.divide(sums, self.divisor, out=sums)
