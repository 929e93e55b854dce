"""Element type conversion on NumPy arrays, as OpenVINO 2026.4's CPU plugin converts a tensor.

`convert` is Convert's kernel; `fold` is OpenVINO's folding of a Convert of a constant, which
differs, and `as_constant` how the plugin then holds any constant (both at the end).

`convert`, measured on the CPU plugin (docs/semantics.md, "Convert-1"), not the C++ casts:
- float to integer truncates toward zero into int32; NaN, ±inf and values outside int32 give
  INT32_MIN; the int32 is then wrapped (two's complement) to the destination, so i64 and u64
  hold at most int32 values. f16 sources clamp ±inf to ±65504 first for 16-bit and wider
  destinations; f64 sources saturate to int32 instead (and straight to the range of i8/u8).
- integer to integer wraps through int32: i64, u32 and u64 sources lose their high bits.
- to boolean: `|x| > 0`, so NaN and INT32_MIN give false; unsigned sources wrapped to int32
  give true only when positive.
- every float result is computed in f32: f64 sources saturate to ±FLT_MAX, an f64 destination
  holds the f32 value with ±inf saturated to ±FLT_MAX.
- to bf16, two roundings of the f32 value: the vector instruction (nearest even) for f32 and
  f16 sources whose shape is static, OpenVINO's scalar rounding otherwise (f64 and integer
  sources, saturated to bf16's range first; f32 and f16 sources in the dynamic kernel).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from irpool.ops.base import numpy_dtype

FLOATS = ("f32", "f16", "f64")
_SOURCES = {"f2": "f16", "f4": "f32", "f8": "f64", "b1": "boolean"}
INT32_MIN = np.iinfo(np.int32).min
F32_MAX = np.finfo(np.float32).max
F16_MAX = float(np.finfo(np.float16).max)
BF16_MAX = np.float32(np.uint32(0x7F7F0000).view(np.float32))


def convert(x: NDArray[Any], destination: str, dynamic_kernel: bool = False) -> NDArray[Any]:
    """`x` converted to `destination`; its dtype tells the source type (bf16 is held as f32
    and converts as f32 does). `dynamic_kernel`: whether the CPU runs its kernel for dynamic
    shapes (the model leaves the input shape dynamic, or its rank is 7 or more), which rounds
    f32 and f16 to bf16 otherwise and saturates floats to i8 and u8 (NaN to 0)."""
    source = _SOURCES.get(x.dtype.kind + str(x.dtype.itemsize), "int")
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is the measured behaviour
        return _convert(x, source, destination, dynamic_kernel)


def _convert(x: NDArray[Any], source: str, destination: str, dynamic_kernel: bool) -> NDArray[Any]:
    if destination == "boolean":
        return _to_boolean(x, source)
    if destination in (*FLOATS, "bf16"):
        return _to_float(x, source, destination, dynamic_kernel)
    dtype = numpy_dtype(destination)
    if dtype is None:
        raise ValueError(f"NumPy holds no {destination} elements")  # the kernel checks first
    if source not in FLOATS:
        return x.astype(np.int32).astype(dtype)  # wraps twice; booleans give 0/1
    saturates = dtype.itemsize == 1 and (source == "f64" or dynamic_kernel)
    return _float_to_int32(x, source, dtype, saturates).astype(dtype)  # wraps (or sign-extends)


def _float_to_int32(
    x: NDArray[Any], source: str, dtype: np.dtype[Any], saturates: bool
) -> NDArray[np.int32]:
    """`saturates`: to i8/u8 straight to the destination's range, NaN to 0."""
    values = x.astype(np.float64)
    if saturates:
        info = np.iinfo(dtype)
        values = np.nan_to_num(values, nan=0.0)
        return np.clip(np.trunc(values), info.min, info.max).astype(np.int32)
    if source == "f64":
        values = np.where(np.isnan(values), INT32_MIN, values)
        return np.clip(np.trunc(values), INT32_MIN, -INT32_MIN - 1).astype(np.int32)
    if source == "f16" and dtype.itemsize >= 2:
        values = np.clip(values, -F16_MAX, F16_MAX)  # NaN stays NaN
    truncated = np.trunc(values)
    fits = (truncated >= INT32_MIN) & (truncated <= -INT32_MIN - 1)  # False for NaN
    return np.where(fits, truncated, INT32_MIN).astype(np.int32)


def _to_float(x: NDArray[Any], source: str, destination: str, dynamic_kernel: bool) -> NDArray[Any]:
    values: NDArray[np.float32]
    if source == "f64":
        values = np.clip(x, -F32_MAX, F32_MAX).astype(np.float32)  # NaN stays NaN
    else:
        values = x.astype(np.float32)
    if destination == "f64":
        return np.clip(values, -F32_MAX, F32_MAX).astype(np.float64)
    if destination == "f16":
        return values.astype(np.float16)
    if destination != "bf16":
        return values
    if source not in ("f32", "f16"):  # f64 and integers saturate to bf16's range first
        return _round_to_bf16_scalar(np.clip(values, -BF16_MAX, BF16_MAX))
    if dynamic_kernel:
        return _round_to_bf16_scalar(_quieted(values) if source == "f16" else values)
    return _round_to_bf16_vector(values)


def _bits(values: NDArray[np.float32]) -> NDArray[np.uint32]:
    return np.array(values, dtype=np.float32, order="C").view(np.uint32)  # keeps 0-D arrays


def _quieted(values: NDArray[np.float32]) -> NDArray[np.float32]:
    """NaNs with the quiet bit set, as the CPU's f16 to f32 conversion leaves them (NumPy's
    keeps a signalling f16 NaN signalling)."""
    bits = _bits(values)
    quiet = np.where(np.isnan(values), bits | np.uint32(0x400000), bits)
    return quiet.view(np.float32)


def _round_to_bf16_vector(values: NDArray[np.float32]) -> NDArray[np.float32]:
    """bf16 (held as f32) as AVX512-BF16's VCVTNEPS2BF16 gives it, which the CPU plugin runs for
    f32 and f16 sources when the input shape is static: nearest even, overflowing to ±inf;
    subnormal inputs become zeros of their sign; NaN keeps its top bits, made quiet."""
    bits = _bits(values)
    rounding = np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    rounded = (bits + rounding) & np.uint32(0xFFFF0000)
    subnormal = (bits & np.uint32(0x7F800000)) == 0
    rounded = np.where(subnormal, bits & np.uint32(0x80000000), rounded)
    nan = (bits & np.uint32(0xFFFF0000)) | np.uint32(0x400000)
    return np.where(np.isnan(values), nan, rounded).view(np.float32)


def _round_to_bf16_scalar(values: NDArray[np.float32]) -> NDArray[np.float32]:
    """bf16 (held as f32) as ov::bfloat16's scalar rounding gives it, which the CPU plugin runs
    for f64 and integer sources, and for f32 and f16 when the input shape is dynamic: half an
    ulp is added only when the kept bits are odd, so the bits below round half up after an odd
    value and are truncated after an even one (0x781af976 -> 0x781a, 0x9087ceee -> 0x9088).
    Nothing is special: subnormals round the same way, 0x7f7f8000 overflows to inf, a NaN's
    bits go through the addition (0x7f800001 becomes inf, 0x7fffffff becomes -0.0)."""
    bits = _bits(values)
    rounding = (bits & np.uint32(0x10000)) >> np.uint32(1)
    return ((bits + rounding) & np.uint32(0xFFFF0000)).view(np.float32)


def _to_boolean(x: NDArray[Any], source: str) -> NDArray[np.bool_]:
    if source in FLOATS:
        return np.abs(x.astype(np.float64)) > 0  # False for NaN
    int32 = x.astype(np.int32)
    if x.dtype.kind == "u":
        return int32 > 0  # the wrapped value read as signed: 2**32-1 gives false
    # |x| > 0 in int32, where |INT32_MIN| < 0. The cast: NumPy's stubs type ndarray's != as Any.
    return cast(NDArray[np.bool_], (int32 != 0) & (int32 != INT32_MIN))


# OpenVINO's constant folding of Convert (its reference implementation, C++ casts as compiled for
# x86-64), measured through the CPU plugin on every pair (tests/golden/convert_cpu.json "folded").
_INT32_CAST_TO = ("i8", "i16", "i32", "u8", "u16")  # float to these goes through CVTTSS2SI (32-bit)


def fold(x: NDArray[Any], destination: str) -> NDArray[Any]:
    """`x` converted as OpenVINO folds a Convert of a constant: float to integer truncates
    through a 32- or 64-bit hardware conversion whose overflow and NaN give the lowest value,
    then wraps; integers wrap from their full width; booleans are `x != 0` (NaN is true);
    floats round to nearest even and overflow to ±inf (f64 1e300 to f32 is inf), bf16 with
    OpenVINO's scalar rounding; i32 to f16 saturates at ±65504. The plugin then holds the
    result as any constant (`as_constant`)."""
    source = _SOURCES.get(x.dtype.kind + str(x.dtype.itemsize), "int")
    with np.errstate(over="ignore", invalid="ignore"):
        if destination == "boolean":
            return np.asarray(x != 0) if source != "boolean" else x.copy()
        if destination in (*FLOATS, "bf16"):
            return _fold_to_float(x, destination)
        dtype = numpy_dtype(destination)
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
    if destination == "u64" or (destination == "u32" and source == "f32"):
        # From 2**(bits-1) on, the compiler converts x - 2**(bits-1) and sets the top bit.
        bits = dtype.itemsize * 8
        top = 2.0 ** (bits - 1)
        low = _cvtt(values, bits).astype(dtype)
        high = _cvtt(values - top, bits).astype(dtype) ^ dtype.type(1 << (bits - 1))
        return np.where(values >= top, high, low)
    return _cvtt(values, 64).astype(dtype)  # i64, and u32 from f16 and f64


def _fold_to_float(x: NDArray[Any], destination: str) -> NDArray[Any]:
    if x.dtype == np.int32 and destination == "f16":
        return np.clip(x.astype(np.float32), -F16_MAX, F16_MAX).astype(np.float16)
    values = x.astype(np.float32)  # f64 beyond the f32 range becomes ±inf
    if destination == "bf16":
        return _round_to_bf16_scalar(values)
    return values.astype(numpy_dtype(destination))


def as_constant(value: NDArray[Any], element_type: str) -> NDArray[Any]:
    """A constant as the CPU plugin holds it (tests/golden/convert_cpu.json "constants"): i64,
    u32 and u64 saturated to the int32 range, f64 rounded to f32 and saturated to its range."""
    if element_type in ("i64", "u32", "u64"):
        wide = value.astype(np.float64) if element_type == "u64" else value.astype(np.int64)
        return np.asarray(np.clip(wide, INT32_MIN, -INT32_MIN - 1), value.dtype)  # 0-d stays
    if element_type == "f64":
        return np.asarray(np.clip(value, -F32_MAX, F32_MAX), np.float32).astype(np.float64)
    return value
