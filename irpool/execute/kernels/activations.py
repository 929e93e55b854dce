"""ReLU, Sigmoid, Swish, HSwish, HSigmoid, Floor and Gelu on NumPy arrays, as OpenVINO 2026.4's CPU
plugin computes them (measured, docs/semantics.md "Elementwise ops").

Every type is computed in f32: float inputs are rounded to f32 (f64 saturated to its range)
and the result rounded back; integers are wrapped to int32, converted to f32, and the result
rounded to nearest (ties to even) into int32, where NaN and values outside int32 give
INT32_MIN, then wrapped to 16-, 32- and 64-bit types and saturated to 8-bit ones. So ReLU
of the i32 16777217 is 16777216. f64 results saturate to ±FLT_MAX.

The formulas are the CPU's, bit for bit where it uses no exp: HSigmoid multiplies by the f32
just below 1/6 (0x3E2AAAAA), so HSigmoid(0) is 0.49999997; HSwish is x * clip(x * (1/6) +
0.5, 0, 1), so HSwish(-inf) is NaN. ReLU and HSigmoid of NaN are 0. Sigmoid and Swish use the
CPU's vectorized exp, which NumPy's differs from by at most 7 ulp (Sigmoid) and 9 ulp (Swish)
of the f32 result, measured; below x = -86.98997 (0xC2ADFADD) the CPU gives 0 (Swish -0),
where NumPy still gives subnormals. Gelu is the exact formula in f64 (erf: kernels/erf.py)
rounded to f32, within 6 * 2**-24 * |x| of the CPU's (ERF; TANH 2 * 2**-24 * |x|), with the
CPU's non-finite values.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.engine.maxima import F32_BELOW_2_31
from irpool.execute.kernels.erf import gelu_erf
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.activations import (
    Activation,
    Floor1,
    Gelu2,
    HSigmoid5,
    HSwish4,
    Relu1,
    Sigmoid1,
    Swish4,
)

F32 = np.float32
# The f32 the CPU multiplies by for HSigmoid: one ulp below the nearest f32 to 1/6.
SIXTH_BELOW = np.uint32(0x3E2AAAAA).view(F32)
SIXTH = F32(1 / 6)
# Below this x the CPU's exp(x) is 0, so Sigmoid and Swish are 0.
EXP_UNDERFLOW = np.uint32(0xC2ADFADD).view(F32)
INT32_MIN = -(2**31)
F32_MAX = float(np.finfo(F32).max)

Formula = Callable[[NDArray[np.float32]], NDArray[np.float32]]


def relu(x: NDArray[np.float32], out: NDArray[np.float32] | None = None) -> NDArray[np.float32]:
    return clamped(x, F32(0), F32(np.inf), np.empty_like(x) if out is None else out)


def clamped(
    x: NDArray[np.float32], low: np.float32, high: np.float32, out: NDArray[np.float32]
) -> NDArray[np.float32]:
    """`min(max(x, low), high)` in `out` as the CPU's comparisons `t = x > low ? x : low;
    t < high ? t : high` give it, for bounds neither NaN nor -0: NaN gives low (then high if
    below it), equal values are one value but for a zero, where the CPU keeps the bound (+0
    here: adding +0 makes -0 +0). Without NaN (max propagates it: a read-only pass),
    np.clip, which is minimum(maximum(x, low), high) and vectorized, then +0 where a bound is
    0: 0.26 ms on 4.8 MB where fmax, +0 and fmin took 0.87 (measured); with NaN, fmax and
    fmin, which give the bound for NaN."""
    if x.size and not np.isnan(x.max()):
        result = np.clip(x, low, high, out=out)
        if low == 0 or high == 0:
            np.add(result, F32(0), out=result)
        return result
    result = np.fmax(x, low, out=out)
    if low == 0:
        np.add(result, low, out=result)
    np.fmin(result, high, out=result)
    if high == 0:
        np.add(result, high, out=result)
    return result


def sigmoid(x: NDArray[np.float32]) -> NDArray[np.float32]:
    return np.where(x < EXP_UNDERFLOW, F32(0), F32(1) / (F32(1) + np.exp(-x)))


def hswish(x: NDArray[np.float32]) -> NDArray[np.float32]:
    gate: NDArray[np.float32] = np.clip(x * SIXTH + F32(0.5), F32(0), F32(1))
    return x * gate


def hsigmoid(x: NDArray[np.float32]) -> NDArray[np.float32]:
    # max/min written so that NaN gives 0, as on CPU.
    shifted = np.where(x + F32(3) > 0, x + F32(3), F32(0))
    return np.where(shifted < 6, shifted, F32(6)) * SIXTH_BELOW


FORMULAS: dict[type[Activation], Formula] = {
    Relu1: relu,
    Sigmoid1: sigmoid,
    HSwish4: hswish,
    HSigmoid5: hsigmoid,
    Floor1: np.floor,
}


@kernel_for(Relu1, Sigmoid1, HSwish4, HSigmoid5, Floor1)
def run_activation(
    op: Activation, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data = inputs[0]
    with np.errstate(all="ignore"):  # inf and NaN are values here, as on CPU
        x = to_f32(data)
        if isinstance(op, Relu1):
            return [from_f32(relu(x, out_buffer(x, data, outputs[0])), data.dtype)]
        return [from_f32(FORMULAS[type(op)](x), data.dtype)]


@kernel_for(Swish4)
def run_swish(
    op: Swish4, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data = inputs[0]
    x = to_f32(data)
    with np.errstate(all="ignore"):
        scaled = x * to_f32(inputs[1]) if len(inputs) > 1 else x
        return [from_f32(x * sigmoid(scaled), data.dtype)]


@kernel_for(Gelu2)
def run_gelu(
    op: Gelu2, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    """The formula in f64 on the f32 input, rounded to f32. The CPU's own polynomials are not
    reproduced (measured bounds in docs/semantics.md §21), its non-finite results are: ERF
    gives NaN for ±inf and inf from x > FLT_MAX / 2 on (it doubles x in f32); TANH gives NaN
    for -inf."""
    data = inputs[0]
    x32 = to_f32(data)
    if op.approximation != "TANH":
        return [from_f32(gelu_erf(x32), data.dtype)]
    x = x32.astype(np.float64)
    with np.errstate(all="ignore"):
        inner = math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)
        gelu = 0.5 * x * (1 + np.tanh(inner))
        return [from_f32(gelu.astype(F32), data.dtype)]


def out_buffer(
    x: NDArray[np.float32], data: NDArray[Any], output: OutputSpec
) -> NDArray[np.float32]:
    """Where an element-wise f32 result of `x` goes: into the input itself when the run lets
    the kernel overwrite it and `x` is that input (no conversion made a copy), saving an
    allocation and a pass over fresh memory; else a new array."""
    return x if output.overwrites_input and x is data else np.empty_like(x)


def to_f32(x: NDArray[Any]) -> NDArray[np.float32]:
    """An input as the CPU computes with it: integers wrapped to int32, then f32."""
    if x.dtype.kind in "iu":
        x = x.astype(np.int32)
    elif x.dtype == np.float64:  # saturated to the f32 range, as the plugin takes f64 in
        x = np.clip(x, -F32_MAX, F32_MAX)
    return np.asarray(x, dtype=F32)


def from_f32_product(values: NDArray[np.float32], dtype: np.dtype[Any]) -> NDArray[Any]:
    """A oneDNN product (Convolution, MatMul) stored in `dtype`: integer results first
    saturated into [-2**31, 2147483520] (the largest f32 below 2**31), then as `from_f32`."""
    if dtype.kind in "iu":
        values = np.clip(values, F32(INT32_MIN), F32(F32_BELOW_2_31))
    return from_f32(values, dtype)


def from_f32(
    values: NDArray[np.float32], dtype: np.dtype[Any], rounding: Formula = np.rint
) -> NDArray[Any]:
    """An f32 result as the CPU stores it in `dtype`: floats rounded; integers rounded by
    `rounding` (to nearest; Divide truncates) into int32, where NaN and values out of its
    range give INT32_MIN, then wrapped to 16-, 32- and 64-bit types and saturated to 8-bit
    ones (so an i8 division by zero gives -128). f64 holds the f32 value, ±inf saturated to
    ±FLT_MAX."""
    if dtype == np.bool_:  # true where the value rounds to nonzero (SoftMax, measured)
        nonzero: NDArray[np.bool_] = np.rint(values) != 0
        return nonzero
    if dtype == np.float64:
        return np.clip(values, -F32_MAX, F32_MAX).astype(dtype)
    if dtype.kind == "f":
        return values.astype(dtype, copy=False)  # an f32 result is already held as it is
    rounded = rounding(values.astype(np.float64))
    inside = (rounded >= INT32_MIN) & (rounded < 2**31)
    as_int32 = np.where(inside, np.nan_to_num(rounded), INT32_MIN).astype(np.int32)
    if dtype.itemsize == 1:
        info = np.iinfo(dtype)
        saturated: NDArray[Any] = np.clip(as_int32, info.min, info.max)
        return saturated.astype(dtype)
    return as_int32.astype(dtype)
