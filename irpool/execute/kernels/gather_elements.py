"""GatherElements on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it (measured,
docs/ops/GatherElements.md): take_along_axis, negative indices from the end, elements copied as
the CPU holds the type; an index out of range fails the inference, as on the CPU."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numpy.typing import NDArray

from irpool.cpu.numerics import moved_as_held
from irpool.execute.errors import ExecutionError
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.gather_elements import GatherElements6, gather_elements


@kernel_for(GatherElements6)
def run_gather_elements(
    op: GatherElements6, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data, indices = inputs
    axis = int(op.attrs["axis"]) % data.ndim
    try:
        return [gather_elements(moved_as_held(data), moved_as_held(indices), axis)]
    except IndexError as error:
        raise ExecutionError(
            f"GatherElements {error} on an axis of {data.shape[axis]}: the CPU plugin fails the "
            'inference ("indices values of GatherElement exceed data size")'
        ) from None
