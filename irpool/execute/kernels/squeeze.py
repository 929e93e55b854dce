"""Squeeze and Unsqueeze on NumPy arrays: a reshape to the shape the op infers, the data
kept as Reshape keeps it (kernels/reshape.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numpy.typing import NDArray

from irpool.execute.kernels.reshape import reshape
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.squeeze import Squeeze1, Unsqueeze1


@kernel_for(Squeeze1, Unsqueeze1)
def run_squeeze(
    op: Squeeze1 | Unsqueeze1, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data = inputs[0]
    return [reshape(data, op.target_shape(data.shape, inputs[1:]))]
