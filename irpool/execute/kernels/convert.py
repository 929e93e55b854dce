"""Convert's kernel: element type conversion as OpenVINO 2026.4's CPU plugin converts a
tensor. A Convert of a constant is folded instead, by OpenVINO's rules, which differ
(irpool/ops/convert_fold.py).

Measured on the CPU plugin (docs/ops/Convert.md), not the C++ casts:
- float to integer truncates toward zero into int32; NaN, ±inf and values outside int32 give
  INT32_MIN; the int32 is then wrapped (two's complement) to the destination, so i64 and u64
  hold at most int32 values. f16 sources clamp ±inf to ±65504 first for 16-bit and wider
  destinations; f64 sources saturate to int32 instead (and straight to the range of i8/u8).
- integer to integer wraps through int32: i64, u32 and u64 sources lose their high bits.
- to boolean: `|x| > 0`, so NaN and INT32_MIN give false; unsigned sources wrapped to int32
  give true only when positive.
- every float result is computed in f32: f64 sources saturate to ±FLT_MAX, an f64 destination
  holds the f32 value with ±inf saturated to ±FLT_MAX.
- to bf16, two roundings of the f32 value: the vector one for f32 and f16 sources whose shape
  is static, OpenVINO's scalar rounding otherwise (f64 and integer sources, saturated to bf16's
  range first on AVX-512; f32 and f16 sources in the dynamic kernel). The vector one is the
  host's (irpool.cpu.isa.bf16_isa): nearest even, subnormals flushed with AVX512_BF16, kept without;
  OpenVINO's scalar rounding with at most AVX2.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.isa import AVX512_CORE, AVX512_CORE_BF16, bf16_isa
from irpool.element_types import BOOLEAN, F16, F32, F64, element_type
from irpool.execute.errors import ExecutionError
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.convert import Convert1
from irpool.ops.convert_fold import (
    F16_MAX,
    F32_MAX,
    FLOATS,
    INT32_MIN,
    bits_of,
    fold_low_bit,
    round_to_bf16_scalar,
    source_type,
)


@kernel_for(Convert1)
def run_convert(
    op: Convert1, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    if element_type(op.destination).held_dtype is None:
        raise ExecutionError(
            f"a Convert to {op.destination} cannot run in irpool: NumPy holds no "
            f"{op.destination} elements"
        )
    if op.low_bit_source is not None:
        return [fold_low_bit(inputs[0], op.low_bit_source, op.destination)]
    destination = outputs[0].element_type  # f32 where bf16 is computed in f32 (cpu/bf16_in_f32)
    values = convert(inputs[0], destination, op.dynamic_kernel)
    if destination != op.destination and inputs[0].dtype == np.float16:
        values = quieted(values)  # as the CPU's f16 conversion leaves NaNs
    return [values]


def convert(x: NDArray[Any], destination: str, dynamic_kernel: bool = False) -> NDArray[Any]:
    """`x` converted to `destination`; its dtype tells the source type (bf16 is held as f32
    and converts as f32 does). `dynamic_kernel`: whether the CPU runs its kernel for dynamic
    shapes (the model leaves the input shape dynamic, or its rank is 7 or more), which rounds
    f32 and f16 to bf16 otherwise and saturates floats to i8 and u8 (NaN to 0)."""
    source = source_type(x)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is the measured behaviour
        return _convert(x, source, destination, dynamic_kernel)


def _convert(x: NDArray[Any], source: str, destination: str, dynamic_kernel: bool) -> NDArray[Any]:
    if destination == BOOLEAN:
        return _to_boolean(x, source)
    if element_type(destination).is_held_float:
        return _to_float(x, source, destination, dynamic_kernel)
    dtype = element_type(destination).dtype
    if dtype is None:
        raise ValueError(f"NumPy holds no {destination} elements")  # the kernel checks first
    if source not in FLOATS:
        return x.astype(np.int32).astype(dtype)  # wraps twice; booleans give 0/1
    saturates = dtype.itemsize == 1 and (source == F64 or dynamic_kernel)
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
    if source == F64:
        values = np.where(np.isnan(values), INT32_MIN, values)
        return np.clip(np.trunc(values), INT32_MIN, -INT32_MIN - 1).astype(np.int32)
    if source == F16 and dtype.itemsize >= 2:
        values = np.clip(values, -F16_MAX, F16_MAX)  # NaN stays NaN
    truncated = np.trunc(values)
    fits = (truncated >= INT32_MIN) & (truncated <= -INT32_MIN - 1)  # False for NaN
    return np.where(fits, truncated, INT32_MIN).astype(np.int32)


def _to_float(x: NDArray[Any], source: str, destination: str, dynamic_kernel: bool) -> NDArray[Any]:
    values: NDArray[np.float32]
    if source == F64:
        values = np.clip(x, -F32_MAX, F32_MAX).astype(np.float32)  # NaN stays NaN
    else:
        values = x.astype(np.float32)
    if destination == F64:
        return np.clip(values, -F32_MAX, F32_MAX).astype(np.float64)
    if destination == F16:
        return values.astype(np.float16)
    target = element_type(destination)
    if not target.rounds_when_held:
        return values
    if source not in (F32, F16):  # f64 and integers: to bf16's range first with AVX-512
        if bf16_isa() in (AVX512_CORE, AVX512_CORE_BF16):
            largest = np.float32(target.largest)
            values = np.clip(values, -largest, largest)
        return round_to_bf16_scalar(values)
    if source == F16:
        values = quieted(values)
    if dynamic_kernel:
        return round_to_bf16_scalar(values)
    return _round_to_bf16_vector(values, bf16_isa())


def quieted(values: NDArray[np.float32]) -> NDArray[np.float32]:
    """NaNs with the quiet bit set, as the CPU's f16 to f32 conversion leaves them (NumPy's
    keeps a signalling f16 NaN signalling)."""
    bits = bits_of(values)
    quiet = np.where(np.isnan(values), bits | np.uint32(0x400000), bits)
    return quiet.view(np.float32)


def _round_to_bf16_vector(values: NDArray[np.float32], isa: str) -> NDArray[np.float32]:
    """bf16 (held as f32) as the CPU plugin's vector conversion gives it on an `isa` host, which
    it runs for f32 and f16 sources when the input shape is static. AVX512_CORE_BF16 (its
    VCVTNEPS2BF16) and AVX512_CORE (oneDNN's emulation of it): nearest even, overflowing to
    ±inf, NaN keeps its top bits, made quiet; subnormal inputs become zeros of their sign with
    AVX512_BF16 and round as any value without. At most AVX2: OpenVINO's scalar rounding."""
    if isa not in (AVX512_CORE, AVX512_CORE_BF16):
        return round_to_bf16_scalar(values)
    bits = bits_of(values)
    rounding = np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    rounded = (bits + rounding) & np.uint32(0xFFFF0000)
    if isa == AVX512_CORE_BF16:
        subnormal = (bits & np.uint32(0x7F800000)) == 0
        rounded = np.where(subnormal, bits & np.uint32(0x80000000), rounded)
    nan = (bits & np.uint32(0xFFFF0000)) | np.uint32(0x400000)
    return np.where(np.isnan(values), nan, rounded).view(np.float32)


def _to_boolean(x: NDArray[Any], source: str) -> NDArray[np.bool_]:
    if source in FLOATS:
        return np.abs(x.astype(np.float64)) > 0  # False for NaN
    int32 = x.astype(np.int32)
    if x.dtype.kind == "u":
        return int32 > 0  # the wrapped value read as signed: 2**32-1 gives false
    # |x| > 0 in int32, where |INT32_MIN| < 0. The cast: NumPy's stubs type ndarray's != as Any.
    return cast(NDArray[np.bool_], (int32 != 0) & (int32 != INT32_MIN))
