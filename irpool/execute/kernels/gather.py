"""Gather on NumPy arrays, as the CPU plugin computes it (irpool.ops.gather.gather: an index
out of range gives 0, and a negative one for Gather-1 and -7), elements copied bit for bit
(64-bit integers held as int32)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numpy.typing import NDArray

from irpool.cpu.numerics import moved_as_held
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.gather import Gather1, Gather7, Gather8, gather


@kernel_for(Gather1, Gather7, Gather8)
def run_gather(
    op: Gather1 | Gather7 | Gather8, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data, indices = inputs[0], inputs[1]
    axis, batch_dims = op.arguments(data.ndim, inputs[1:])
    return [gather(moved_as_held(data), moved_as_held(indices), axis, batch_dims, op.from_end)]
