"""Slice on NumPy arrays: NumPy's basic slicing with the bounds as Python slices (OpenVINO
2026.4's CPU plugin clamps as Python does, measured, docs/ops/Slice.md), copied bit for bit
(64-bit integers held as int32, as the CPU plugin holds them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numpy.typing import NDArray

from irpool.cpu.numerics import moved_as_held
from irpool.execute.registry import OutputSpec, kernel_for, prepared
from irpool.ops.slice import Slice8


@kernel_for(Slice8)
def run_slice(
    op: Slice8, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data, bounds = moved_as_held(inputs[0]), inputs[1:]
    # The index kept per shape and bounds: a decode step's slices repeat them each token.
    key = (data.shape, *((b.dtype.char, b.shape, b.tobytes()) for b in bounds))
    index = prepared(op, key, lambda: op.cut(data.shape, bounds))
    return [data[index].copy(order="C")]
