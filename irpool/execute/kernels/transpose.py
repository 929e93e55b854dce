"""Transpose on NumPy arrays: the elements copied bit for bit (NaN payloads and -0 kept, as
the CPU plugin copies them; 64-bit integers held as int32, kernels/reshape.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numpy.typing import NDArray

from irpool.cpu.numerics import moved_as_held
from irpool.execute.registry import OutputSpec, kernel_for, prepared
from irpool.ops.transpose import Transpose1


@kernel_for(Transpose1)
def run_transpose(
    op: Transpose1, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data, order = inputs[0], inputs[1]
    # The permutation kept per rank and order: a decode step's transposes repeat them.
    key = (data.ndim, order.dtype.char, order.shape, order.tobytes())
    axes = prepared(op, key, lambda: op.axes(data.ndim, inputs[1:]))
    return [moved_as_held(data).transpose(axes).copy(order="C")]
