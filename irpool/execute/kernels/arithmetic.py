"""Add, Subtract, Multiply, Divide, Mod, FloorMod and Power on NumPy arrays, as OpenVINO
2026.4's CPU plugin computes them (measured, docs/elementwise.md).

Floats are computed in f32 (f64 saturated to its range, as for the activations) and rounded
back. Integers are wrapped to int32 first (64-bit types hold int32 values on the CPU), then:
- Add, Subtract and Multiply are integer arithmetic, wrapping in int32 for 16-, 32- and
  64-bit types and saturating for 8-bit ones (i8 100 + 100 is 127; an i8 Subtract adds the
  saturated negation: -51 - -128 is -51 + 127 = 76);
- Divide, Mod, FloorMod and Power are computed in f32 and truncated: Divide whatever
  `m_pythondiv` says (-7 / 2 is -3) and 2147483647 / 1 is INT32_MIN (f32 rounds it to 2**31);
  Mod is x - trunc(x / y) * y, so i32 -2**31 mod 3 is 0 and x mod 0 is INT32_MIN; FloorMod is
  x - floor(x / y) * y (the divisor's sign). Power is within 1 f32 ulp of the CPU's (both
  round a pow to f32; the CPU's is not always the nearest), before integers are truncated.
Division by zero gives INT32_MIN (saturated: -128 for i8, 0 for u8) for integers, ±inf or NaN
for floats. Broadcasting is NumPy's; `pdpd` aligns the second input from axis 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import F32, f32_operand, stored_from_f32_eltwise
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.arithmetic import (
    Add1,
    Binary,
    Divide1,
    FloorMod1,
    Mod1,
    Multiply1,
    Power1,
    Subtract1,
)

# The ops whose f32 result is one ufunc on the inputs as they are (float_result's).
_F32_UFUNCS: dict[type[Binary], np.ufunc] = {
    Add1: np.add,
    Subtract1: np.subtract,
    Multiply1: np.multiply,
}


@kernel_for(Binary)
def run_binary(
    op: Binary, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    a, b = inputs
    if op.auto_broadcast == "pdpd":
        b = pdpd_aligned(b, a.ndim)
    exact = _F32_UFUNCS.get(type(op))
    if exact is not None and a.dtype == b.dtype == F32:  # most calls: one ufunc, one errstate
        with np.errstate(all="ignore"):
            return [exact(a, b)]
    with np.errstate(all="ignore"):  # inf, NaN, overflow and division by zero are values here
        if isinstance(op, Add1 | Subtract1 | Multiply1) and a.dtype.kind in "iu":
            return [_integer(op, a, b)]
        result = float_result(op, f32_operand(a), f32_operand(b), integer=a.dtype.kind in "iu")
    return [stored_from_f32_eltwise(result, a.dtype, np.trunc)]


def float_result(
    op: Binary, x: NDArray[np.float32], y: NDArray[np.float32], *, integer: bool
) -> NDArray[np.float32]:
    """The op on inputs held in f32, before the result is stored in its type (integers
    truncated). `integer`: the inputs are integers (Divide then divides, not multiplies by
    the reciprocal)."""
    with np.errstate(all="ignore"):
        if isinstance(op, Add1):
            return x + y
        if isinstance(op, Subtract1):
            return x - y
        if isinstance(op, Multiply1):
            return x * y
        if isinstance(op, Power1):
            # The CPU's pow is within 1 ulp of the correctly rounded one (measured), which
            # NumPy's f32 power is not (13,706 of 200,000 random pairs differ, 53 from f64's).
            powers: NDArray[np.float32] = np.power(x.astype(np.float64), y).astype(F32)
            return powers
        if isinstance(op, Divide1):
            # Measured: the CPU multiplies floats by the reciprocal, and divides integers.
            quotient: NDArray[np.float32] = x / y if integer else x * (F32(1) / y)
            return quotient
        if isinstance(op, FloorMod1):
            floored: NDArray[np.float32] = x - np.floor(x / y) * y
            return floored
        assert isinstance(op, Mod1)
        remainder: NDArray[np.float32] = x - np.trunc(x / y) * y
        return remainder


def _integer(op: Binary, a: NDArray[Any], b: NDArray[Any]) -> NDArray[Any]:
    """Integer Add, Subtract or Multiply: wrapped in int32 (and to 16 bits), or saturated to 8
    bits (an i8 Subtract adds the saturated negation)."""
    if a.dtype.itemsize == 1:
        info = np.iinfo(a.dtype)
        x, y = a.astype(np.int64), b.astype(np.int64)
        if isinstance(op, Subtract1):
            wide = x - y if info.min == 0 else x + np.clip(-y, info.min, info.max)
        else:
            wide = x + y if isinstance(op, Add1) else x * y
        saturated: NDArray[Any] = np.clip(wide, info.min, info.max)
        return saturated.astype(a.dtype)
    x32, y32 = a.astype(np.int32), b.astype(np.int32)
    wrapped = (
        x32 + y32 if isinstance(op, Add1) else x32 - y32 if isinstance(op, Subtract1) else x32 * y32
    )
    return wrapped.astype(a.dtype)


def pdpd_aligned(b: NDArray[Any], rank: int) -> NDArray[Any]:
    """The second input of a `pdpd` op shaped to broadcast from axis 0: 1s appended up to the
    first input's rank."""
    return b.reshape((*b.shape, *([1] * (rank - b.ndim))))
