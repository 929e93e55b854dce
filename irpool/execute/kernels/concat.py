"""Concat on NumPy arrays: the elements copied bit for bit (NaN payloads and -0 kept, as the
CPU plugin copies them; 64-bit integers held as int32, kernels/reshape.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import moved_as_held
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.concat import Concat1


@kernel_for(Concat1)
def run_concat(
    op: Concat1, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    return [np.concatenate([moved_as_held(x) for x in inputs], op.axis % inputs[0].ndim)]
