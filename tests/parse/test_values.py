"""Attribute and dim text read as OpenVINO 2026.4 reads it (each row checked on the runtime)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from irpool.parse.floats import read_float32, read_float32_list
from irpool.parse.values import (
    read_bool,
    read_dim,
    read_element_type,
    read_enum,
    read_int,
    read_integer_list,
    read_partial_shape,
    read_precision,
    read_tensor_names,
    read_unsigned,
)

WRAP = 1 << 64
INT64_MAX = (1 << 63) - 1


@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        ("2,2", (2, 2), None),
        ("2, 2", (2, 2), None),
        (" 2 ,2 ", (2, 2), None),
        ("2\t,2", (2, 2), None),
        ("02,2", (2, 2), None),
        ("", (), None),
        ("2,2,", (2, 2), "noncanonical"),
        ("3x,3", (3, 3), "reinterpreted"),
        ("2.7,2", (2, 2), "reinterpreted"),
        ("2e1,2", (2, 2), "reinterpreted"),
        ("0x2,2", (0, 2), "reinterpreted"),
        ("2;2", (2,), "reinterpreted"),
        ("2 2", (2,), "reinterpreted"),
        ("-1,2", (WRAP - 1, 2), "reinterpreted"),
        ("2,,2", None, "rejected"),
        ("2,2,,", None, "rejected"),
        (",2,2", None, "rejected"),
        ("2, ", None, "rejected"),
        ("a,2", None, "rejected"),
        ("+2,2", None, "rejected"),
        # the same number spelled otherwise is noise; a different number is not
        ("2.0,2", (2, 2), "noncanonical"),
        ("2.00, 2e0", (2, 2), "noncanonical"),
        ("2.,2.0e0", (2, 2), "noncanonical"),
        ("2.0,", (2,), "noncanonical"),
        ("2.0x,2", (2, 2), "reinterpreted"),
        ("-2.0,2", (WRAP - 2, 2), "reinterpreted"),
        # only ASCII digits and blanks: OpenVINO refuses other scripts'
        ("2, \uff12", None, "rejected"),
        ("\u0662, 2", None, "rejected"),
        ("\u00a02", None, "rejected"),
        ("2,\u3000", None, "rejected"),
    ],
)
def test_uint_list(text: str, value: tuple[int, ...] | None, kind: str | None) -> None:
    reading = read_integer_list(text)
    assert reading.value == value
    assert (reading.finding.kind if reading.finding else None) == kind


@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [("-1", (-1,), None), ("-1,200", (-1, 200), None), ("", (), None), ("a", None, "rejected")],
)
def test_signed_list_keeps_the_minus(
    text: str, value: tuple[int, ...] | None, kind: str | None
) -> None:
    """DetectionOutput's keep_top_k: a std::vector<int>, -1 as written."""
    reading = read_integer_list(text, signed=True)
    assert reading.value == value
    assert (reading.finding.kind if reading.finding else None) == kind


@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        ("true", True, None),
        ("false", False, None),
        ("1", True, None),
        ("0", False, None),
        ("True", True, "noncanonical"),
        ("FALSE", False, "noncanonical"),
        ("yes", None, "reinterpreted"),
        ("", None, "reinterpreted"),
    ],
)
def test_bool(text: str, value: bool | None, kind: str | None) -> None:
    reading = read_bool(text)
    assert reading.value == value
    assert (reading.finding.kind if reading.finding else None) == kind


@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        ("same_upper", "same_upper", None),
        ("SAME_UPPER", "same_upper", "noncanonical"),
        ("Ceil_Torch", "ceil_torch", "noncanonical"),
        ("notset", None, "rejected"),
        ("", None, "rejected"),
    ],
)
def test_enum(text: str, value: str | None, kind: str | None) -> None:
    choices = ("explicit", "same_upper", "same_lower", "valid", "floor", "ceil", "ceil_torch")
    reading = read_enum(text, choices)
    assert reading.value == value
    assert (reading.finding.kind if reading.finding else None) == kind


@pytest.mark.parametrize(
    ("text", "shape", "kind"),
    [
        ("1,3,32,32", "[1,3,32,32]", None),
        (" 1 , 3 ", "[1,3]", None),
        ("[1,3]", "[1,3]", None),
        ("[ 1,3 ]", "[1,3]", None),
        ("01,3", "[1,3]", None),
        ("-1,3", "[?,3]", None),
        ("?,3", "[?,3]", None),
        ("1, ?", "[1,?]", None),
        ("1..10", "[1..10]", None),
        ("..5", "[..5]", None),
        ("5..", "[5..]", None),
        ("0..5", "[..5]", None),
        ("-1..5", "[..5]", None),
        ("2..2", "[2]", None),
        ("...", "[...]", None),
        ("[...]", "[...]", None),
        ("", "[]", None),
        ("[]", "[]", None),
        ("10..5", "[?]", "reinterpreted"),
        ("1..-1", "[?]", "reinterpreted"),
        ("-2", "[0]", "reinterpreted"),
        ("-3", "[0]", "reinterpreted"),
        ("9999999999999999999", "[0]", "reinterpreted"),
        ("1x,3", None, "rejected"),
        ("1.5,3", None, "rejected"),
        ("+1,3", None, "rejected"),
        ("1 2", None, "rejected"),
        ("1,,3", None, "rejected"),
        ("1,3,", None, "rejected"),
        ("a", None, "rejected"),
        ("1..?", None, "rejected"),
        ("[1,3", None, "rejected"),
        ("1 ..5", None, "rejected"),
        ("1e3", None, "rejected"),
        ("1.0,3", None, "rejected"),
        ("1,1,4\t", "[1,1,4]", None),
        ("1,1,4,\uff14", None, "rejected"),
        ("1,1,\u0664", None, "rejected"),
        ("1,1,\u30004", None, "rejected"),
        ("1,1,4\u3000", None, "rejected"),
        ("[1,1]\u00a0", None, "rejected"),
    ],
)
def test_partial_shape(text: str, shape: str | None, kind: str | None) -> None:
    reading = read_partial_shape(text)
    assert (str(reading.value) if reading.value is not None else None) == shape
    assert (reading.finding.kind if reading.finding else None) == kind


@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        ("16", 16, None),
        ("-1", -1, None),
        ("0", 0, None),
        (" 1 ", 1, "noncanonical"),
        ("+3", 3, "noncanonical"),
        ("03", 3, "noncanonical"),
        ("1.5", 1, "reinterpreted"),
        ("1..10", 1, "reinterpreted"),
        ("4.0", 4, "noncanonical"),
        ("4.", 4, "noncanonical"),
        ("4.00", 4, "noncanonical"),
        ("4e0", 4, "noncanonical"),
        ("4.0e0", 4, "noncanonical"),
        ("-1.0", -1, "noncanonical"),
        ("4e1", 4, "reinterpreted"),
        ("4.7", 4, "reinterpreted"),
        ("4.0x", 4, "reinterpreted"),
        ("4x", 4, "reinterpreted"),
        ("\uff14", None, "rejected"),
        ("\u0664", None, "rejected"),
        ("\u00a04", None, "rejected"),
        ("?", None, "rejected"),
        ("abc", None, "rejected"),
        ("", None, "rejected"),
        ("-2", None, "rejected"),
    ],
)
def test_dim(text: str, value: int | None, kind: str | None) -> None:
    reading = read_dim(text)
    assert reading.value == value
    assert (reading.finding.kind if reading.finding else None) == kind


@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        ("f32", "f32", None),
        ("F32", "f32", "noncanonical"),
        ("BF16", "bf16", "noncanonical"),
        ("undefined", "dynamic", "noncanonical"),
        ("FP32", None, "rejected"),
        ("float32", None, "rejected"),
        ("BOOL", None, "rejected"),
        ("", None, "rejected"),
    ],
)
def test_element_type(text: str, value: str | None, kind: str | None) -> None:
    reading = read_element_type(text)
    assert reading.value == value
    assert (reading.finding.kind if reading.finding else None) == kind


@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        ("FP32", "f32", None),
        ("I64", "i64", None),
        ("BIN", "u1", None),
        ("UNSPECIFIED", "dynamic", None),
        ("f32", "f32", None),
        ("boolean", "boolean", None),
        ("undefined", "dynamic", None),
        ("fp16", None, "rejected"),
        ("F32", None, "rejected"),
        ("DYNAMIC", None, "rejected"),
        ("bool", None, "rejected"),
        ("FOO", None, "rejected"),
        ("", None, "rejected"),
    ],
)
def test_precision(text: str, value: str | None, kind: str | None) -> None:
    reading = read_precision(text)
    assert reading.value == value
    assert (reading.finding.kind if reading.finding else None) == kind


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("11", 11),
        (" 11", 11),
        ("+1", 1),
        ("01", 1),
        ("11 ", None),
        ("11.0", None),
        ("-1", None),
        ("\uff11", None),
        ("1\u0661", None),
        ("\u30001", None),
    ],
)
def test_unsigned(text: str, value: int | None) -> None:
    assert read_unsigned(text) == value


# The ways to write a number n that OpenVINO reads as n and that still mean n.
SAME_NUMBER = st.sampled_from(["{}", " {}", "0{}", "{}.0", "{}.", "{}.000", "{}e0", "{}.0E+0"])
NON_ASCII_DIGITS = st.characters(categories=["Nd"]).filter(lambda c: not c.isascii())


@given(st.integers(0, INT64_MAX), SAME_NUMBER)
def test_same_number_spelled_otherwise_is_only_noncanonical(value: int, spelling: str) -> None:
    text = spelling.format(value)
    for reading in (read_dim(text), read_integer_list(f"{text},1")):
        assert reading.finding is None or reading.finding.kind == "noncanonical", text
    assert read_dim(text).value == value


@given(st.integers(0, 10**6), NON_ASCII_DIGITS, st.integers(0, 6))
def test_a_non_ascii_digit_is_never_read(value: int, digit: str, where: int) -> None:
    digits = str(value)
    text = digits[:where] + digit + digits[where:]
    assert read_unsigned(text) is None
    assert read_partial_shape(text).value is None
    if where == 0:  # nothing before it: OpenVINO finds no number at all
        assert read_dim(text).value is None
        assert read_integer_list(text).value is None


# MaxPool-8's `axis`, read by OpenVINO 2026.4 (measured: "+1", "", "x" and 20 digits refused).
@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        ("0", 0, None),
        ("-1", -1, None),
        (" 1", 1, None),
        ("-0", 0, None),
        ("2e0", 2, "noncanonical"),
        ("1.5", 1, "reinterpreted"),
        ("1x", 1, "reinterpreted"),
        ("+1", None, "rejected"),
        ("", None, "rejected"),
        ("x", None, "rejected"),
        ("99999999999999999999", None, "rejected"),
        ("\uff11", None, "rejected"),
    ],
)
def test_int(text: str, value: int | None, kind: str | None) -> None:
    reading = read_int(text)
    assert reading.value == value
    assert (reading.finding.kind if reading.finding else None) == kind


# MVN-6 `eps` texts and what read_model made of them (measured, docs/ops/MVN.md);
# None: refused ("Cannot parse ... to number"); the kind of finding irpool reports
@pytest.mark.parametrize(
    ("text", "value", "finding"),
    [
        ("9.9999997473787516e-06", 9.999999747378752e-06, None),  # as the serializer writes
        ("1e-5", 9.999999747378752e-06, None),  # held as the op's f32
        (" 1e-5", 9.999999747378752e-06, None),  # blanks skipped, as for Clamp's f64
        ("+2", 2.0, None),
        ("1e-5x", 9.999999747378752e-06, "reinterpreted"),
        ("1,5", 1.0, "reinterpreted"),
        ("0x10", 0.0, "reinterpreted"),  # no hex
        (".5", 0.5, None),
        ("5.", 5.0, None),
        ("-1", -1.0, None),
        ("1e-50", 0.0, None),  # f32 underflow
        ("1e39", float("inf"), None),  # f32 overflow
        ("inf", float("inf"), None),
        ("x", None, "rejected"),
        ("", None, "rejected"),
        ("1e999", None, "rejected"),  # a double's overflow
        ("٣", None, "rejected"),
    ],
)
def test_float32_as_openvino_reads_it(text: str, value: float | None, finding: str | None) -> None:
    reading = read_float32(text)
    assert reading.value == value
    assert (reading.finding.kind if reading.finding else None) == finding


def test_float32_nan() -> None:
    reading = read_float32("nan")
    assert reading.value is not None and reading.value != reading.value and not reading.finding


@pytest.mark.parametrize(
    ("text", "values", "finding"),
    [  # PriorBoxClustered's width, height and variance: each item a float32
        ("", (), None),
        ("2, 6.5", (2.0, 6.5), None),
        ("0.1", (0.10000000149011612,), None),
        ("2,x", None, "rejected"),
        ("2x,3", (2.0, 3.0), "reinterpreted"),
    ],
)
def test_float32_lists(text: str, values: tuple[float, ...] | None, finding: str | None) -> None:
    reading = read_float32_list(text)
    assert reading.value == values
    assert (reading.finding.kind if reading.finding else None) == finding


@given(st.text(alphabet=",\\ ab\u00e9", max_size=12))
def test_tensor_names_without_a_comma_read_as_with_the_full_split(text: str) -> None:
    """read_tensor_names takes a short cut for a value without a comma; it must read every
    value as the split at unescaped commas does."""
    split = re.split(r"(?<!\\),", text)
    expected = tuple(dict.fromkeys(name.replace("\\,", ",") for name in split if name))
    assert read_tensor_names(text) == expected
