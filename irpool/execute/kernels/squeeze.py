"""Squeeze and Unsqueeze on NumPy arrays: a reshape to the shape the op infers, the data
kept as Reshape keeps it (kernels/reshape.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numpy.typing import NDArray

from irpool.execute.kernels.reshape import reshape
from irpool.execute.registry import OutputSpec, kernel_for, prepared
from irpool.ops.squeeze import Squeeze1, Unsqueeze1


@kernel_for(Squeeze1, Unsqueeze1)
def run_squeeze(
    op: Squeeze1 | Unsqueeze1, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data, axes = inputs[0], inputs[1:]
    # The shape kept per input shape and axes: a decode step's unsqueezes repeat them.
    key = (data.shape, *((a.dtype.char, a.shape, a.tobytes()) for a in axes))
    return [reshape(data, prepared(op, key, lambda: op.target_shape(data.shape, axes)))]
