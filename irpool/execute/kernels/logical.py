"""The logical and bitwise families on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes
them (measured, docs/elementwise.md#logical-and-bitwise).

Booleans are exact. Integers are held as the CPU holds them, wrapped to int32 (i64, u32 and
u64 lose their high bits), computed there and wrapped back: BitwiseAnd of i64 2**40 + 3 and 1
is 1; u64 results are sign-extended (BitwiseNot of u64 0 is 2**64 - 1). A shift moves by its
count's low 5 bits (`b & 31`: a count of 32 or -32 is 0, -3 is 29), right shifts arithmetic
(u32 2**31 >> 1 is 2**32 - 2**30), then the result wraps to the type (i8 3 << 7 is -128).
LogicalNot of a non-boolean is 1 where the value held in f32 is 0 (NaN gives 0; f64 1e-300
gives 1), else 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import f32_operand
from irpool.execute.kernels.arithmetic import pdpd_aligned
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.logical import LogicalBinary, LogicalUnary


@kernel_for(LogicalBinary)
def run_logical_binary(
    op: LogicalBinary, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    a, b = inputs
    if op.auto_broadcast == "pdpd":
        b = pdpd_aligned(b, a.ndim)
    function = getattr(np, op.reference)
    if a.dtype == np.bool_:
        return [np.asarray(function(a, b))]
    x, y = a.astype(np.int32), b.astype(np.int32)
    if op.row.accepts == "integer":  # a shift
        y = y & np.int32(31)
    result: NDArray[Any] = function(x, y).astype(a.dtype)
    return [result]


@kernel_for(LogicalUnary)
def run_logical_unary(
    op: LogicalUnary, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data = inputs[0]
    if data.dtype == np.bool_:
        return [~data]
    if op.type_name == "BitwiseNot":
        return [np.invert(data.astype(np.int32)).astype(data.dtype)]
    with np.errstate(invalid="ignore"):
        return [(f32_operand(data) == 0).astype(data.dtype)]
