"""Per-axis averaging matrices applied with BLAS: the strategy for adaptive pooling and large
kernels.

Each axis gets a [size, out] matrix whose column `o` holds the weights of output `o`, so
any stride, dilation, padding or AdaptiveAvgPool box is one matrix product, and the cost
does not depend on how many taps a window has. When the spatial part is small, the axes
are combined into one Kronecker matrix: a single large product beats many small ones.
Otherwise the axes are applied one at a time and each banded matrix is cut into blocks
of outputs, so the zeros far from the diagonal are never multiplied.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.engine.costs import (
    CHUNK_BYTES,
    KRON_LIMIT,
    MAC_NS,
    MATMUL_BATCH_NS,
    MATMUL_BLOCKS,
    MATMUL_CALL_NS,
)
from irpool.execute.engine.scratch import Scratch, Slot
from irpool.ops.pooling_geometry import cdiv

Block = tuple[int, int, int, int]  # outputs [o0, o1) read inputs [i0, i1)


class Matmul:
    """`matrices[a]` is axis a's [size, out] weight matrix (means, or 0/1 in exact mode);
    `kron` combines the axes into one matrix (True) or not (False), whatever the size."""

    chunk_bytes = CHUNK_BYTES

    def __init__(
        self,
        matrices: Sequence[NDArray[np.float64]],
        dtype: np.dtype[Any],
        kron: bool | None = None,
    ) -> None:
        sizes = [m.shape[0] for m in matrices]
        outs = [m.shape[1] for m in matrices]
        self.plane_bytes = prod(sizes) * dtype.itemsize
        self.kron: NDArray[Any] | None = None
        self.steps: list[tuple[NDArray[Any], list[Block]]] = []
        self.calls = 1
        # One product beats one per axis up to KRON_LIMIT entries.
        if prod(sizes) * prod(outs) <= KRON_LIMIT if kron is None else kron:
            combined: NDArray[Any] = np.ones((1, 1))
            for matrix in matrices:
                combined = np.kron(combined, matrix)
            self.kron = combined.astype(dtype)
            self.blas_macs = prod(sizes) * prod(outs)
            self.plane_ns = self.blas_macs * MAC_NS
            return
        # Last axis first: the products then read contiguous rows.
        planes = max(1, self.chunk_bytes // self.plane_bytes)
        self.plane_ns = 0.0
        self.blas_macs = 0
        shape = list(sizes)
        for index in reversed(range(len(matrices))):
            matrix = matrices[index]
            inner = prod(shape[index + 1 :])
            blocks, cost = _blocks(matrix, prod(shape[:index]) * inner * planes)
            self.blas_macs += prod(shape[:index]) * inner * _entries(blocks)
            self.plane_ns += cost / planes
            if inner > 1:  # one product per leading index
                self.plane_ns += len(blocks) * prod(shape[:index]) * MATMUL_BATCH_NS
            self.calls += len(blocks)
            self.steps.append((matrix.astype(dtype), blocks))
            shape[index] = outs[index]

    @property
    def label(self) -> str:
        return "matmul kron" if self.kron is not None else "matmul axes"

    def estimate(self, planes: int) -> float:
        """Estimated ns for `planes` N×C planes."""
        blocks = cdiv(planes * self.plane_bytes, self.chunk_bytes)
        return float(planes * self.plane_ns + blocks * self.calls * MATMUL_CALL_NS)

    def run(self, src: NDArray[Any], dst: NDArray[Any], scratch: Scratch) -> None:
        planes = src.shape[0]
        if self.kron is not None:
            np.matmul(src.reshape(planes, -1), self.kron, out=dst.reshape(planes, -1))
            return
        current = src
        shape = list(src.shape)
        rank = len(shape) - 1
        for step, (matrix, blocks) in enumerate(self.steps):
            index = rank - step  # array axis being reduced
            shape[index] = matrix.shape[1]
            last = step == len(self.steps) - 1
            target = dst if last else scratch.array(Slot.PASS, tuple(shape), src.dtype, step % 2)
            outer, inner = prod(shape[:index]), prod(shape[index + 1 :])
            size = current.shape[index]
            if inner == 1:
                rows, columns = current.reshape(outer, size), target.reshape(outer, -1)
                for o0, o1, i0, i1 in blocks:
                    np.matmul(rows[:, i0:i1], matrix[i0:i1, o0:o1], out=columns[:, o0:o1])
            else:
                # One product per leading index: weights.T @ [size, inner].
                batch, sums = current.reshape(outer, size, inner), target.reshape(outer, -1, inner)
                weights = matrix.T
                for o0, o1, i0, i1 in blocks:
                    np.matmul(weights[o0:o1, i0:i1], batch[:, i0:i1], out=sums[:, o0:o1])
            current = target


def _blocks(matrix: NDArray[np.float64], rows: int) -> tuple[list[Block], float]:
    """Cut the outputs into blocks that read only their nonzero input rows.

    `rows` is how many rows one block product covers; returns the cheapest cut and its cost.
    """
    size, out = matrix.shape
    used = [np.flatnonzero(matrix[:, o]) for o in range(out)]
    best: list[Block] = [(0, out, 0, size)]
    best_cost = rows * size * out * MAC_NS + MATMUL_CALL_NS
    for width in MATMUL_BLOCKS:
        if width >= out:
            continue
        blocks = []
        for o0 in range(0, out, width):
            o1 = min(out, o0 + width)
            taps = [u for u in used[o0:o1] if u.size]
            i0 = min((int(u[0]) for u in taps), default=0)
            i1 = max((int(u[-1]) + 1 for u in taps), default=0)
            blocks.append((o0, o1, i0, max(i0, i1)))
        cost = sum(
            rows * (i1 - i0) * (o1 - o0) * MAC_NS + MATMUL_CALL_NS for o0, o1, i0, i1 in blocks
        )
        if cost < best_cost:
            best, best_cost = blocks, cost
    return best, best_cost


def _entries(blocks: list[Block]) -> int:
    """Matrix entries the block products multiply each row by."""
    return sum((i1 - i0) * (o1 - o0) for o0, o1, i0, i1 in blocks)
