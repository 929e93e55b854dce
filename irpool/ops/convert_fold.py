"""Convert of a constant, as OpenVINO folds it (its reference implementation, C++ casts as
compiled for x86-64), which differs from the CPU plugin's kernel (irpool/execute/kernels/
convert.py) on values out of range. Checking folds small constants with it, planning a run
every constant (irpool/execute/fold.py). Measured through the CPU plugin on every pair
(tests/golden/convert_cpu.json "folded").
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.element_types import (
    BOOLEAN,
    F16,
    F32,
    F64,
    I8,
    I16,
    I32,
    U8,
    U16,
    U32,
    U64,
    element_type,
)

# What `source_type` names a float array's type (bf16 is held as f32: never a source).
FLOATS = (F32, F16, F64)
SOURCES = {"f2": F16, "f4": F32, "f8": F64, "b1": BOOLEAN}

INT32_MIN = np.iinfo(np.int32).min
F32_MAX = np.finfo(np.float32).max
F16_MAX = float(np.finfo(np.float16).max)


def source_type(x: NDArray[Any]) -> str:
    """The element type `x` holds, as conversion rules name it: a float type, "boolean",
    or "int" for every integer type."""
    return SOURCES.get(x.dtype.kind + str(x.dtype.itemsize), "int")


def bits_of(values: NDArray[np.float32]) -> NDArray[np.uint32]:
    return np.array(values, dtype=np.float32, order="C").view(np.uint32)  # keeps 0-D arrays


def round_to_bf16_scalar(values: NDArray[np.float32]) -> NDArray[np.float32]:
    """bf16 (held as f32) as ov::bfloat16's scalar rounding gives it, which the CPU plugin runs
    for f64 and integer sources, and for f32 and f16 when the input shape is dynamic: half an
    ulp is added only when the kept bits are odd, so the bits below round half up after an odd
    value and are truncated after an even one (0x781af976 -> 0x781a, 0x9087ceee -> 0x9088).
    Nothing is special: subnormals round the same way, 0x7f7f8000 overflows to inf, a NaN's
    bits go through the addition (0x7f800001 becomes inf, 0x7fffffff becomes -0.0)."""
    bits = bits_of(values)
    rounding = (bits & np.uint32(0x10000)) >> np.uint32(1)
    return ((bits + rounding) & np.uint32(0xFFFF0000)).view(np.float32)


_INT32_CAST_TO = (I8, I16, I32, U8, U16)  # float to these goes through CVTTSS2SI (32-bit)


def fold(x: NDArray[Any], destination: str) -> NDArray[Any]:
    """`x` converted as OpenVINO folds a Convert of a constant: float to integer truncates
    through a 32- or 64-bit hardware conversion whose overflow and NaN give the lowest value,
    then wraps; integers wrap from their full width; booleans are `x != 0` (NaN is true);
    floats round to nearest even and overflow to ±inf (f64 1e300 to f32 is inf), bf16 with
    OpenVINO's scalar rounding; i32 to f16 saturates at ±65504. The plugin then holds the
    result as any constant (`irpool.cpu.numerics.constant_as_held`)."""
    source = source_type(x)
    with np.errstate(over="ignore", invalid="ignore"):
        if destination == BOOLEAN:
            return np.asarray(x != 0) if source != BOOLEAN else x.copy()
        if element_type(destination).is_held_float:
            return _fold_to_float(x, destination)
        dtype = element_type(destination).dtype
        if dtype is None:
            raise ValueError(f"NumPy holds no {destination} elements")
        if source not in FLOATS:
            return x.astype(dtype)  # C++ casts between integers wrap
        return _fold_float_to_int(x.astype(np.float64), source, destination, dtype)


def _cvtt(values: NDArray[np.float64], bits: int) -> NDArray[Any]:
    """CVTTSS2SI / CVTTSD2SI: truncation; NaN and values out of range give the lowest value."""
    info = np.iinfo(np.int32 if bits == 32 else np.int64)
    truncated = np.trunc(values)
    fits = (truncated >= info.min) & (truncated < -float(info.min))  # False for NaN
    return np.where(fits, truncated, info.min).astype(info.dtype)


def _fold_float_to_int(
    values: NDArray[np.float64], source: str, destination: str, dtype: np.dtype[Any]
) -> NDArray[Any]:
    if destination in _INT32_CAST_TO:
        return _cvtt(values, 32).astype(dtype)
    if destination == U64 or (destination == U32 and source == F32):
        # From 2**(bits-1) on, the compiler converts x - 2**(bits-1) and sets the top bit.
        bits = dtype.itemsize * 8
        top = 2.0 ** (bits - 1)
        low = _cvtt(values, bits).astype(dtype)
        high = _cvtt(values - top, bits).astype(dtype) ^ dtype.type(1 << (bits - 1))
        return np.where(values >= top, high, low)
    return _cvtt(values, 64).astype(dtype)  # i64, and u32 from f16 and f64


def _fold_to_float(x: NDArray[Any], destination: str) -> NDArray[Any]:
    if x.dtype == np.int32 and destination == F16:
        return np.clip(x.astype(np.float32), -F16_MAX, F16_MAX).astype(np.float16)
    values = x.astype(np.float32)  # f64 beyond the f32 range becomes ±inf
    if element_type(destination).rounds_when_held:
        return round_to_bf16_scalar(values)
    return values.astype(element_type(destination).dtype)


def fold_low_bit(x: NDArray[Any], source: str, destination: str) -> NDArray[Any]:
    """A Convert from a low-bit type, its values held as irpool/low_bit.py holds them, as the
    CPU gives it (tests/golden/low_bit_cpu.json): folded as above, except that an f8 value goes
    to u32 as an f16 one does (NaN and inf give 0), an f8e5m2 NaN becomes a quiet f16 NaN, and
    f8e8m0's 2**-127 (subnormal in f32) an f32 +0 (not in bf16 or f64)."""
    if destination == U32 and x.dtype == np.float32:
        x = x.astype(np.float16)  # exact: the CPU converts no other float type to u32
    value = fold(x, destination)
    if source == "f8e5m2" and destination == F16:
        bits = value.view(np.uint16)
        return np.where(np.isnan(value), bits | np.uint16(0x200), bits).view(np.float16)
    if source == "f8e8m0" and destination == F32:
        return np.where(np.abs(value) < np.finfo(np.float32).tiny, np.float32(0), value)
    return value
