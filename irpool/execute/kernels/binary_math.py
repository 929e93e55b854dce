"""Minimum, Maximum and SquaredDifference on NumPy arrays, as OpenVINO 2026.4's CPU plugin
computes them (measured, docs/elementwise.md#minimum-maximum-and-squareddifference).

Floats are held in f32 (f64 saturated) and computed by the x86 rules `CPU_RULES` names:
Minimum is `x < y ? x : y` and Maximum `x > y ? x : y`, so NaN in the first input gives the
second (min(NaN, 1) is 1, min(1, NaN) NaN) and of two zeros the second (min(0, -0) is -0).
Integers are exact: wrapped to int32 (i64, u32, u64 lose their high bits) and computed there,
SquaredDifference wrapping `(a - b) * (a - b)` in int32 for 16-bit and wider types; 8-bit
SquaredDifference is the CPU's own (irpool.cpu.numerics.squared_difference_8_bit).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import f32_operand, squared_difference_8_bit, stored_from_f32
from irpool.execute.kernels.arithmetic import pdpd_aligned
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.binary_math import BinaryMath

Pair = Callable[[NDArray[Any], NDArray[Any]], NDArray[Any]]
CPU_RULES: dict[str, Pair] = {
    "Minimum": lambda x, y: np.where(x < y, x, y),
    "Maximum": lambda x, y: np.where(x > y, x, y),
    "SquaredDifference": lambda x, y: (x - y) * (x - y),
}


def f32_result(op: BinaryMath, x: NDArray[np.float32], y: NDArray[np.float32]) -> NDArray[Any]:
    """The op on inputs held in f32 (what a fused chain carries)."""
    with np.errstate(all="ignore"):  # inf and NaN are values here
        return CPU_RULES[op.type_name](x, y)


@kernel_for(BinaryMath)
def run_binary_math(
    op: BinaryMath, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    a, b = inputs
    if op.auto_broadcast == "pdpd":
        b = pdpd_aligned(b, a.ndim)
    if a.dtype.kind not in "iu":
        return [stored_from_f32(f32_result(op, f32_operand(a), f32_operand(b)), a.dtype)]
    if a.dtype.itemsize == 1 and op.type_name == "SquaredDifference":
        return [squared_difference_8_bit(*np.broadcast_arrays(a, b))]
    with np.errstate(over="ignore"):
        exact = CPU_RULES[op.type_name](a.astype(np.int32), b.astype(np.int32))
    return [exact.astype(a.dtype)]
