"""The unary math family's values as OpenVINO 2026.4.1's CPU plugin computes them (measured,
docs/elementwise.md#unary-math), on hand-checked inputs; the live comparison over many
configurations is tests/differential/test_unary_math.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.cpu import numerics
from irpool.cpu.isa import AVX2, AVX512_CORE
from irpool.ops.unary_math import BY_TYPE
from tests.execute.running import compute

NAN, INF = float("nan"), float("inf")
I32_MIN = -(2**31)

# op, dtype, input, the CPU's output
CPU_VALUES: list[tuple[str, Any, list[Any], list[Any]]] = [
    ("Abs", np.float32, [-0.0, -INF, NAN, -3.5], [0.0, INF, NAN, 3.5]),
    ("Abs", np.int32, [I32_MIN, -16777217], [I32_MIN, 16777217]),  # integer arithmetic
    ("Abs", np.int64, [2**40 + 3, -(2**40) - 5], [3, 5]),  # wrapped to int32 first
    ("Abs", np.uint32, [4058335883], [236631413]),
    ("Abs", np.int8, [-128, -5], [127, 5]),  # through f32, saturated
    ("Negative", np.int32, [I32_MIN, 7], [I32_MIN, -7]),
    ("Negative", np.int8, [-128, 5], [127, -5]),
    ("Negative", np.float32, [0.0, -0.0, INF], [-0.0, 0.0, -INF]),
    ("Sqrt", np.float32, [-0.0, -1.0, INF, 4.0], [-0.0, NAN, INF, 2.0]),
    ("Sqrt", np.int32, [7, -7, 16], [3, I32_MIN, 4]),  # rounded to nearest; NaN INT32_MIN
    # Exp: 0 at and below 0xC2AEAC51, inf from 0x42B0C0A6, NaN gives inf
    (
        "Exp",
        np.float32,
        [NAN, -87.336555, -87.33655, 88.37627, 0.0],
        [INF, 0.0, 1.1754e-38, INF, 1],
    ),
    ("Exp", np.int32, [22, 1, -100], [I32_MIN, 3, 0]),
    ("Exp", np.uint8, [22, 5], [0, 148]),
    ("Log", np.float32, [0.0, -0.0, -1.0, INF], [-INF, -INF, NAN, INF]),
    ("Sin", np.float32, [INF, -0.0, 3.4e38], [NAN, -0.0, -0.24408488]),
    ("Tanh", np.float32, [-INF, -0.0, 20.0], [-1.0, -0.0, 1.0]),
    # the Math node's storage: +inf and overflow 2147483520, NaN INT32_MIN (8 bits: below)
    ("Cosh", np.int32, [100, 0], [2147483520, 1]),
    ("Cosh", np.int16, [100], [-128]),
    ("Cosh", np.uint16, [100], [65408]),
    ("Cosh", np.int8, [100], [127]),
    ("Acosh", np.int8, [0], [-128]),
    ("Acos", np.uint8, [[[5, 1]]], [[[0, 0]]]),  # NaN in 8 bits: 0 from rank 3 on
    ("Log", np.int8, [[[-3]]], [[[0]]]),
    ("Log", np.int8, [-3, 0], [-128, -128]),
    ("Acosh", np.int16, [0], [0]),
    ("Atanh", np.int32, [1, -1], [2147483520, I32_MIN]),
    ("Tan", np.uint16, [11], [65310]),  # -226 wrapped
    ("Ceiling", np.float32, [-0.5, 0.5, NAN], [-0.0, 1.0, NAN]),
    ("Sign", np.float32, [NAN, -3.0, 0.0, INF], [NAN, -1.0, 0.0, 1.0]),
    ("SoftPlus", np.float32, [INF, -INF, 3.4e38, 0.0], [INF, 0.0, 3.4e38, 0.6931472]),
    ("SoftSign", np.float32, [INF, -INF, 1.0], [NAN, NAN, 0.5]),
    ("Mish", np.float32, [INF, -INF, 0.0], [INF, NAN, 0.0]),
]


@pytest.mark.parametrize(("op", "dtype", "x", "expected"), CPU_VALUES)
def test_cpu_values(op: str, dtype: Any, x: list[Any], expected: list[Any]) -> None:
    (result,) = compute(BY_TYPE[op]({}), [np.array(x, dtype)])
    assert result is not None
    if result.dtype.kind == "f":
        wanted = np.array(expected, result.dtype)
        np.testing.assert_allclose(result, wanted, rtol=1e-4)
        found = ~np.isnan(wanted)  # -0 is not 0
        assert np.array_equal(np.signbit(result[found]), np.signbit(wanted[found]))
    else:
        np.testing.assert_array_equal(result, np.array(expected, result.dtype))


@pytest.mark.parametrize(
    ("isa", "op", "x", "expected"),
    [
        (AVX512_CORE, "Exp", [10, 11, 12, 22, 89], [255, 255, 255, 0, 0]),
        (AVX2, "Exp", [10, 11, 12, 22, 89], [255, 0, 0, 0, 0]),  # through 16 bits: 32768+ is 0
        (AVX512_CORE, "Acosh", [0, 1, 248], [255, 0, 6]),  # the Math node: NaN 255 below rank 3
        (AVX2, "Acosh", [0, 1, 248], [0, 0, 6]),
        (AVX2, "Sinh", [12, 23, 89], [255, 255, 255]),  # saturated to int32 first: 255
    ],
)
def test_u8_is_stored_as_the_instruction_set_packs(
    monkeypatch: pytest.MonkeyPatch, isa: str, op: str, x: list[int], expected: list[int]
) -> None:
    """Exp and the Math node's NaN on u8 as measured on AVX-512 and with ONEDNN_MAX_CPU_ISA=AVX2
    (docs/cpu.md#instruction-sets)."""
    monkeypatch.setattr(numerics, "cpu_isa", lambda: isa)
    (result,) = compute(BY_TYPE[op]({}), [np.array(x, np.uint8)])
    np.testing.assert_array_equal(result, np.array(expected, np.uint8))
