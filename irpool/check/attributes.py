"""Stage 3a: `<data>` attributes read and checked against an op's declaration, generically.

Reading is a pure function of the op and the attribute text, so the checker reads each
distinct `<data>` once however many layers repeat it, and places the findings per layer.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from irpool.check.locators import AtData, AtDataName
from irpool.ops.base import Attr, AttrType, Op
from irpool.parse.floats import read_float, read_float32, read_float32_list
from irpool.parse.values import (
    Finding,
    Reading,
    ascii_digits_hint,
    read_bool,
    read_element_type,
    read_enum,
    read_int,
    read_integer_list,
    read_partial_shape,
    read_unsigned,
    show,
)
from irpool.rules import (
    ATTRIBUTE_OUT_OF_RANGE,
    ATTRIBUTE_VERSION_MISMATCH,
    IGNORED_ATTRIBUTE,
    INVALID_ATTRIBUTE_VALUE,
    MISSING_ATTRIBUTE,
    MISSING_MANDATORY_ATTRIBUTE,
    MISSPELLED_ATTRIBUTE,
    NON_CANONICAL_SPELLING,
    REINTERPRETED_ATTRIBUTE_VALUE,
    UNKNOWN_ATTRIBUTE,
    Code,
)

_FINDING_CODES = {
    "rejected": INVALID_ATTRIBUTE_VALUE,
    "reinterpreted": REINTERPRETED_ATTRIBUTE_VALUE,
    "noncanonical": NON_CANONICAL_SPELLING,
}


def _read_uint(text: str) -> Reading[int]:
    value = read_unsigned(text)
    if value is None:
        return Reading(
            None,
            Finding(
                "rejected",
                f"{show(text)} is not an unsigned integer below 2**63" + ascii_digits_hint(text),
            ),
        )
    return Reading(value)


_READERS: dict[AttrType, Callable[[Attr, str], Reading[Any]]] = {
    AttrType.UINT_LIST: lambda _, text: read_integer_list(text),
    AttrType.INT_LIST: lambda _, text: read_integer_list(text, signed=True),
    AttrType.UINT: lambda _, text: _read_uint(text),
    AttrType.INT: lambda _, text: read_int(text),
    AttrType.FLOAT: lambda _, text: read_float(text),
    AttrType.FLOAT32: lambda _, text: read_float32(text),
    AttrType.FLOAT32_LIST: lambda _, text: read_float32_list(text),
    AttrType.BOOL: lambda _, text: read_bool(text),
    AttrType.ENUM: lambda attr, text: read_enum(text, attr.choices),
    AttrType.ELEMENT_TYPE: lambda _, text: read_element_type(text),
    AttrType.SHAPE: lambda _, text: read_partial_shape(text),
    AttrType.STRING: lambda _, text: Reading(text),
}


# A rule code, its message, and where: an attribute's value (AtData(None): the <data>
# element itself, or the layer when there is no <data>), or a misspelt attribute's name.
AttributeFinding = tuple[Code, str, AtData | AtDataName]


@dataclass(frozen=True, slots=True)
class Attributes:
    values: dict[str, Any]
    present: frozenset[str]
    # False when the runtime would refuse a value, so shape inference is pointless.
    usable: bool
    findings: tuple[AttributeFinding, ...]
    # Attribute -> the misspelling written instead ("strides" -> "stides"): a finding about
    # the absent attribute points at what the writer meant for it.
    misspelt: tuple[tuple[str, str], ...] = ()


def read_attributes(op: type[Op], data: tuple[tuple[str, str], ...] | None) -> Attributes:
    """The attributes of a `<data>` element (its items in order; None when the layer has
    none) as the runtime reads them for `op`, with every finding."""
    given = dict(data) if data is not None else {}
    own = {attr.name: attr for attr in op.own_attributes()}
    findings: list[AttributeFinding] = []

    def report(code: Code, message: str, attribute: str | None, fix: str | None = None) -> None:
        findings.append((code, message, AtData(attribute, fix)))

    usable = True
    if data is None and op.needs_data:
        report(MISSING_MANDATORY_ATTRIBUTE, f"{op.label()} needs a <data> element", None)
        usable = False
    explained, misspelt = _report_foreign(op, given, own, findings)
    values, own_usable = _read_own(op, given, own, explained, report)
    usable = usable and own_usable
    return Attributes(values, frozenset(given), usable, tuple(findings), tuple(misspelt.items()))


class Report(Protocol):
    """Records a finding about an attribute (None: the layer), with the text that fixes it."""

    def __call__(
        self, code: Code, message: str, attribute: str | None, fix: str | None = None
    ) -> None: ...


def _report_foreign(
    op: type[Op], given: dict[str, str], own: dict[str, Attr], findings: list[AttributeFinding]
) -> tuple[set[str], dict[str, str]]:
    """Report the given attributes that are not the op's own (the runtime ignores them all).
    Returns the own attributes a misspelt one was meant to be, and attribute -> the
    misspelling written instead of it."""
    family = {attr.name: attr for attr in op.attributes}
    explained: set[str] = set()
    misspelt: dict[str, str] = {}
    for name in given:
        if name in own:
            continue
        if name in family and _neutral(family[name], given[name]):
            since = family[name].since
            code, message = (
                IGNORED_ATTRIBUTE,
                f"{name} belongs to {op.type_name}-{since} (opset{since} and later); "
                f"{op.label()} ignores it, and {show(given[name])} changes nothing anyway",
            )
        elif name in family:
            since = family[name].since
            code, message = (
                ATTRIBUTE_VERSION_MISMATCH,
                f"{name} belongs to {op.type_name}-{since} (opset{since} and later); "
                f"{op.label()} ignores it",
            )
        elif name in op.ignored_attributes:
            code, message = (
                IGNORED_ATTRIBUTE,
                f"{op.label()} has no attribute {name}; OpenVINO ignores it",
            )
        elif (target := _near_miss(name, own)) is not None:
            explained.add(target)
            if target not in given:
                misspelt.setdefault(target, name)
            effect = (
                f"the declared {target} applies"
                if target in given
                else f"{target} keeps its default {own[target].describe_default()}"
            )
            message = (
                f'{op.label()} has no attribute "{name}"; did you mean "{target}"? OpenVINO '
                f"ignores it, so {effect}"
            )
            findings.append((MISSPELLED_ATTRIBUTE, message, AtDataName(name)))
            continue
        else:
            code, message = (
                UNKNOWN_ATTRIBUTE,
                f"{op.label()} has no attribute {name}; OpenVINO ignores it",
            )
        findings.append((code, message, AtData(name)))
    return explained, misspelt


def _read_own(
    op: type[Op], given: dict[str, str], own: dict[str, Attr], explained: set[str], report: Report
) -> tuple[dict[str, Any], bool]:
    """The op's own attributes' values (defaults where missing), and whether the runtime
    accepts them all. A missing attribute a misspelt one stands for (`explained`) is not
    reported again."""
    usable = True
    values: dict[str, Any] = {}
    for name, attr in own.items():
        text = given.get(name)
        values[name] = attr.default
        if text is None:
            if attr.mandatory:
                report(
                    MISSING_MANDATORY_ATTRIBUTE,
                    f"{name} is missing; OpenVINO refuses {op.label()} without it",
                    None,
                )
                usable = False
            elif attr.required and name not in explained:
                report(
                    MISSING_ATTRIBUTE,
                    f"{name} is missing; the specification requires it (OpenVINO falls back "
                    f"to {attr.describe_default()}{attr.default_effect})",
                    None,
                )
            continue
        reading = _READERS[attr.type](attr, text)
        finding = reading.finding
        if finding is not None and finding.kind == "reinterpreted" and _replaced(attr, given, own):
            finding = None  # a misread value that is never used: the op reports it (IR213)
        if finding is not None:
            # A value the runtime ignores (a bogus boolean) leaves the default in force.
            ignored = reading.value is None and finding.kind == "reinterpreted"
            effect = f"; OpenVINO ignores it and uses {attr.describe_default()}" if ignored else ""
            message = f"{name}: {finding.message}{effect}"
            report(_FINDING_CODES[finding.kind], message, name, finding.fix)
            if finding.kind == "rejected":
                usable = False
        if reading.value is None:
            continue
        values[name] = reading.value
        usable = _check_range(op, attr, reading.value, report) and usable
    return values, usable


def _neutral(attr: Attr, text: str) -> bool:
    """Whether `text` changes nothing in a version before the attribute's: a list made only
    of the item that changes nothing (dilation 1), or the value the later version uses by
    default (MaxPool-8's `axis="0"`), which is what the earlier version does."""
    reading = _READERS[attr.type](attr, text)
    if reading.value is None or (reading.finding and reading.finding.kind != "noncanonical"):
        return False
    if attr.neutral_item is None:
        return attr.default is not None and reading.value == attr.default
    return bool(reading.value) and all(item == attr.neutral_item for item in reading.value)


def _replaced(attr: Attr, given: dict[str, str], own: dict[str, Attr]) -> bool:
    """Whether another attribute makes the runtime compute `attr` instead of using its value."""
    for name, values in attr.replaced_when.items():
        other = own[name]
        text = given.get(name)
        value = other.default if text is None else _READERS[other.type](other, text).value
        if value in values:
            return True
    return False


def _check_range(op: type[Op], attr: Attr, value: Any, report: Report) -> bool:
    """Limits the runtime enforces at read time; False when it would refuse the value."""
    if attr.min_value is not None and isinstance(value, tuple):
        low = [v for v in value if v < attr.min_value]
        if low:
            report(
                ATTRIBUTE_OUT_OF_RANGE,
                f"{attr.name} must be at least {attr.min_value}, got "
                f"{show(','.join(map(str, value)))}",
                attr.name,
            )
            return False
    since = attr.choice_since.get(value) if isinstance(value, str) else None
    if since is not None and op.version < since:
        report(
            INVALID_ATTRIBUTE_VALUE,
            f'{attr.name}="{value}" needs {op.type_name}-{since} (opset{since}); '
            f"OpenVINO refuses it on {op.label()}",
            attr.name,
        )
        return False
    return True


def _normalized(name: str) -> str:
    return name.lower().replace("_", "").replace("-", "")


def _near_miss(name: str, own: dict[str, Attr]) -> str | None:
    """A real attribute the name was probably meant to be (case, `_` for `-`, a typo)."""
    by_normal = {_normalized(real): real for real in own}
    if _normalized(name) in by_normal:
        return by_normal[_normalized(name)]
    close = difflib.get_close_matches(_normalized(name), list(by_normal), n=1, cutoff=0.8)
    return by_normal[close[0]] if close else None
