"""Clamp-1: its f64 attributes as OpenVINO 2026.4's `read_model` reads them, its refusals, and
its kernel on the values where the CPU plugin's rules show (measured, docs/ops/Clamp.md); the golden
vectors of tests/golden_cnn_ops/ reproduced bit for bit.
The live comparison over many inputs is in tests/differential/test_activations.py."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import irpool
from irpool.check.attributes import read_attributes
from irpool.cli import cli
from irpool.element_types import element_type
from irpool.ops.base import ShapeError, TensorInfo
from irpool.ops.clamp import Clamp1
from irpool.parse.floats import float_text, read_float
from irpool.rules import (
    ATTRIBUTE_OUT_OF_RANGE,
    INVALID_ATTRIBUTE_VALUE,
    MISSING_ATTRIBUTE,
    REINTERPRETED_ATTRIBUTE_VALUE,
)
from irpool.shape import Shape
from tests.execute.running import compute, quiet_context

NAN, INF = float("nan"), float("inf")
F32_MAX = float(np.finfo(np.float32).max)
GOLDEN = Path(__file__).resolve().parents[1] / "golden_cnn_ops"

# Text, the value OpenVINO reads, and the fix irpool writes (None: read exactly as written).
# Each row measured with read_model on a Clamp's max (min -100).
READ: list[tuple[str, float, str | None]] = [
    ("6", 6.0, None),
    ("6.", 6.0, None),
    (".5", 0.5, None),
    ("+6", 6.0, None),
    ("6e0", 6.0, None),
    ("1.5e1", 15.0, None),
    ("1E5", 1e5, None),
    ("1e0005", 1e5, None),
    (" 6", 6.0, None),
    ("6 ", 6.0, None),
    ("  \t6", 6.0, None),
    ("00006", 6.0, None),
    ("-0", -0.0, None),
    ("+.5", 0.5, None),
    ("-.5e1", -5.0, None),
    ("1e-400", 0.0, None),  # below the f64 range: 0, as strtod rounds it
    ("4.9e-324", 5e-324, None),
    ("1e-320", 1e-320, None),
    ("1.7976931348623157e308", 1.7976931348623157e308, None),
    ("0." + "0" * 400 + "1", 0.0, None),
    ("inf", INF, None),
    ("-inf", -INF, None),
    (" inf", INF, None),
    ("\tinf", INF, None),
    ("-inf ", -INF, None),
    ("nan", NAN, None),  # read, then refused by Clamp's check (min <= max)
    # read by prefix: silently another number
    ("0x1", 0.0, "0"),
    ("0x10", 0.0, "0"),
    ("0x1p2", 0.0, "0"),
    ("0X1P-1", 0.0, "0"),
    ("0x", 0.0, "0"),
    ("-0x5", -0.0, "-0"),
    ("6x", 6.0, "6"),
    ("6,5", 6.0, "6"),
    ("1,5", 1.0, "1"),
    ("1_0", 1.0, "1"),
    ("1d2", 1.0, "1"),
    ("1..5", 1.0, "1"),
    ("1.5.5", 1.5, "1.5"),
    ("1e5e5", 1e5, "100000"),
    ("1e308x", 1e308, "1e+308"),
    ("6\u00a0", 6.0, "6"),  # a no-break space is no blank to OpenVINO
]

# Texts read_model refuses: "Cannot parse '...' to number".
REFUSED = [
    "", "a", "６", "٦", "\u00a06", "Infinity", "-Infinity", "infinity", "INF", "+inf", "infx",
    "inf x", "in f", "inf,5", "NaN", "-nan", "+nan", "nan(123)", "nanx", "1e400", "-1e400",
    "1.8e308", "1.8e308x", "1" * 400, "1e", "1e+", "6e-", "1ex", "1e+x", ".", "-", "+", "-.",
    ".e5", "e5", "--1", "+-1", "- 1",
]  # fmt: skip


@pytest.mark.parametrize(("text", "value", "fix"), READ)
def test_float_read_as_openvino_reads_it(text: str, value: float, fix: str | None) -> None:
    reading = read_float(text)
    assert reading.value is not None
    assert math.copysign(1, reading.value) == math.copysign(1, value)
    assert reading.value == value or (math.isnan(value) and math.isnan(reading.value))
    if fix is None:
        assert reading.finding is None
    else:
        assert reading.finding is not None and reading.finding.kind == "reinterpreted"
        assert reading.finding.fix == fix
        assert read_float(fix) == type(reading)(reading.value)  # the fix reads back exactly


@pytest.mark.parametrize("text", REFUSED)
def test_float_refused_as_openvino_refuses_it(text: str) -> None:
    reading = read_float(text)
    assert reading.value is None
    assert reading.finding is not None and reading.finding.kind == "rejected"


@pytest.mark.parametrize(
    "value", [0.0, -0.0, 6.0, 0.1, 1 / 3, 1e30, 1e-7, 5e-324, 2.0**53 + 2, INF, -INF]
)
def test_float_text_reads_back_exactly(value: float) -> None:
    text = float_text(value)
    reading = read_float(text)
    assert reading.finding is None and reading.value == value
    assert math.copysign(1, reading.value) == math.copysign(1, value)


def _findings(data: tuple[tuple[str, str], ...]) -> list[tuple[str, str, Any]]:
    return [
        (code, message, where) for code, message, where in read_attributes(Clamp1, data).findings
    ]


@pytest.mark.parametrize(
    ("data", "code", "message"),
    [
        ((("min", "0x1"), ("max", "6")), REINTERPRETED_ATTRIBUTE_VALUE, 'min: "0x1" is read as 0'),
        ((("min", "0"), ("max", "1e400")), INVALID_ATTRIBUTE_VALUE, "beyond the range"),
        ((("min", "０"), ("max", "6")), INVALID_ATTRIBUTE_VALUE, "ASCII digits"),
        ((("min", "-1"),), MISSING_ATTRIBUTE, "every value is clamped into [min, 0]"),
        ((("max", "6"),), MISSING_ATTRIBUTE, "min is missing; the specification requires it"),
    ],
)
def test_attribute_findings(data: tuple[tuple[str, str], ...], code: str, message: str) -> None:
    (finding,) = _findings(data)
    assert finding[0] == code and message in finding[1]


def test_a_reinterpreted_bound_carries_the_fix_that_says_what_runs() -> None:
    ((_, _, where),) = _findings((("min", "6x"), ("max", "6.5")))
    assert where.attribute == "min" and where.fix == "6"


def test_the_defaults_are_zero() -> None:
    assert read_attributes(Clamp1, ()).values == {"min": 0.0, "max": 0.0}


def _infer(attrs: dict[str, float], element: str = "f32") -> list[TensorInfo]:
    data = TensorInfo(element_type(element), Shape.of(2, 3))
    return Clamp1(attrs).infer([data], quiet_context())


@pytest.mark.parametrize(
    ("low", "high", "message"),
    [
        (6.5, 6.0, "Attribute 'min' must be less or equal than 'max'. Got: 6.5 and 6"),
        (NAN, 100.0, "Got: nan and 100"),
        (-100.0, NAN, "Got: -100 and nan"),
        (INF, 100.0, "Got: inf and 100"),
        (1e308, 100.0, "Got: 1e+308 and 100"),
        (1.7976931348623157e308, 100.0, "Got: 1.79769e+308 and 100"),
    ],
)
def test_min_above_max_or_nan_is_refused(low: float, high: float, message: str) -> None:
    with pytest.raises(ShapeError, match=re.escape(message)) as error:
        _infer({"min": low, "max": high})
    assert error.value.code == ATTRIBUTE_OUT_OF_RANGE and error.value.attribute == "min"


def test_equal_bounds_and_infinite_bounds_are_accepted() -> None:
    for low, high in [(6.0, 6.0), (-INF, INF), (-INF, -INF), (INF, INF), (-0.0, 0.0)]:
        (out,) = _infer({"min": low, "max": high})
        assert out.shape == Shape.of(2, 3)


def test_boolean_data_is_refused() -> None:
    with pytest.raises(ShapeError, match="does not support input with element type: boolean"):
        _infer({"min": 0.0, "max": 6.0}, "boolean")


def _clamp(values: list[int], dtype: Any, low: float, high: float) -> list[int]:
    (result,) = compute(Clamp1({"min": low, "max": high}), [np.array(values, dtype)])
    assert result is not None and result.dtype == np.dtype(dtype)
    return [int(v) for v in result]


# Floats: `t = x > min ? x : min; t < max ? t : max` in f32, bounds rounded to f32 (CPU).
FLOATS: list[tuple[Any, float, float, list[float], list[float]]] = [
    (np.float32, 0.1, 6.0, [NAN, -INF, INF, 0.2, 5.0], [0.1, 0.1, 6.0, 0.2, 5.0]),
    (np.float32, -INF, INF, [NAN, -0.0, 1e-45], [-INF, -0.0, 1e-45]),
    (np.float32, -0.0, 0.0, [-0.0, -INF, NAN, 5.0], [0.0, 0.0, 0.0, 0.0]),
    (np.float32, 0.0, INF, [-0.0, -3e38], [0.0, 0.0]),
    # no NaN (np.clip then +0 where a bound is 0; with a NaN, fmax and fmin)
    (np.float32, 0.0, 6.0, [-0.0, 0.0, -INF, INF, 7.0, 3.0], [0.0, 0.0, 0.0, 6.0, 6.0, 3.0]),
    (np.float32, -6.0, 0.0, [-0.0, 0.0, 5.0, -7.0, -INF], [0.0, 0.0, 0.0, -6.0, -6.0]),
    (np.float32, -1.0, 1.0, [-0.0, 0.5, -INF], [-0.0, 0.5, -1.0]),
    (np.float32, -1e300, -1e-300, [NAN, INF, 0.0, -3e38], [-INF, -0.0, -0.0, -3e38]),
    # a min of +0 or more: on the bits as int32, -0 and a NaN with its sign bit set give min;
    # a NaN with it clear takes fmax and fmin
    (np.float32, 0.0, 6.0, [-NAN, -0.0, 1e-45, -1e-45, 5.9999995, 6.0000005, -INF],
     [0.0, 0.0, 1e-45, 0.0, 5.9999995, 6.0, 0.0]),
    (np.float32, 0.5, INF, [-NAN, INF, -INF, 0.4999999, 0.5], [0.5, INF, 0.5, 0.5, 0.5]),
    (np.float32, 1e-45, 1e-45, [-NAN, 0.0, 7.0], [1e-45, 1e-45, 1e-45]),
    (np.float32, 0.0, 6.0, [NAN, -NAN, -0.0, 7.0], [0.0, 0.0, 0.0, 6.0]),
    (np.float16, 0.2, 1e5, [INF, NAN, 5.0], [INF, 0.2, 5.0]),
    (np.float64, 0.1, 6.0, [NAN, 0.2], [0.10000000149011612, 0.20000000298023224]),
    (np.float64, -INF, INF, [NAN, -INF, INF, 3e38],
     [-F32_MAX, -F32_MAX, F32_MAX, 3.0000000054977558e38]),
]  # fmt: skip


@pytest.mark.parametrize(("dtype", "low", "high", "values", "expected"), FLOATS)
def test_float_values_as_the_cpu_gives_them(
    dtype: Any, low: float, high: float, values: list[float], expected: list[float]
) -> None:
    (result,) = compute(Clamp1({"min": low, "max": high}), [np.array(values, dtype)])
    assert result is not None and result.dtype == np.dtype(dtype)
    wanted = np.array(expected, dtype)
    found = ~np.isnan(wanted)
    assert np.array_equal(np.isnan(result), ~found)
    assert result[found].tobytes() == wanted[found].tobytes()  # -0 is not +0


# Integers (measured): 8-bit types truncate the bounds, the others round min up and max down;
# bounds outside int32 as the CPU takes them; i64 computed on its low 32 bits.
INTEGERS: list[tuple[Any, float, float, list[int], list[int]]] = [
    (np.uint8, 0.5, 5.5, [0, 1, 7, 200, 255], [0, 1, 5, 5, 5]),
    (np.int8, 0.5, 5.5, [-128, -1, 0, 1, 6, 127], [0, 0, 0, 1, 5, 5]),
    (np.int8, -5.5, -0.5, [-128, -7, -1, 0, 7], [-5, -5, -1, 0, 0]),
    (np.int8, 200, 300, [-128, 0, 127], [127, 127, 127]),
    (np.int8, 126.5, 1000, [-128, 126, 127], [126, 126, 127]),
    (np.int8, INF, INF, [-128, 0, 127], [-128, 0, 127]),
    (np.int8, -INF, -INF, [-128, 0, 127], [-128, -128, -128]),
    (np.uint8, 300, 400, [0, 255], [255, 255]),
    (np.int16, 0.5, 5.5, [-300, 0, 1, 2, 6, 256], [1, 1, 1, 2, 5, 5]),
    (np.int16, -5.5, -0.5, [-300, -1, 0, 7], [-5, -1, -1, -1]),
    (np.uint16, -5.5, -0.5, [0, 7], [65535, 65535]),
    (np.int32, 0.5, 5.5, [-(2**31), -7, 0, 16777217, 2**31 - 1], [1, 1, 1, 5, 5]),
    (np.int32, 1.5, 1.7, [-7, 0, 7], [1, 1, 1]),
    (np.int32, 0.2, 0.7, [-7, 0, 7], [0, 0, 0]),
    (np.int32, 16777216.5, 16777218.5, [0, 16777217, 2**31 - 1], [16777216, 16777217, 16777218]),
    (np.int32, 5, 3e9, [-(2**31), 100, 2**31 - 1], [5, 100, 2**31 - 1]),
    (np.int32, 2147483647, 3e9, [-(2**31), 5, 2**31 - 1], [-(2**31), 5, 2**31 - 1]),
    (np.int32, 2147483520, 2147483647, [0, 2**31 - 2], [2147483520, 2**31 - 2]),
    (np.int32, 3e9, 4e9, [-(2**31), 0, 2**31 - 1], [-1294967296, 0, 2**31 - 1]),
    (np.int32, 5e9, 6e9, [0, 2**31 - 1], [705032704, 2**31 - 1]),
    (np.int32, -3e9, -5, [-(2**31), 0], [-(2**31), -5]),
    (np.int32, -1e10, -3e9, [0, 2**31 - 1], [-(2**31), -(2**31)]),
    (np.int32, INF, INF, [-(2**31), 0, 2**31 - 1], [-(2**31), 0, 2**31 - 1]),
    (np.int32, 2**32 + 7, 2**32 + 9, [-5, 5], [0, 5]),
    (np.int64, 0.5, 5.5, [-(2**31), 2**40 + 3, 7], [1, 3, 5]),
    (np.int64, 2**40, 2**41, [2**63 - 1, 5], [0, 5]),
    (np.uint32, 5, 3e9, [0, 4294967294], [5, 5]),
    (np.uint64, -5.5, -0.5, [0, 7], [2**64 - 1, 2**64 - 1]),
    (np.uint64, -300.7, 300.7, [2147483647, 7], [300, 7]),
]


@pytest.mark.parametrize(("dtype", "low", "high", "values", "expected"), INTEGERS)
def test_integer_values_as_the_cpu_gives_them(
    dtype: Any, low: float, high: float, values: list[int], expected: list[int]
) -> None:
    assert _clamp(values, dtype, low, high) == expected


# OpenVINO's reference clamp, which constant folding runs (measured on i32 Consts): min rounded
# up and max down whatever the type, then x < min ? min : x > max ? max : x; NaN stays NaN.
@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [(0.5, 5.5, [1, 1, 1, 5, 5]), (-0.5, 5.5, [0, 0, 1, 5, 5]), (1.5, 1.7, [2, 2, 2, 1, 1]),
     (0.2, 0.7, [1, 1, 0, 0, 0])],
)  # fmt: skip
def test_integer_constants_fold_as_the_reference(
    low: float, high: float, expected: list[int]
) -> None:
    values = np.array([-7, 0, 1, 7, 2**31 - 1], np.int32)
    folded = Clamp1({"min": low, "max": high}).fold_constant([values])
    assert folded is not None and folded.tolist() == expected


def test_a_nan_constant_stays_nan_when_folded() -> None:
    values = np.array([NAN, -INF, 7.0, 0.05], np.float32)
    folded = Clamp1({"min": 0.1, "max": 6.0}).fold_constant([values])
    assert folded is not None and folded.dtype == np.float32
    assert np.isnan(folded[0]) and folded[1:].tolist() == [np.float32(0.1), 6.0, np.float32(0.1)]


CASES = [case for case in json.loads((GOLDEN / "index.json").read_text())["cases"]
         if case["op"] == "Clamp-1"]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_golden_vectors_bit_for_bit(case: dict[str, Any]) -> None:
    with np.load(GOLDEN / f"{case['name']}.npz") as arrays:
        (result,) = compute(Clamp1(case["attributes"]), [arrays["input0"]])
        assert result is not None and result.tobytes() == arrays["output0"].tobytes()


def test_fix_writes_what_runs(runner: CliRunner, tmp_path: Path) -> None:
    """`--fix` rewrites a bound OpenVINO reads by its prefix to the number it reads; the file
    is then clean, and runs as before."""
    fixture = Path(__file__).resolve().parents[1] / "rules" / "IR205_clamp_min_hexadecimal.xml"
    model = tmp_path / "clamp.xml"
    model.write_text(fixture.read_text().replace('min="0x1"', 'min="0x1p2"'))
    result = runner.invoke(cli, ["validate", "--isolated", "--fix", str(model)])
    assert result.exit_code == 0, result.output
    assert '<data min="0" max="6" />' in model.read_text()
    assert irpool.load(model).validate() == []


def test_hover_names_the_type_and_what_an_absent_max_does() -> None:
    from irpool.lsp.analysis import _attribute_doc

    attr = {a.name: a for a in Clamp1.attributes}["max"]
    assert _attribute_doc("Clamp-1", 1, attr, "max", ()) == (
        "`max` of Clamp-1: 64-bit floating-point number; required by the specification "
        '(default "0": every value is clamped into [min, 0])'
    )
