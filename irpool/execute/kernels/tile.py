"""Tile on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it (measured,
docs/ops/Tile.md): NumPy's tile with negative repeats as 0 (an empty output), elements
copied as the CPU holds the type (64-bit integers wrapped to int32, f64 through f32), the
repeats held as int32 (an i64 repeat of 2**33 + 1 given at run time tiles once)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numpy.typing import NDArray

from irpool.cpu.numerics import moved_as_held
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.tile import Tile1, tiled


@kernel_for(Tile1)
def run_tile(
    op: Tile1, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data, repeats = inputs
    held = [int(r) for r in moved_as_held(repeats).ravel()]
    return [moved_as_held(tiled(data, held))]
