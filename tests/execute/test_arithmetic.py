"""Add, Subtract, Multiply, Divide, Mod, FloorMod, Power, Greater, Equal and NotEqual: broadcast
shapes as OpenVINO's `read_model` infers them, and values as its CPU plugin computes them
(measured on OpenVINO 2026.4.1, docs/elementwise.md); the live comparison over many
configurations is tests/differential/test_arithmetic.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from irpool.cpu import numerics
from irpool.cpu.isa import AVX2, AVX512_CORE, cpu_isa
from irpool.element_types import element_type
from irpool.execute.kernels import comparison
from irpool.ops.arithmetic import (
    Add1,
    Divide1,
    FloorMod1,
    Mod1,
    Multiply1,
    Power1,
    Subtract1,
    broadcast,
)
from irpool.ops.base import Op, ShapeError, TensorInfo
from irpool.ops.binary_math import BY_TYPE as BINARY_MATH
from irpool.ops.comparison import Equal1, Greater1, GreaterEqual1, Less1, LessEqual1, NotEqual1
from irpool.shape import Dim, Shape
from tests.execute.running import compute, quiet_context

Minimum1, Maximum1 = BINARY_MATH["Minimum"], BINARY_MATH["Maximum"]
SquaredDifference1 = BINARY_MATH["SquaredDifference"]


def dim(text: str) -> Dim:
    if text.isdigit():
        return Dim.static(int(text))
    low, _, high = text.partition("..")
    return Dim(int(low or 0), int(high) if high else None) if text != "?" else Dim.dynamic()


# first dim, second dim, numpy result, none result (None: refused), from read_model
DIM_PAIRS = [
    ("?", "1", "?", "1"),
    ("?", "0..3", "?", "..3"),
    ("5", "1", "5", None),
    ("5", "0..3", "5", None),
    ("5", "2..3", None, None),
    ("1", "0..3", "..3", "1"),
    ("1..5", "3..8", "3..8", "3..5"),
    ("1..5", "0..3", "..5", "1..3"),
    ("3..8", "2..3", "3", "3"),
    ("3..8", "0..1", "3..8", None),
    ("0..3", "..4", "..4", "..3"),
    ("0", "1..1", "0", None),
    ("6..", "2..2", None, None),
]


@pytest.mark.parametrize(("first", "second", "numpy", "none"), DIM_PAIRS)
def test_broadcast_dims_as_openvino(
    first: str, second: str, numpy: str | None, none: str | None
) -> None:
    for mode, expected in (("numpy", numpy), ("none", none)):
        for a, b in ((first, second), (second, first)):
            shapes = Shape((dim(a),)), Shape((dim(b),))
            if expected is None:
                with pytest.raises(ShapeError, match="inconsistent"):
                    broadcast(*shapes, mode)
            else:
                assert str(broadcast(*shapes, mode)) == f"[{expected}]", (mode, a, b)


# first, second, pdpd result (None: refused), from read_model (the IR reader's axis is 0)
PDPD_SHAPES = [
    ("2,?,4", "2,3", "[2,3,4]"),
    ("2,3,4", "1,3", "[2,3,4]"),
    ("2,3,4", "3", None),
    ("2,3,4", "2,1,1", "[2,3,4]"),
    ("2,3", "2,3,1", None),
    ("2,1", "2,3", None),
    ("0,3", "1", None),
    ("2..6,3", "1..4", "[2..6,3]"),
    ("1,1", "?,1", "[?,1]"),
    ("1..8,5", "0", "[0,5]"),
]


@pytest.mark.parametrize(("first", "second", "expected"), PDPD_SHAPES)
def test_pdpd_shapes_as_openvino(first: str, second: str, expected: str | None) -> None:
    shapes = [Shape(tuple(dim(d) for d in text.split(",") if d)) for text in (first, second)]
    if expected is None:
        with pytest.raises(ShapeError):
            broadcast(*shapes, "pdpd")
    else:
        assert str(broadcast(*shapes, "pdpd")) == expected


NAN, INF = float("nan"), float("inf")
NAN_GREATER = cpu_isa() == AVX512_CORE  # Greater and GreaterEqual of NaN (irpool.cpu.isa)
ATTRS = {"auto_broadcast": "numpy", "m_pythondiv": True}

# op, dtype, a, b, the CPU's output
CPU_VALUES: list[tuple[type[Op], Any, list[Any], list[Any], list[Any]]] = [
    (Add1, np.int32, [2**31 - 1, 16777217], [2**31 - 1, 2], [-2, 16777219]),
    (Add1, np.int64, [2**40], [2**40], [0]),  # wrapped to int32 first
    (Add1, np.int8, [100, -128], [100, -1], [127, -128]),  # 8 bits saturate
    (Add1, np.uint8, [250], [44], [255]),
    (Multiply1, np.int32, [46341, -(2**31)], [46341, -(2**31)], [-2147479015, 0]),
    (Multiply1, np.int8, [-56, 100], [100, 100], [-128, 127]),
    # Divide in f32, truncated whatever m_pythondiv says; by zero INT32_MIN (saturated)
    (Divide1, np.int32, [7, -7, 7, -7], [2, 2, -2, -2], [3, -3, -3, 3]),
    (Divide1, np.int32, [5, 0, 2**31 - 1, -(2**31)], [0, 0, 1, 3], [-(2**31)] * 3 + [-715827904]),
    (Divide1, np.int8, [3, -128], [0, -1], [-128, 127]),
    (Divide1, np.uint8, [3, 200], [0, 100], [0, 2]),
    (Divide1, np.float32, [1.0, 0.0, -1.0], [0.0, 0.0, 0.0], [INF, NAN, -INF]),
    (Mod1, np.int32, [7, -7, 7, -7, 5], [2, 2, -2, -2, 0], [1, -1, 1, -1, -(2**31)]),
    (Mod1, np.int32, [-(2**31), 2**31 - 1], [3, 2], [0, 0]),  # x - trunc(x / y) * y in f32
    (Mod1, np.uint8, [3, 7], [0, 255], [0, 7]),
    (Mod1, np.float32, [7.5, -7.5, 1e30, 5.0, INF], [2, 2, 1e10, INF, 2], [1.5, -1.5, 0, NAN, NAN]),
    # NaN: Greater is not (a <= b) on AVX-512, a > b with at most AVX2 (irpool.cpu.isa)
    (Greater1, np.float32, [NAN, 1.0, 2.0, 0.0], [1.0, NAN, 1.0, -0.0], [*[NAN_GREATER] * 2, 1, 0]),
    (Greater1, np.int32, [16777217, -5], [16777216, -4], [False, False]),  # compared in f32
    # NaN: GreaterEqual as Greater, Less and LessEqual are false; -0 equals 0
    (
        GreaterEqual1,
        np.float32,
        [NAN, 1.0, 1.0, -0.0],
        [1.0, NAN, 2.0, 0.0],
        [*[NAN_GREATER] * 2, 0, 1],
    ),
    (Less1, np.float32, [NAN, 1.0, 1.0, -0.0], [1.0, NAN, 2.0, 0.0], [0, 0, 1, 0]),
    (LessEqual1, np.float32, [NAN, 1.0, 3.0, -0.0], [1.0, NAN, 2.0, 0.0], [0, 0, 0, 1]),
    (Less1, np.int64, [2**40, 16777216], [1, 16777217], [True, False]),  # wrapped, then in f32
    # Minimum and Maximum: x86's minps/maxps (NaN first gives the second); integers exact
    (Minimum1, np.float32, [NAN, 1.0, 0.0, -0.0], [1.0, NAN, -0.0, 0.0], [1.0, NAN, -0.0, 0.0]),
    (Maximum1, np.float32, [NAN, 1.0, 0.0, 2.0], [1.0, NAN, -0.0, INF], [1.0, NAN, -0.0, INF]),
    (Minimum1, np.int32, [16777217, -5], [16777218, 3], [16777217, -5]),
    (Maximum1, np.uint32, [4074418350, 5], [394775965, 3], [394775965, 5]),  # wrapped to int32
    (Maximum1, np.int64, [2**40 + 7, -1], [3, -2], [7, -1]),
    # SquaredDifference: int32 wrapping from 16 bits on; 8 bits the CPU's own
    (SquaredDifference1, np.int32, [-115153665, 3], [7, 5], [246067264, 4]),
    (SquaredDifference1, np.int16, [127, 3], [-128, 5], [-511, 4]),
    (SquaredDifference1, np.int8, [100, -94, 8, 127], [-4, -7, 65, -128], [-4, -94, 0, -128]),
    (SquaredDifference1, np.uint8, [9, 228], [193, 3], [0, 0]),
    (SquaredDifference1, np.float32, [INF, 1.5, NAN], [INF, -0.5, 1.0], [NAN, 4.0, NAN]),
    # Subtract: i32 wraps, u8 saturates, i8 adds the saturated negation (-51 + 127)
    (Subtract1, np.int32, [-(2**31), 5], [3, 7], [2**31 - 3, -2]),
    (Subtract1, np.int64, [2**40 + 5, -1], [2**20, 2], [5 - 2**20, -3]),  # wrapped to int32
    (Subtract1, np.uint8, [3, 255], [7, 3], [0, 252]),
    (Subtract1, np.int8, [-51, 127, -128], [-128, -1, -1], [76, 127, -127]),
    (Subtract1, np.float32, [INF, 1.0, 0.0], [INF, NAN, 0.0], [NAN, NAN, 0.0]),
    # FloorMod: x - floor(x / y) * y in f32, then truncated for integers
    (
        FloorMod1,
        np.float32,
        [7.5, -7.5, 7.5, -7.5, 3, -0.0],
        [2, 2, -2, -2, INF, 3],
        [1.5, 0.5, -0.5, -1.5, NAN, 0.0],
    ),
    (FloorMod1, np.float32, [5, INF, 1], [0, 2, NAN], [NAN, NAN, NAN]),
    (
        FloorMod1,
        np.int32,
        [7, -7, 7, -7, 5, -(2**31), 2**31 - 1],
        [2, 2, -2, -2, 0, 3, 2],
        [1, 1, -1, -1, -(2**31), 0, 0],
    ),
    (FloorMod1, np.uint8, [7, 5], [2, 0], [1, 0]),
    (FloorMod1, np.int8, [5, -51], [0, -128], [-128, -51]),
    # Power: pow in f32, truncated; out of range INT32_MIN (saturated for 8 bits)
    (
        Power1,
        np.float32,
        [0.0, 1.0, NAN, 3, 3, -0.0, -0.0],
        [0, NAN, 0, INF, -INF, 3, 2],
        [1, 1, 1, INF, 0, -0.0, 0],
    ),
    (
        Power1,
        np.int32,
        [2, -2, 0, 10, -1, 2, 7],
        [-1, 3, -1, 10, 100001, 31, 2],
        [0, -8, -(2**31), -(2**31), -1, -(2**31), 49],
    ),
    (Power1, np.uint8, [200, 181, 3], [100, 2, 7], [0, 255, 255]),  # 2**32, 32761, 2187
    # Equal and NotEqual compare f32 values: NaN equals nothing, 16777217 equals 16777216
    (Equal1, np.float32, [NAN, 0.0, 1.0, INF], [NAN, -0.0, 2.0, INF], [False, True, False, True]),
    (Equal1, np.int32, [16777217, 5], [16777216, -5], [True, False]),
    (Equal1, np.int64, [2**40 + 1], [1], [True]),  # wrapped to int32
    (NotEqual1, np.float32, [NAN, 0.0, 1.0], [NAN, -0.0, 1.0], [True, False, False]),
    (NotEqual1, np.int32, [16777217, 5], [16777216, -5], [False, True]),
]


@pytest.mark.parametrize(("op_class", "dtype", "a", "b", "expected"), CPU_VALUES)
def test_cpu_values(
    op_class: type[Op], dtype: Any, a: list[Any], b: list[Any], expected: list[Any]
) -> None:
    op = op_class({k: v for k, v in ATTRS.items() if k in {x.name for x in op_class.attributes}})
    (result,) = compute(op, [np.array(a, dtype), np.array(b, dtype)])
    assert result is not None
    np.testing.assert_array_equal(result, np.array(expected, result.dtype))


@pytest.mark.parametrize(
    ("op", "a", "b", "expected"),
    [
        (Divide1({**ATTRS, "m_pythondiv": True}), [-7, 7], [2, 2], [-4, 3]),  # floors
        (Divide1({**ATTRS, "m_pythondiv": False}), [-7, 7], [2, 2], [-3, 3]),
        (Add1({"auto_broadcast": "numpy"}), [2**40], [1], [2**40 + 1]),  # no int32 wrap
        (Mod1({"auto_broadcast": "numpy"}), [-7], [2], [-1]),
        (Greater1({"auto_broadcast": "numpy"}), [3, 2], [2, 2], [True, False]),
        (Subtract1({"auto_broadcast": "numpy"}), [-(2**40)], [1], [-(2**40) - 1]),
        (FloorMod1({"auto_broadcast": "numpy"}), [-7, 7, -(2**62)], [2, -2, 3], [1, -1, 0]),
        (
            Power1({"auto_broadcast": "numpy"}),
            [2, 3, 2, 10],
            [-1, 40, 40, 3],
            [0, -(2**63), 2**40, 1000],
        ),
        (Equal1({"auto_broadcast": "numpy"}), [2**40 + 1, 2], [1, 2], [False, True]),
        (NotEqual1({"auto_broadcast": "numpy"}), [2**40 + 1, 2], [1, 2], [True, False]),
    ],
)
def test_integer_constants_fold_as_openvino_folds(
    op: Op, a: list[int], b: list[int], expected: list[Any]
) -> None:
    """ShapeOf arithmetic keeps its values: OpenVINO folds integer constants with its
    reference arithmetic (Divide with m_pythondiv floors), not the CPU's f32 kernel."""
    first, second = np.array(a, np.int64), np.array(b, np.int64)
    inputs = [
        TensorInfo(element_type("i64"), Shape.of(len(a)), first),
        TensorInfo(element_type("i64"), Shape.of(len(b)), second),
    ]
    (out,) = op.infer(inputs, quiet_context())
    assert out.value is not None and out.value.tolist() == expected


def test_division_by_a_zero_constant_is_not_folded_at_check_time() -> None:
    zero = TensorInfo(element_type("i64"), Shape.of(1), np.array([0], np.int64))
    (out,) = Divide1(ATTRS).infer([zero, zero], quiet_context())
    assert out.value is None and out.shape == Shape.of(1)


@pytest.mark.parametrize(
    ("types", "message"),
    [
        (("f32", "i32"), "do not have the same element type"),
        (("boolean", "boolean"), "does not support inputs with element type: boolean"),
    ],
)
def test_types_openvino_refuses(types: tuple[str, str], message: str) -> None:
    inputs = [TensorInfo(element_type(t), Shape.of(2)) for t in types]
    with pytest.raises(ShapeError, match=message):
        Add1({"auto_broadcast": "numpy"}).infer(inputs, quiet_context())
    if types[0] == "boolean":
        (out,) = Greater1({"auto_broadcast": "numpy"}).infer(inputs, quiet_context())
        assert out.element_type == "boolean"


@pytest.mark.parametrize(("isa", "nan_greater"), [(AVX512_CORE, True), (AVX2, False)])
@pytest.mark.parametrize("op_class", [Greater1, GreaterEqual1])
def test_greater_of_nan_takes_the_instruction_sets_rule(
    monkeypatch: pytest.MonkeyPatch, op_class: type[Op], isa: str, nan_greater: bool
) -> None:
    monkeypatch.setattr(comparison, "cpu_isa", lambda: isa)
    a, b = np.array([NAN, 1.0, 2.0], np.float32), np.array([1.0, NAN, 1.0], np.float32)
    (result,) = compute(op_class({"auto_broadcast": "numpy"}), [a, b])
    np.testing.assert_array_equal(result, [nan_greater, nan_greater, True])


@pytest.mark.parametrize(
    ("isa", "expected"),
    [(AVX512_CORE, [255, 255, 255, 255, 0, 243]), (AVX2, [255, 0, 0, 0, 0, 243])],
)
def test_u8_power_is_stored_as_the_instruction_set_packs(
    monkeypatch: pytest.MonkeyPatch, isa: str, expected: list[int]
) -> None:
    """181**2, 182**2, 2**15, 255**3, 2**32, 3**5: with at most AVX2 u8 is packed through 16
    bits, so 32768 and above give 0 (measured)."""
    monkeypatch.setattr(numerics, "cpu_isa", lambda: isa)
    a, b = np.array([181, 182, 2, 255, 2, 3], np.uint8), np.array([2, 2, 15, 3, 32, 5], np.uint8)
    (result,) = compute(Power1({"auto_broadcast": "numpy"}), [a, b])
    np.testing.assert_array_equal(result, np.array(expected, np.uint8))


GOLDEN = Path(__file__).resolve().parent.parent / "golden_cnn_ops"
GOLDEN_CASES = [
    case
    for case in json.loads((GOLDEN / "index.json").read_text())["cases"]
    if case["op"] in ("Subtract-1", "Power-1")
]


@pytest.mark.parametrize("case", GOLDEN_CASES, ids=[case["name"] for case in GOLDEN_CASES])
def test_golden_vectors(case: dict[str, Any]) -> None:
    """The CPU's outputs of tools/measure_cnn_ops.py (docs/measurements.md#golden-vectors): Subtract
    bit
    for bit, Power within 1 f32 ulp (docs/ops/Power.md), NaN at the same places."""
    op_class = Subtract1 if case["op"] == "Subtract-1" else Power1
    with np.load(GOLDEN / f"{case['name']}.npz") as arrays:
        a, b, expected = arrays["input0"], arrays["input1"], arrays["output0"]
    (result,) = compute(op_class({"auto_broadcast": "numpy", **case["attributes"]}), [a, b])
    assert result is not None and result.dtype == expected.dtype
    assert np.array_equal(np.isnan(result), np.isnan(expected))
    found = ~np.isnan(expected)
    if op_class is Subtract1:
        assert result[found].tobytes() == expected[found].tobytes()
    else:
        ordered = [
            np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)
            for bits in (x.view(np.int32).astype(np.int64) for x in (result, expected))
        ]
        assert np.all(np.abs(ordered[0] - ordered[1])[found] <= 1)
