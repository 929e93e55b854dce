"""The unary math family on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it
(docs/elementwise.md#unary-math): one kernel, each op's numerics a row of `NUMERICS`.

Every type is computed in f32 (`irpool.cpu.numerics.f32_operand`: integers wrapped to int32,
f64 saturated). Each formula is evaluated in f64 on the f32 value and rounded to f32: the
CPU's own functions are within `ulps` of that (measured; 0 = bit for bit), Sin and Cos are
glibc's sinf and cosf (`irpool.cpu.trigonometry`), Tanh the CPU's JIT polynomial
(`irpool.cpu.vector_tanh`), and its non-finite values are kept (Exp: 0 at and below
`EXP_ZERO_FROM`, inf from `EXP_INF_FROM` on, inf for NaN).
SoftPlus and Mish use their own approximations, within an absolute bound instead
(`SOFTPLUS_BOUND`, `MISH_BOUND`). Results are stored as the CPU stores them: jit ops as
`stored_from_f32_eltwise`, the Math node's ops saturated (`stored_from_f32_saturated`); Abs and
Negative of 16-bit and wider integers are integer arithmetic in int32 (i64 2**40 + 3 is 3).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import (
    EXP_INF_FROM,
    EXP_ZERO_FROM,
    F32,
    f32_operand,
    stored_from_f32_eltwise,
    stored_from_f32_saturated,
)
from irpool.cpu.trigonometry import cosf, sinf
from irpool.cpu.vector_tanh import vector_tanh
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.unary_math import UnaryMath

Wide = NDArray[np.float64]
# |CPU - exact| bounds: SoftPlus 2**-17 + 2**-21 * |exact|; Mish 3 * 2**-24 * max(|x|, 1).
SOFTPLUS_BOUND = (2.0**-17, 2.0**-21)
MISH_BOUND = 3 * 2.0**-24


def _exp(x: Wide) -> Wide:
    overflow = np.where(np.isnan(x) | (x >= EXP_INF_FROM), np.inf, np.exp(x))
    return np.where(x <= EXP_ZERO_FROM, 0.0, overflow)


def _sin(x: Wide) -> Wide:
    return sinf(x.astype(F32)).astype(np.float64)


def _cos(x: Wide) -> Wide:
    return cosf(x.astype(F32)).astype(np.float64)


def _tanh(x: Wide) -> Wide:
    return vector_tanh(x.astype(F32)).astype(np.float64)


def _softplus(x: Wide) -> Wide:
    return np.logaddexp(0.0, x)


def _mish(x: Wide) -> Wide:
    return x * np.tanh(np.logaddexp(0.0, x))


def _softsign(x: Wide) -> Wide:
    return x / (1.0 + np.abs(x))


@dataclass(frozen=True, slots=True)
class Numerics:
    formula: Callable[[Wide], Wide]
    ulps: int  # of the f32 result, measured against the formula in f64
    saturated: bool = False  # the Math node: integers stored saturated


NUMERICS: dict[str, Numerics] = {
    "Abs": Numerics(np.abs, 0),
    "Sqrt": Numerics(np.sqrt, 0),
    "Exp": Numerics(_exp, 5),
    "Log": Numerics(np.log, 1, saturated=True),
    "Sin": Numerics(_sin, 0, saturated=True),
    "Cos": Numerics(_cos, 0, saturated=True),
    "Tan": Numerics(np.tan, 1, saturated=True),
    "Tanh": Numerics(_tanh, 0),
    "Asin": Numerics(np.arcsin, 1, saturated=True),
    "Acos": Numerics(np.arccos, 1, saturated=True),
    "Atan": Numerics(np.arctan, 1, saturated=True),
    "Asinh": Numerics(np.arcsinh, 2, saturated=True),
    "Acosh": Numerics(np.arccosh, 2, saturated=True),
    "Atanh": Numerics(np.arctanh, 2, saturated=True),
    "Sinh": Numerics(np.sinh, 2, saturated=True),
    "Cosh": Numerics(np.cosh, 2, saturated=True),
    "Ceiling": Numerics(np.ceil, 0),
    "Negative": Numerics(np.negative, 0),
    "Sign": Numerics(np.sign, 0),
    "SoftPlus": Numerics(_softplus, 0),
    "SoftSign": Numerics(_softsign, 1),
    "Mish": Numerics(_mish, 0),
}


def f32_formula(op: UnaryMath, x: NDArray[np.float32]) -> NDArray[np.float32]:
    """The op on values held in f32, rounded to f32 (what a fused chain carries)."""
    with np.errstate(all="ignore"):  # inf and NaN are values here, as on CPU
        result: NDArray[np.float32] = (
            NUMERICS[op.type_name].formula(x.astype(np.float64)).astype(F32)
        )
    return result


@kernel_for(UnaryMath)
def run_unary_math(
    op: UnaryMath, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data = inputs[0]
    if op.type_name in ("Abs", "Negative") and data.dtype.kind in "iu" and data.dtype.itemsize > 1:
        wrapped = data.astype(np.int32)
        exact = np.abs(wrapped) if op.type_name == "Abs" else np.negative(wrapped)
        return [exact.astype(data.dtype)]
    values = f32_formula(op, f32_operand(data))
    if NUMERICS[op.type_name].saturated:
        return [stored_from_f32_saturated(values, data.dtype)]
    return [stored_from_f32_eltwise(values, data.dtype)]
