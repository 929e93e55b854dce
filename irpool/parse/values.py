"""Attribute and dim text read exactly as OpenVINO 2026.4 reads it.

Numbers are read with ASCII rules only, as the runtime's C++ parsers do: Python's `int()`,
`str.isdigit()` and the regex digit and blank classes also accept other scripts' digits and
blanks (`２`, `٢`), which OpenVINO refuses. Every pattern here is compiled with `re.ASCII`.

Each reader returns what the runtime would use and, when the text does not say exactly that,
a `Finding`: `rejected` (the runtime refuses the file), `reinterpreted` (it silently uses a
different value) or `noncanonical` (accepted as written, but spelled unlike OpenVINO's writer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Generic, Literal, TypeVar

from irpool.element_types import DYNAMIC, ELEMENT_TYPES, PRECISIONS
from irpool.shape import Dim, Shape

T = TypeVar("T")
FindingKind = Literal["rejected", "reinterpreted", "noncanonical"]

ASCII_BLANKS = " \t\n\r\f\v"  # what C's isspace() skips; str.strip() also takes U+3000
UINT64_WRAP = 1 << 64
INT64_MAX = (1 << 63) - 1
INT64_MIN = -(1 << 63)


@dataclass(frozen=True, slots=True)
class Finding:
    kind: FindingKind
    message: str
    # The text to write instead, when it certainly says what the runtime uses.
    fix: str | None = None


@dataclass(frozen=True, slots=True)
class Reading(Generic[T]):
    """`value` is what OpenVINO uses (None when it rejects the text)."""

    value: T | None
    finding: Finding | None = None


def rejected(message: str) -> Reading[T]:
    return Reading(None, Finding("rejected", message))


_UNESCAPED_COMMA = re.compile(r"(?<!\\),")


def read_tensor_names(text: str) -> tuple[str, ...]:
    """A port's `names`: split at commas not escaped as "\\,", which become commas. Empty
    names are dropped and blanks kept, as OpenVINO reads them (it does not strip)."""
    if "," not in text:  # most values: one name (a model's every port is read)
        return (text,) if text else ()
    return tuple(dict.fromkeys(n.replace("\\,", ",") for n in _UNESCAPED_COMMA.split(text) if n))


SHOWN_CHARS = 60  # longer texts are cut in messages: a hostile value can be a megabyte


def show(text: str) -> str:
    """`text` quoted for a message, cut short when it is long."""
    if len(text) <= SHOWN_CHARS:
        return f'"{text}"'
    return f'"{text[:SHOWN_CHARS]}..." ({len(text)} characters)'


def ascii_digits_hint(text: str) -> str:
    """A hint for a number written with another script's digits, which only Python reads."""
    if any(char.isdigit() and not char.isascii() for char in text):
        return "; OpenVINO reads only the ASCII digits 0-9"
    return ""


# Every 64-bit number has at most 20 digits. Longer digit strings are out of range whatever
# they say, and are never converted: that costs time quadratic in their length, and Python
# refuses more than 4,300 digits.
_MAX_DIGITS = 20
_OUT_OF_RANGE: int = 10**_MAX_DIGITS


def _integer(digits: str) -> int:
    """A signed digit string as an int, or +-10**20 (beyond any 64-bit value) when longer."""
    negative = digits.startswith("-")
    significant = digits.lstrip("+-").lstrip("0")
    if len(significant) > _MAX_DIGITS:
        return -_OUT_OF_RANGE if negative else _OUT_OF_RANGE
    value = int(significant or "0")
    return -value if negative else value


_UNSIGNED = re.compile(r"\s*\+?(\d+)\Z", re.ASCII)


def read_unsigned(text: str) -> int | None:
    """A whole-text unsigned integer (layer ids, IR version, Const offset/size). OpenVINO reads
    them as signed 64-bit integers (stoll), so 2**63 and above are refused."""
    if text.isascii() and text.isdigit() and len(text) < _MAX_DIGITS:
        value = int(text)  # the common case, without a regex
    else:
        match = _UNSIGNED.match(text)
        if match is None:
            return None
        value = _integer(match.group(1))
    return value if value <= INT64_MAX else None


# A decimal number as a person writes it, with a bounded exponent (4.0, 4., 4e0, +4.00).
_DECIMAL = re.compile(r"[+-]?\d+(\.\d*)?([eE][+-]?\d{1,3})?\Z", re.ASCII)


def _same_number(text: str, value: int) -> bool:
    """Whether `text`, which OpenVINO reads as `value` by ignoring what follows the digits,
    still means `value` (`4.0`, `4e0`), so the difference is spelling, not a new number."""
    body = text.strip()
    return _DECIMAL.match(body) is not None and Decimal(body) == value


def trailing_blank(text: str) -> str | None:
    """Why OpenVINO refuses an id (of a layer, port or edge end) that ends with a blank, or
    None. XML Schema collapses blanks before it checks a number, so only irpool sees these."""
    number = text.rstrip(ASCII_BLANKS)
    if number == text or read_unsigned(number) is None:
        return None
    return f"{show(text)} ends with a blank; OpenVINO refuses it as not an unsigned integer"


_LIST_ITEM = re.compile(r"\s*(-?\d+)(.*)\Z", re.S | re.ASCII)


def read_int(text: str) -> Reading[int]:
    """A signed integer (MaxPool's `axis`), read as OpenVINO reads it: a signed 64-bit number
    from the leading digits, anything after them ignored ("1.5" is 1)."""
    match = _LIST_ITEM.match(text)
    if match is None:
        return rejected(f"cannot parse {show(text)} as an integer" + ascii_digits_hint(text))
    number, rest = _integer(match.group(1)), match.group(2)
    if not INT64_MIN <= number <= INT64_MAX:
        return rejected(f"{show(text)} does not fit in a signed 64-bit integer")
    if rest.strip():
        if _same_number(text, number):
            return Reading(number, Finding("noncanonical", f'{show(text)} is written "{number}"'))
        return Reading(number, Finding("reinterpreted", f"{show(text)} is read as {number}"))
    return Reading(number)


def read_integer_list(text: str, signed: bool = False) -> Reading[tuple[int, ...]]:
    """A comma-separated list of integers: unsigned (kernel, strides, pads_*, dilations), or
    with `signed` signed (DetectionOutput's keep_top_k).

    Each item is read as a signed 64-bit integer (leading blanks skipped, anything after the
    digits ignored, out of range refused) and then, unless `signed`, taken as unsigned, so a
    minus wraps around 2**64. One trailing comma is tolerated.
    """
    kind = "an integer" if signed else "an unsigned integer"
    if text == "":
        return Reading(())
    items = text.split(",")
    trailing_comma = len(items) > 1 and items[-1] == ""
    if trailing_comma:
        items.pop()
    values: list[int] = []
    problems: list[str] = []
    spellings: list[str] = []
    for item in items:
        match = _LIST_ITEM.match(item)
        if match is None:
            if item.strip() == "":
                return rejected(f"{show(text)} has an empty item; OpenVINO cannot parse it")
            return rejected(
                f"cannot parse {show(item.strip())} in {show(text)} as {kind}"
                + ascii_digits_hint(item)
            )
        number, rest = _integer(match.group(1)), match.group(2)
        if not INT64_MIN <= number <= INT64_MAX:
            return rejected(
                f"{show(match.group(1))} in {show(text)} does not fit in a signed 64-bit "
                "integer, which OpenVINO reads first"
            )
        if number < 0 and not signed:
            values.append(number + UINT64_WRAP)
            problems.append(f"{number} wraps around to {number + UINT64_WRAP}")
        else:
            values.append(number)
        if rest.strip():
            spelled = show(item.strip())
            if _same_number(item, number):
                spellings.append(f'{spelled} is written "{number}"')
            else:
                problems.append(f"{spelled} is read as {number}")
    parsed = tuple(values)
    if problems:
        return Reading(parsed, Finding("reinterpreted", "; ".join(problems)))
    if trailing_comma:
        spellings.append(f"{show(text)} ends with a comma")
    if spellings:
        return Reading(parsed, Finding("noncanonical", "; ".join(spellings)))
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
    return Reading(None, Finding("reinterpreted", f"{show(text)} is not true/false/1/0"))


def read_enum(text: str, choices: tuple[str, ...]) -> Reading[str]:
    """A case-insensitive enum, as OpenVINO matches `auto_pad`, `rounding_type` and Gelu's
    `approximation_mode`; the canonical spelling is the choice's, as the serializer writes it
    ("explicit", "ERF")."""
    lowered = text.lower()
    for choice in choices:
        if choice.lower() == lowered:
            if text != choice:
                return Reading(choice, Finding("noncanonical", f'"{text}" is written "{choice}"'))
            return Reading(choice)
    allowed = ", ".join(choices)
    return rejected(f"{show(text)} is not one of {allowed}")


_ELEMENT_ALIASES = {"undefined": DYNAMIC}


def read_element_type(text: str) -> Reading[str]:
    """`element_type` of Parameter and Const: short names, case-insensitive."""
    lowered = text.lower()
    if lowered in ELEMENT_TYPES and text == lowered:
        return Reading(lowered)
    canonical = _ELEMENT_ALIASES.get(lowered, lowered)
    if canonical in ELEMENT_TYPES:
        return Reading(canonical, Finding("noncanonical", f'"{text}" is written "{canonical}"'))
    hint = _precision_hint(text)
    return rejected(f"{show(text)} is not an element type{hint}")


def read_precision(text: str) -> Reading[str]:
    """A port `precision`: exactly the serializer's names (FP32) or element type names (f32)."""
    known = _PRECISION_READINGS.get(text)
    if known is not None:
        return known
    return rejected(
        f"{show(text)} is not a precision (FP32, FP16, I64, ..., or f32, f16, i64, ...)"
    )


# Every port has a precision: the valid ones are read once, here.
_PRECISION_READINGS: dict[str, Reading[str]] = {
    **{name: Reading(_ELEMENT_ALIASES.get(name, name)) for name in ELEMENT_TYPES},
    **{alias: Reading(element) for alias, element in _ELEMENT_ALIASES.items()},
    **{name: Reading(element) for name, element in PRECISIONS.items()},
}


def precision_name(element_type: str) -> str:
    """The precision OpenVINO's serializer writes for an element type."""
    for name, element in PRECISIONS.items():
        if element == element_type and name != "BIN":
            return name
    return element_type.upper()


def _precision_hint(text: str) -> str:
    element = PRECISIONS.get(text.upper())
    return f' (the port precision "{text}" is written "{element}" here)' if element else ""


_DIM = re.compile(r"(\s*)([+-]?\d+)(.*)\Z", re.S | re.ASCII)


def read_dim(text: str) -> Reading[int]:
    """A port `<dim>`: a signed integer read from the start of the text, at least -1."""
    if text.isascii() and text.isdigit() and (text[0] != "0" or text == "0") and len(text) < 19:
        return Reading(int(text))  # the common case, canonical, without a regex
    match = _DIM.match(text)
    if match is None:
        return rejected(
            f"{show(text)} is not an integer; a <dim> is a number, or -1 for dynamic"
            + ascii_digits_hint(text)
        )
    value = _integer(match.group(2))
    if value < -1:
        return rejected(f"{show(match.group(2))} is below -1")
    if value > INT64_MAX:
        return rejected(f"{show(match.group(2))} does not fit in 64 bits")
    rest = match.group(3)
    if rest.strip() and not _same_number(text, value):
        return Reading(value, Finding("reinterpreted", f"{show(text.strip())} is read as {value}"))
    if match.group(1) or rest or match.group(2) != str(value):
        return Reading(value, Finding("noncanonical", f'{show(text)} is written "{value}"'))
    return Reading(value)


_SHAPE_DIM = re.compile(r"(-?\d+)?(\.\.)?(-?\d+)?\Z", re.ASCII)


def read_partial_shape(text: str) -> Reading[Shape]:
    """A Parameter `shape`: `1,3,?,1..10`, `[...]`, `""` (scalar), `-1` and `..b` / `a..`.
    Only ASCII blanks may surround a dim: OpenVINO refuses `\u3000` or a no-break space."""
    body = text.strip(ASCII_BLANKS)
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1].strip(ASCII_BLANKS)
    if body == "...":
        return Reading(Shape.dynamic())
    if body == "":
        return Reading(Shape(()))
    dims: list[Dim] = []
    problems: list[str] = []
    for item in (piece.strip(ASCII_BLANKS) for piece in body.split(",")):
        if item == "?":
            dims.append(Dim.dynamic())
            continue
        match = _SHAPE_DIM.match(item)
        if item == "" or match is None or (match.group(1) is None and match.group(3) is None):
            return rejected(
                f"{show(text)} is not a shape: cannot read {show(item)} as a dimension"
                + ascii_digits_hint(item)
            )
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
        value = _integer(low_text)
        if value == -1:
            return Dim.dynamic(), None
        if value < -1 or value > INT64_MAX:
            return Dim.static(0), f"{show(item)} is read as 0"
        return Dim.static(value), None
    low = _integer(low_text) if low_text is not None else 0
    high = _integer(high_text) if high_text is not None else None
    if (low < -1 or low > INT64_MAX) or (high is not None and (high < -1 or high > INT64_MAX)):
        return Dim.dynamic(), f"{show(item)} is read as ?"
    if high == -1:  # `..-1` is `?`; `a..-1` is read as `?` too, dropping the lower bound
        return Dim.dynamic(), (None if low_text is None else f"{show(item)} is read as ?")
    low = max(low, 0)
    if high is not None and high < low:
        return Dim.dynamic(), f"{show(item)} is an empty interval, read as ?"
    return Dim(low, high), None
