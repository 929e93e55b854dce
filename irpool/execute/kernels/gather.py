"""Gather on NumPy arrays, as the CPU plugin computes it (irpool.ops.gather.gather: an index
out of range gives 0, and a negative one for Gather-1 and -7), elements copied bit for bit
(64-bit integers held as int32)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import moved_as_held
from irpool.execute.compressed import CompressedWeights
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.gather import Gather1, Gather7, Gather8, gather


@kernel_for(Gather1, Gather7, Gather8)
def run_gather(
    op: Gather1 | Gather7 | Gather8, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    if op.compressed_weights is not None:
        return [picked_rows(op.compressed_weights, inputs[0], op.from_end)]
    data, indices = inputs[0], inputs[1]
    axis, batch_dims = op.arguments(data.ndim, inputs[1:])
    return [gather(moved_as_held(data), moved_as_held(indices), axis, batch_dims, op.from_end)]


def picked_rows(weights: CompressedWeights, indices: NDArray[Any], from_end: bool) -> NDArray[Any]:
    """The rows of compressed weights that `indices` pick, as `gather` picks them (an index out
    of range gives a row of zeros), only those rows decompressed."""
    picks = moved_as_held(indices).astype(np.int64).reshape(-1)
    length = weights.rows
    valid = (picks >= (-length if from_end else 0)) & (picks < length)
    picks = np.where(valid, np.where(picks < 0, picks + length, picks), 0)
    rows = weights.rows_at(picks)
    rows[~valid] = 0
    return rows.reshape(*indices.shape, weights.depth)
