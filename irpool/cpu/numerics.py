"""How OpenVINO 2026.4's CPU plugin holds, rounds and saturates each element type, and the f32
path it computes integers on (docs/cpu.md, "Numerics").

- A kernel computes in f32: float inputs are rounded to f32 (f64 saturated to ±FLT_MAX first),
  integers wrapped to int32 and then rounded to f32 (`f32_operand`), so ReLU of the i32
  16777217 is 16777216.
- An f32 result is stored (`stored_from_f32`) rounded to nearest (ties to even) into int32,
  where NaN and values outside int32 give INT32_MIN, then wrapped to 16-, 32- and 64-bit types
  and saturated to 8-bit ones; f64 holds the f32 value with ±inf saturated to ±FLT_MAX.
- A oneDNN product (Convolution, MatMul) saturates integers to [-2**31, 2147483520] first
  (`stored_from_f32_product`).
- A constant is held with i64, u32 and u64 saturated to the int32 range and f64 as f32
  saturated to ±FLT_MAX (`constant_as_held`).
- A tensor the CPU only moves or copies is held with 64-bit integers wrapped to int32 and f64
  as f32 saturated to ±FLT_MAX (`moved_as_held`).
- Its vectorized exp gives 0 below `EXP_UNDERFLOW` (Sigmoid, Swish, SoftMax, attention); its
  Exp op gives 0 at and below `EXP_ZERO_FROM`, inf from `EXP_INF_FROM` on and inf for NaN.
- Its 8-bit SquaredDifference is not a square (`squared_difference_8_bit`).
- The ops it computes in its scalar Math node (Log, the trigonometric and hyperbolic ones)
  store integers saturated as a oneDNN product does, NaN in 8 bits by rank and instruction set
  (`stored_from_f32_saturated`).
- Its JIT eltwise kernels (Exp, Power, ...) store u8 through 16 bits with at most AVX2, so int32
  values from 32768 on give 0 there (`stored_from_f32_eltwise`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.isa import AVX512_CORE, cpu_isa
from irpool.element_types import F64, I64, U32, U64

F32 = np.float32
F32_MAX = float(np.finfo(F32).max)
INT32_MIN = -(2**31)
F32_BELOW_2_31 = 2147483520.0  # oneDNN clamps f32 here before converting to int32
# Below this x the CPU's exp(x) is 0 (NumPy's still gives subnormals).
EXP_UNDERFLOW = np.uint32(0xC2ADFADD).view(F32)
# The CPU's Exp op: 0 at and below ln(FLT_MIN) rounded up, inf from 127.5 * ln 2 on (measured).
EXP_ZERO_FROM = np.uint32(0xC2AEAC51).view(F32)
EXP_INF_FROM = np.uint32(0x42B0C0A6).view(F32)
WRAPPED_WHEN_HELD = (np.dtype(np.int64), np.dtype(np.uint64))

Rounding = Callable[[NDArray[Any]], NDArray[Any]]


def polynomial_table(bits: str, degrees: int) -> NDArray[np.float64]:
    """A kernel's polynomial coefficients written as the hex bits of f32 values, a row per
    degree from 0 up: [degree, interval], held in f64 (so a product by an f32 is exact)."""
    words = np.array([int(word, 16) for word in bits.split()], np.uint32)
    return words.view(np.float32).astype(np.float64).reshape(degrees, -1)


def polynomial_by_fmas(
    table: NDArray[np.float64],
    rows: NDArray[np.intp],
    variable: NDArray[np.float64],
    out: NDArray[np.float32],
) -> None:
    """`out` = the polynomial of `table` (`polynomial_table`) picked per element by `rows`, at
    `variable` (f32 values held in f64), by f32 FMAs from the top coefficient down: each FMA
    computed in f64 and rounded once to f32."""
    value = table[-1].take(rows)
    coefficient = np.empty(variable.shape, np.float64)
    for degree in range(len(table) - 2, -1, -1):
        value *= variable
        table[degree].take(rows, out=coefficient)
        value += coefficient
        np.copyto(out, value, casting="same_kind")
        if degree:
            np.copyto(value, out)


def f32_operand(x: NDArray[Any]) -> NDArray[np.float32]:
    """An input as the CPU computes with it: integers wrapped to int32, then f32; f64
    saturated to the f32 range (as the plugin takes f64 in), then rounded to f32."""
    if x.dtype.kind in "iu":
        x = x.astype(np.int32)
    elif x.dtype == np.float64:
        x = np.clip(x, -F32_MAX, F32_MAX)
    return np.asarray(x, dtype=F32)


def f32_result_buffer(
    x: NDArray[np.float32], data: NDArray[Any], overwrites_input: bool
) -> NDArray[np.float32]:
    """Where an element-wise f32 result of `x` (`f32_operand(data)`) goes: into the input
    itself when the run lets the kernel overwrite it and no conversion made a copy (saving an
    allocation and a pass over fresh memory); else a new array."""
    return x if overwrites_input and x is data else np.empty_like(x)


def stored_from_f32(
    values: NDArray[np.float32], dtype: np.dtype[Any], rounding: Rounding = np.rint
) -> NDArray[Any]:
    """An f32 result as the CPU stores it in `dtype`: floats rounded; integers rounded by
    `rounding` (to nearest; Divide truncates) into int32, where NaN and values out of its
    range give INT32_MIN, then wrapped to 16-, 32- and 64-bit types and saturated to 8-bit
    ones (so an i8 division by zero gives -128). f64 holds the f32 value, ±inf saturated to
    ±FLT_MAX. Boolean: true where the value rounds to nonzero (SoftMax)."""
    if dtype == np.bool_:
        nonzero: NDArray[np.bool_] = np.rint(values) != 0
        return nonzero
    if dtype == np.float64:
        return np.clip(values, -F32_MAX, F32_MAX).astype(dtype)
    if dtype == values.dtype == F32:  # already held as it is
        return values
    if dtype.kind == "f":
        with np.errstate(over="ignore"):  # beyond f16's range: inf, as on the CPU
            return values.astype(dtype, copy=False)
    rounded = rounding(values.astype(np.float64))
    inside = (rounded >= INT32_MIN) & (rounded < 2**31)
    as_int32 = np.where(inside, np.nan_to_num(rounded), INT32_MIN).astype(np.int32)
    if dtype.itemsize == 1:
        info = np.iinfo(dtype)
        saturated: NDArray[Any] = np.clip(as_int32, info.min, info.max)
        return saturated.astype(dtype)
    return as_int32.astype(dtype)


def stored_from_f32_eltwise(
    values: NDArray[np.float32], dtype: np.dtype[Any], rounding: Rounding = np.rint
) -> NDArray[Any]:
    """An f32 result of a JIT eltwise kernel (Exp, Power, ...) stored in `dtype`: as
    `stored_from_f32`, but with at most AVX2 u8 is packed from int32 through 16 bits as
    `u8_packed_through_16_bits` (AVX-512 saturates int32 to u8 directly)."""
    if dtype != np.uint8 or cpu_isa() == AVX512_CORE:
        return stored_from_f32(values, dtype, rounding)
    return u8_packed_through_16_bits(stored_from_f32(values, np.dtype(np.int32), rounding))


def u8_packed_through_16_bits(as_int32: NDArray[np.int32]) -> NDArray[np.uint8]:
    """int32 values as packusdw then packuswb store them: saturated to u16, that read as i16
    and saturated to u8, so values from 32768 on (INT32_MIN is negative: 0) give 0."""
    as_int16 = np.clip(as_int32, 0, 65535).astype(np.uint16).view(np.int16)
    packed: NDArray[np.uint8] = np.clip(as_int16, 0, 255).astype(np.uint8)
    return packed


def stored_from_f32_product(values: NDArray[np.float32], dtype: np.dtype[Any]) -> NDArray[Any]:
    """A oneDNN product (Convolution, MatMul) stored in `dtype`: integer results first
    saturated into [-2**31, 2147483520] (the largest f32 below 2**31), then as
    `stored_from_f32`."""
    if dtype.kind in "iu":
        values = np.clip(values, F32(INT32_MIN), F32(F32_BELOW_2_31))
    return stored_from_f32(values, dtype)


def stored_from_f32_saturated(values: NDArray[np.float32], dtype: np.dtype[Any]) -> NDArray[Any]:
    """An f32 result of the CPU's Math node stored in `dtype`: as a oneDNN product (integers
    saturated into [-2**31, 2147483520], NaN INT32_MIN), but NaN in i8 and u8 is the
    conversion's own: -128 and 255 for a result of rank 0 to 2, 0 from rank 3 on (Acos(5) on
    u8 [3] is 255, on u8 [1,1,3] 0; measured); with at most AVX2 u8 NaN is 0 at every rank."""
    stored = stored_from_f32_product(values, dtype)
    if dtype.kind in "iu" and dtype.itemsize == 1:
        u8_nan = 255 if cpu_isa() == AVX512_CORE else 0
        nan_as = 0 if values.ndim >= 3 else u8_nan if dtype.kind == "u" else -128
        stored = np.where(np.isnan(values), dtype.type(nan_as), stored)
    return stored


def squared_difference_8_bit(a: NDArray[Any], b: NDArray[Any]) -> NDArray[Any]:
    """SquaredDifference of i8 or u8 inputs as the CPU computes it (measured on 100,000 random
    pairs of each): a where a < 0, else b where b < 0, else 0; so u8 always gives 0."""
    zero = np.zeros((), a.dtype)
    result: NDArray[Any] = np.where(a < zero, a, np.where(b < zero, b, zero))
    return result


def moved_as_held(x: NDArray[Any]) -> NDArray[Any]:
    """A tensor as the CPU plugin holds it when it moves or copies its elements (Reshape,
    Transpose, Concat, Gather, VariadicSplit, Slice, Select, Roll, ScatterNDUpdate, Pad,
    Broadcast, a ReduceProd over no axes): 64-bit integers wrapped to int32 (an i64 2**31
    comes out of a lone Reshape as -2**31), f64 as f32 saturated to ±FLT_MAX (an f64 inf or
    1e300 as 3.4028235e38)."""
    if x.dtype in WRAPPED_WHEN_HELD:
        return x.astype(np.int32).astype(x.dtype)
    if x.dtype == np.float64:
        held: NDArray[Any] = np.clip(x, -F32_MAX, F32_MAX).astype(np.float32).astype(np.float64)
        return held
    return x


def constant_as_held(value: NDArray[Any], type_name: str) -> NDArray[Any]:
    """A constant as the CPU plugin holds it (tests/golden/convert_cpu.json "constants"): i64,
    u32 and u64 saturated to the int32 range, f64 rounded to f32 and saturated to its range."""
    if type_name in (I64, U32, U64):
        wide = value.astype(np.float64) if type_name == U64 else value.astype(np.int64)
        return np.asarray(np.clip(wide, INT32_MIN, -INT32_MIN - 1), value.dtype)  # 0-d stays
    if type_name == F64:
        return np.asarray(np.clip(value, -F32_MAX, F32_MAX), np.float32).astype(np.float64)
    return value
