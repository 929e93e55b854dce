"""Einsum on NumPy arrays (measured against OpenVINO 2026.4's CPU plugin, docs/ops/Einsum.md):
numpy.einsum on the operands as the CPU holds them, floats in f32 along an optimized
(BLAS matmul) path with BLAS held to one thread, so the bits do not depend on the thread
count; a float result is within 2·n·2**-24·Σ|products| of the CPU's (n the number of products
summed); integers exact, wrapped to int32."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import f32_operand, moved_as_held, stored_from_f32
from irpool.execute.engine import blas
from irpool.execute.errors import ExecutionError
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.einsum import Einsum7


@kernel_for(Einsum7)
def run_einsum(
    op: Einsum7, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    equation = str(op.attrs["equation"])
    dtype = inputs[0].dtype
    floats = dtype.kind == "f"
    operands = [f32_operand(x) if floats else moved_as_held(x).astype(np.int64) for x in inputs]
    blas.hold(1)  # OpenBLAS on several threads may sum in another order (docs/threads.md)
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            result = np.asarray(np.einsum(equation, *operands, optimize=True))
    except ValueError as error:
        raise ExecutionError(f"Einsum {equation!r}: {error}") from None
    finally:
        blas.release()
    if floats:
        return [stored_from_f32(result.astype(np.float32), dtype)]
    return [result.astype(np.int32).astype(dtype)]
