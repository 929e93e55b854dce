"""VariadicSplit and Split on NumPy arrays: consecutive pieces of the axis, copied bit for bit
(64-bit integers held as int32, as the CPU plugin holds them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import moved_as_held
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.split import Split1
from irpool.ops.variadic_split import VariadicSplit1


@kernel_for(VariadicSplit1, Split1)
def run_variadic_split(
    op: VariadicSplit1 | Split1, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data = moved_as_held(inputs[0])
    axis, lengths = op.pieces(data.shape, inputs[1:])
    cuts = np.cumsum(lengths)[:-1]
    pieces: list[NDArray[Any] | None] = [
        piece.copy(order="C") for piece in np.split(data, cuts, axis)
    ]
    return pieces
