"""Reshape on NumPy arrays: the data is kept, the shape changes (Squeeze and Unsqueeze too:
kernels/squeeze.py).

Kept as the CPU plugin holds a tensor it moves (`irpool.cpu.numerics.moved_as_held`): i64 and
u64 values wrapped to int32 and widened back, f64 as f32.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numpy.typing import NDArray

from irpool.cpu.numerics import moved_as_held
from irpool.execute.registry import OutputSpec, kernel_for, prepared
from irpool.ops.reshape import Reshape1


@kernel_for(Reshape1)
def run_reshape(
    op: Reshape1,
    inputs: Sequence[NDArray[Any]],
    outputs: Sequence[OutputSpec],
) -> list[NDArray[Any] | None]:
    data, pattern = inputs[0], inputs[1]
    # The shape kept per input shape and pattern: a decode step's reshapes repeat them.
    key = (data.shape, pattern.dtype.char, pattern.shape, pattern.tobytes())
    return [reshape(data, prepared(op, key, lambda: op.target_shape(data.shape, inputs[1:])))]


def reshape(x: NDArray[Any], shape: tuple[int, ...]) -> NDArray[Any]:
    return moved_as_held(x).reshape(shape)
