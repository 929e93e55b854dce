"""NonZero on NumPy arrays: row-major indices of the non-zero elements (NaN is non-zero, -0
zero), one row per axis. A scalar counts as one axis of one element, as the CPU plugin
gives it ([[0]] or an empty [1, 0])."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.non_zero import NonZero3


@kernel_for(NonZero3)
def run_non_zero(
    op: NonZero3, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data = inputs[0].reshape(1) if inputs[0].ndim == 0 else inputs[0]
    indices = np.nonzero(data)
    return [np.array(indices, dtype=outputs[0].dtype).reshape(data.ndim, -1)]
