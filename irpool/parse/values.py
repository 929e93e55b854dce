"""Attribute and dim text read exactly as OpenVINO 2026.4 reads it.

Each reader returns what the runtime would use and, when the text does not say exactly that,
a `Finding`: `rejected` (the runtime refuses the file), `reinterpreted` (it silently uses a
different value) or `noncanonical` (accepted as written, but spelled unlike OpenVINO's writer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from irpool.graph.shape import Dim, Shape

T = TypeVar("T")
FindingKind = Literal["rejected", "reinterpreted", "noncanonical"]

UINT64_WRAP = 1 << 64
INT64_MAX = (1 << 63) - 1


@dataclass(frozen=True, slots=True)
class Finding:
    kind: FindingKind
    message: str


@dataclass(frozen=True, slots=True)
class Reading(Generic[T]):
    """`value` is what OpenVINO uses (None when it rejects the text)."""

    value: T | None
    finding: Finding | None = None


def _rejected(message: str) -> Reading[T]:
    return Reading(None, Finding("rejected", message))


_UNSIGNED = re.compile(r"\s*\+?(\d+)\Z")


def read_unsigned(text: str) -> int | None:
    """A whole-text unsigned integer (layer ids, IR version, Const offset/size)."""
    match = _UNSIGNED.match(text)
    return int(match.group(1)) if match else None


_LIST_ITEM = re.compile(r"\s*(-?\d+)(.*)\Z", re.S)


def read_uint_list(text: str) -> Reading[tuple[int, ...]]:
    """A comma-separated list of unsigned integers (kernel, strides, pads_*, dilations).

    Each item is read like strtoull: leading blanks skipped, a leading minus wraps around
    2**64, anything after the digits is ignored. One trailing comma is tolerated.
    """
    if text == "":
        return Reading(())
    items = text.split(",")
    trailing_comma = len(items) > 1 and items[-1] == ""
    if trailing_comma:
        items.pop()
    values: list[int] = []
    problems: list[str] = []
    for item in items:
        match = _LIST_ITEM.match(item)
        if match is None:
            if item.strip() == "":
                return _rejected(f'"{text}" has an empty item; OpenVINO cannot parse it')
            return _rejected(f'cannot parse "{item.strip()}" in "{text}" as an unsigned integer')
        number, rest = int(match.group(1)), match.group(2)
        if number < 0:
            values.append(number + UINT64_WRAP)
            problems.append(f"{number} wraps around to {number + UINT64_WRAP}")
        elif number >= UINT64_WRAP:
            return _rejected(f'"{match.group(1)}" in "{text}" does not fit in 64 bits')
        else:
            values.append(number)
        if rest.strip():
            problems.append(f'"{item.strip()}" is read as {match.group(1)}')
    parsed = tuple(values)
    if problems:
        return Reading(parsed, Finding("reinterpreted", "; ".join(problems)))
    if trailing_comma:
        return Reading(parsed, Finding("noncanonical", f'"{text}" ends with a comma'))
    return Reading(parsed)


_TRUE, _FALSE = ("true", "1"), ("false", "0")


def read_bool(text: str) -> Reading[bool]:
    """`true`/`1`/`false`/`0`, case-insensitive; anything else is ignored by OpenVINO."""
    lowered = text.lower()
    if lowered in _TRUE or lowered in _FALSE:
        value = lowered in _TRUE
        if text not in _TRUE + _FALSE:
            return Reading(value, Finding("noncanonical", f'"{text}" is written "{lowered}"'))
        return Reading(value)
    return Reading(None, Finding("reinterpreted", f'"{text}" is not true/false/1/0'))


def read_enum(text: str, choices: tuple[str, ...]) -> Reading[str]:
    """A case-insensitive enum, as OpenVINO matches `auto_pad` and `rounding_type`."""
    lowered = text.lower()
    if lowered in choices:
        if text != lowered:
            return Reading(lowered, Finding("noncanonical", f'"{text}" is written "{lowered}"'))
        return Reading(lowered)
    allowed = ", ".join(choices)
    return _rejected(f'"{text}" is not one of {allowed}')


ELEMENT_TYPES: dict[str, int] = {
    # name -> bits per element
    "f32": 32, "f16": 16, "bf16": 16, "f64": 64, "i4": 4, "i8": 8, "i16": 16, "i32": 32,
    "i64": 64, "u1": 1, "u4": 4, "u8": 8, "u16": 16, "u32": 32, "u64": 64, "boolean": 8,
    "dynamic": 0,
}  # fmt: skip
_ELEMENT_ALIASES = {"undefined": "dynamic"}


def read_element_type(text: str) -> Reading[str]:
    """`element_type` of Parameter and Const: short names, case-insensitive."""
    lowered = text.lower()
    if lowered in ELEMENT_TYPES and text == lowered:
        return Reading(lowered)
    canonical = _ELEMENT_ALIASES.get(lowered, lowered)
    if canonical in ELEMENT_TYPES:
        return Reading(canonical, Finding("noncanonical", f'"{text}" is written "{canonical}"'))
    hint = _precision_hint(text)
    return _rejected(f'"{text}" is not an element type{hint}')


PRECISIONS: dict[str, str] = {
    "FP32": "f32", "FP16": "f16", "BF16": "bf16", "FP64": "f64", "I4": "i4", "I8": "i8",
    "I16": "i16", "I32": "i32", "I64": "i64", "U1": "u1", "BIN": "u1", "U4": "u4", "U8": "u8",
    "U16": "u16", "U32": "u32", "U64": "u64", "BOOL": "boolean", "UNSPECIFIED": "dynamic",
    "STRING": "string",
}  # fmt: skip


def read_precision(text: str) -> Reading[str]:
    """A port `precision`: exactly the serializer's names (FP32) or element type names (f32)."""
    if text in PRECISIONS:
        return Reading(PRECISIONS[text])
    if text in ELEMENT_TYPES or text in _ELEMENT_ALIASES or text == "string":
        return Reading(_ELEMENT_ALIASES.get(text, text))
    return _rejected(f'"{text}" is not a precision (FP32, FP16, I64, ..., or f32, f16, i64, ...)')


def precision_name(element_type: str) -> str:
    """The precision OpenVINO's serializer writes for an element type."""
    for name, element in PRECISIONS.items():
        if element == element_type and name != "BIN":
            return name
    return element_type.upper()


def _precision_hint(text: str) -> str:
    element = PRECISIONS.get(text.upper())
    return f' (the port precision "{text}" is written "{element}" here)' if element else ""


_DIM = re.compile(r"(\s*)([+-]?\d+)(.*)\Z", re.S)


def read_dim(text: str) -> Reading[int]:
    """A port `<dim>`: a signed integer read from the start of the text, at least -1."""
    match = _DIM.match(text)
    if match is None:
        return _rejected(f'"{text}" is not an integer; a <dim> is a number, or -1 for dynamic')
    value = int(match.group(2))
    if value < -1:
        return _rejected(f"{value} is below -1")
    if value > INT64_MAX:
        return _rejected(f"{match.group(2)} does not fit in 64 bits")
    rest = match.group(3)
    if rest.strip():
        return Reading(value, Finding("reinterpreted", f'"{text.strip()}" is read as {value}'))
    if match.group(1) or rest or match.group(2) != str(value):
        return Reading(value, Finding("noncanonical", f'"{text}" is written "{value}"'))
    return Reading(value)


_SHAPE_DIM = re.compile(r"(-?\d+)?(\.\.)?(-?\d+)?\Z")


def read_partial_shape(text: str) -> Reading[Shape]:
    """A Parameter `shape`: `1,3,?,1..10`, `[...]`, `""` (scalar), `-1` and `..b` / `a..`."""
    body = text.strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1].strip()
    if body == "...":
        return Reading(Shape.dynamic())
    if body == "":
        return Reading(Shape(()))
    dims: list[Dim] = []
    problems: list[str] = []
    for item in (piece.strip() for piece in body.split(",")):
        if item == "?":
            dims.append(Dim.dynamic())
            continue
        match = _SHAPE_DIM.match(item)
        if item == "" or match is None or (match.group(1) is None and match.group(3) is None):
            return _rejected(f'"{text}" is not a shape: cannot read "{item}" as a dimension')
        dim, problem = _shape_dim(item, match)
        dims.append(dim)
        if problem:
            problems.append(problem)
    shape = Shape(tuple(dims))
    if problems:
        return Reading(shape, Finding("reinterpreted", "; ".join(problems)))
    return Reading(shape)


def _shape_dim(item: str, match: re.Match[str]) -> tuple[Dim, str | None]:
    low_text, dots, high_text = match.groups()
    if dots is None:
        value = int(low_text)
        if value == -1:
            return Dim.dynamic(), None
        if value < -1 or value > INT64_MAX:
            return Dim.static(0), f'"{item}" is read as 0'
        return Dim.static(value), None
    low = int(low_text) if low_text is not None else 0
    high = int(high_text) if high_text is not None else None
    if (low < -1 or low > INT64_MAX) or (high is not None and (high < -1 or high > INT64_MAX)):
        return Dim.dynamic(), f'"{item}" is read as ?'
    if high == -1:  # `..-1` is `?`; `a..-1` is read as `?` too, dropping the lower bound
        return Dim.dynamic(), (None if low_text is None else f'"{item}" is read as ?')
    low = max(low, 0)
    if high is not None and high < low:
        return Dim.dynamic(), f'"{item}" is an empty interval, read as ?'
    return Dim(low, high), None
