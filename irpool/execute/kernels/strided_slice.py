"""StridedSlice on NumPy arrays: NumPy's basic indexing with a slice per cut axis (bounds
clamped as OpenVINO 2026.4's CPU plugin clamps them, as Slice-8's, measured,
docs/ops/StridedSlice.md), None for a new axis and an integer for a shrunk one, copied bit
for bit (64-bit integers held as int32, as the CPU plugin holds them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numpy.typing import NDArray

from irpool.cpu.numerics import moved_as_held
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.strided_slice import StridedSlice1


@kernel_for(StridedSlice1)
def run_strided_slice(
    op: StridedSlice1, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data = moved_as_held(inputs[0])
    return [data[op.index(data.shape, inputs[1:])].copy(order="C")]
