"""Pad on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it (measured,
docs/ops/Pad.md): each output element reads the input at its index minus pads_begin,
mapped back into the axis by the mode relative to the whole input (so a negative pad cuts
without moving the reflection's mirror), or is `pad_value` (0 without it) in constant mode.
Types held as the CPU holds them when it moves elements."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import moved_as_held
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.pad import Pad12
from irpool.shape import Dim


def source_indices(length: int, dim: int, begin: int, mode: str) -> NDArray[np.int64]:
    """Each output position's input index along one axis; -1 where constant padding is."""
    index = np.arange(length, dtype=np.int64) - begin
    if mode == "constant" or dim == 0:
        return np.where((index >= 0) & (index < dim), index, -1)
    if mode == "edge":
        return np.clip(index, 0, dim - 1)
    if mode == "reflect":
        index = np.abs(index)
        return np.where(index >= dim, 2 * (dim - 1) - index, index)
    index = np.where(index < 0, -index - 1, index)  # symmetric
    return np.where(index >= dim, 2 * dim - 1 - index, index)


def held_fill(value: NDArray[Any]) -> NDArray[Any]:
    """The pad value as the CPU uses it: an integer through f32 into int32 (out of range:
    INT32_MIN, as x86's conversion gives), wrapped to the type; a float as held."""
    scalar = value.ravel()[:1].reshape(())
    if scalar.dtype.kind not in "iu":
        return moved_as_held(scalar)
    wide = float(np.float32(scalar))
    whole = int(wide) if -(2.0**31) <= wide < 2.0**31 else -(2**31)
    return np.array(whole, np.int64).astype(scalar.dtype)


@kernel_for(Pad12)
def run_pad(
    op: Pad12, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data = moved_as_held(inputs[0])
    begin = [int(v) for v in inputs[1].ravel()]
    end = [int(v) for v in inputs[2].ravel()]
    op.check_mode([Dim.static(d) for d in data.shape], begin, end)
    mode = op.attrs["pad_mode"]
    result = data
    for axis, dim in enumerate(data.shape):
        length = max(dim + begin[axis] + end[axis], 0)
        index = source_indices(length, dim, begin[axis], mode)
        taken = np.take(result, np.clip(index, 0, max(dim - 1, 0)), axis=axis) if dim else None
        shape = list(result.shape)
        shape[axis] = length
        if taken is None:
            taken = np.zeros(shape, data.dtype)
        if mode == "constant" or dim == 0:
            fill = held_fill(inputs[3] if len(inputs) > 3 else np.zeros((), data.dtype))
            mask = (index < 0).reshape([-1 if a == axis else 1 for a in range(data.ndim)])
            taken = np.where(mask, fill.astype(data.dtype), taken)
        result = taken
    return [np.ascontiguousarray(result)]
