"""Broadcast on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it (measured,
docs/ops/Broadcast.md): the data repeated to the target shape by the layer's mode, each
element copied bit for bit (NaN payloads and -0 kept), held as the plugin holds the type
(64-bit integers wrapped to int32, f64 saturated to ±FLT_MAX through f32)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import moved_as_held
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.broadcast import Broadcast, placed_shape


@kernel_for(Broadcast)
def run_broadcast(
    op: Broadcast, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data = inputs[0]
    shape, axes = op.run_shape(data.shape, inputs[1:])
    placed = placed_shape(data.shape, len(shape), axes)
    # Holding the type maps each element alone, so it commutes with repeating them.
    result = np.empty(np.broadcast_shapes(placed, shape), data.dtype)
    np.copyto(result, moved_as_held(data).reshape(placed))
    return [result]
