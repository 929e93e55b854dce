"""Convert's kernel: the conversion itself is irpool/ops/conversion.py (`convert`; a Convert of
a constant is folded instead, by `fold` there)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numpy.typing import NDArray

from irpool.execute.errors import ExecutionError
from irpool.execute.kernels import OutputSpec, kernel_for
from irpool.ops.base import numpy_holds
from irpool.ops.conversion import convert
from irpool.ops.convert import Convert1


@kernel_for(Convert1)
def run_convert(
    op: Convert1, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    if not numpy_holds(op.destination):
        raise ExecutionError(
            f"a Convert to {op.destination} cannot run in irpool: NumPy holds no "
            f"{op.destination} elements"
        )
    return [convert(inputs[0], op.destination, op.dynamic_kernel)]
