"""Concat on NumPy arrays: the elements copied bit for bit (NaN payloads and -0 kept, as the
CPU plugin copies them; 64-bit integers held as int32, kernels/reshape.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.kv_cache import cache_values
from irpool.cpu.numerics import moved_as_held
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.concat import Concat1


@kernel_for(Concat1)
def run_concat(
    op: Concat1, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    axis = op.axis % inputs[0].ndim
    arrays = [moved_as_held(x) for x in inputs]
    if op.cache_type is not None and (inputs[0].shape[axis] > 0 or inputs[1].shape[axis] == 1):
        # read as held (not a longer prompt): the past is held already (its Assign stored
        # it so), this step's tokens are held now, each once, as the CPU holds them
        arrays[1] = cache_values(arrays[1], op.cache_type)
    return [np.concatenate(arrays, axis)]
