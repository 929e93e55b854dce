"""Add, Multiply, Divide, Mod and Greater on NumPy arrays, as OpenVINO 2026.4's CPU plugin
computes them (measured, docs/semantics.md "Elementwise ops").

Floats are computed in f32 (f64 saturated to its range, as for the activations) and rounded
back. Integers are wrapped to int32 first (64-bit types hold int32 values on the CPU), then:
- Add and Multiply are integer arithmetic, wrapping in int32 for 32- and 64-bit types and
  saturating for 8- and 16-bit ones (i8 100 + 100 is 127);
- Divide, Mod and Greater are computed in f32: Divide truncates whatever `m_pythondiv` says
  (-7 / 2 is -3) and 2147483647 / 1 is INT32_MIN (f32 rounds it to 2**31); Mod is
  x - trunc(x / y) * y, so i32 -2**31 mod 3 is 0 and x mod 0 is INT32_MIN; Greater compares
  the f32 values (i32 16777217 > 16777216 is false).
Division by zero gives INT32_MIN (saturated: -128 for i8, 0 for u8) for integers, ±inf or NaN
for floats. Broadcasting is NumPy's; `pdpd` aligns the second input from axis 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.kernels.activations import F32, from_f32, to_f32
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.arithmetic import Add1, Binary, Divide1, Greater1, Mod1, Multiply1


@kernel_for(Binary)
def run_binary(
    op: Binary, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    a, b = inputs
    if op.auto_broadcast == "pdpd":
        b = _pdpd_aligned(b, a.ndim)
    with np.errstate(all="ignore"):  # inf, NaN, overflow and division by zero are values here
        if isinstance(op, Add1 | Multiply1) and a.dtype.kind in "iu":
            return [_integer(op, a, b)]
        x, y = to_f32(a), to_f32(b)
        if isinstance(op, Greater1):  # as not (x <= y): NaN on either side is greater
            return [np.asarray(~(x <= y))]
        if isinstance(op, Add1):
            return [from_f32(x + y, a.dtype)]
        if isinstance(op, Multiply1):
            return [from_f32(x * y, a.dtype)]
        if isinstance(op, Divide1):
            # Measured: the CPU multiplies floats by the reciprocal, and divides integers.
            quotient = x / y if a.dtype.kind in "iu" else x * (F32(1) / y)
            return [from_f32(quotient, a.dtype, np.trunc)]
        assert isinstance(op, Mod1)
        remainder: NDArray[np.float32] = x - np.trunc(x / y) * y
        return [from_f32(remainder, a.dtype, np.trunc)]


def _integer(op: Binary, a: NDArray[Any], b: NDArray[Any]) -> NDArray[Any]:
    """Integer Add or Multiply: wrapped in int32 (and to 16 bits), or saturated to 8 bits."""
    if a.dtype.itemsize == 1:
        wide = np.add(a, b, dtype=np.int64) if isinstance(op, Add1) else a.astype(np.int64) * b
        info = np.iinfo(a.dtype)
        saturated: NDArray[Any] = np.clip(wide, info.min, info.max)
        return saturated.astype(a.dtype)
    x, y = a.astype(np.int32), b.astype(np.int32)
    wrapped = x + y if isinstance(op, Add1) else x * y
    return wrapped.astype(a.dtype)


def _pdpd_aligned(b: NDArray[Any], rank: int) -> NDArray[Any]:
    """The second input of a `pdpd` op shaped to broadcast from axis 0: 1s appended up to the
    first input's rank."""
    return b.reshape((*b.shape, *([1] * (rank - b.ndim))))
