"""ScatterNDUpdate on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it (measured,
docs/ops/ScatterNDUpdate.md): the data copied, then each index tuple's slice replaced by its
updates in order, so a repeated index keeps its last update; negative indices count from the
end of their axis; values held as the CPU holds the type (as Select, Roll).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import moved_as_held
from irpool.execute.errors import ExecutionError
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.scatter_nd_update import ScatterNDUpdate3


@kernel_for(ScatterNDUpdate3)
def run_scatter_nd_update(
    op: ScatterNDUpdate3, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data, indices, updates = inputs
    depth = indices.shape[-1]
    out = data.copy()
    tuples = indices.reshape(-1, depth).astype(np.int64)
    slices = updates.reshape(len(tuples), *data.shape[depth:])
    limits = np.array(data.shape[:depth], np.int64)
    for position, index in enumerate(tuples):
        if np.any((index < -limits) | (index >= limits)):
            raise ExecutionError(
                f"ScatterNDUpdate index {index.tolist()} is outside the data's {data.shape}"
            )
        out[tuple(int(i) for i in index)] = slices[position]
    return [moved_as_held(out)]
