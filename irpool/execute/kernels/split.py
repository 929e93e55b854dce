"""Split on NumPy arrays: equal consecutive pieces of the axis, copied bit for bit (64-bit
integers held as int32, as the CPU plugin holds them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.kernels.reshape import as_held
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.split import Split1


@kernel_for(Split1)
def run_split(
    op: Split1, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data = as_held(inputs[0])
    axis, count = op.pieces(data.shape, inputs[1:])
    return [piece.copy(order="C") for piece in np.split(data, count, axis)]
