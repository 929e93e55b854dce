"""ReadValue and Assign on NumPy arrays, as one run of an infer request computes them
(docs/ops/ReadValue.md): these kernels give a ReadValue's first value (its initializer's, or
zeros of the variable's shape with a dynamic dim 0) and pass an Assign's input on. A run
(irpool/execute/run.py) gives a ReadValue the variable's value instead once an Assign has
stored one, and stores what each Assign receives when the run ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.errors import ExecutionError
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.variables import AssignBase, ReadValue6, ReadValueBase, first_value_shape


@kernel_for(ReadValueBase)
def run_read_value(
    op: ReadValueBase, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    if inputs:
        return [inputs[0]]
    assert isinstance(op, ReadValue6), "a ReadValue-3 has its initializer"
    dtype = outputs[0].dtype
    if dtype is None:
        raise ExecutionError(f"irpool cannot hold a variable of type {outputs[0].element_type}")
    return [np.zeros(first_value_shape(op.attrs["variable_shape"]), dtype)]


@kernel_for(AssignBase)
def run_assign(
    op: AssignBase, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    return [inputs[0]]
