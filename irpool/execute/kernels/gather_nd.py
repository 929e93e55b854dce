"""GatherND on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it (measured,
docs/ops/GatherND.md): the tuples' slices, negative indices from the end, elements copied as
the CPU holds the type; GatherND-5 merges the batch dims into one. Refused: an index out of
range (the CPU reads wherever its offset points: another row's elements, or memory beyond the
data) and tuples of no index (the CPU returns memory it never wrote)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from numpy.typing import NDArray

from irpool.cpu.numerics import moved_as_held
from irpool.execute.errors import ExecutionError
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.gather_nd import GatherND5, GatherND8, gather_nd


@kernel_for(GatherND5, GatherND8)
def run_gather_nd(
    op: GatherND5 | GatherND8, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data, indices = inputs
    batch_dims = int(op.attrs["batch_dims"])
    if indices.shape[-1] == 0:
        raise ExecutionError(
            f"GatherND by indices {list(indices.shape)} (tuples of no index): the CPU plugin "
            "returns memory it never wrote (docs/ops/GatherND.md); irpool does not run it"
        )
    try:
        result = gather_nd(moved_as_held(data), moved_as_held(indices), batch_dims)
    except IndexError as error:
        raise ExecutionError(
            f"GatherND {error}: the CPU plugin reads such an index from wherever its offset "
            "points (docs/ops/GatherND.md); irpool does not run it"
        ) from None
    if op.merges_batch and batch_dims:
        result = result.reshape(math.prod(data.shape[:batch_dims]), *result.shape[batch_dims:])
    return [result]
