"""Ids of layers, ports and edge ends read as OpenVINO 2026.4.1 reads them (each row checked
with `read_model`): a leading blank, `+` or a leading zero is accepted, a trailing blank or a
digit of another script is refused. XML Schema collapses blanks before it checks a number,
so the trailing blank is irpool's own check, reported at the value."""

from __future__ import annotations

from pathlib import Path

import pytest

import irpool
from tests.ir import pool_model, write

EDGE = '<edge from-layer="0" from-port="0" to-layer="1" to-port="0" />'
# (what the test changes in the model, the attribute's new value)
PLACES = {
    "from-layer": (EDGE, EDGE.replace('from-layer="0"', 'from-layer="{}"')),
    "from-port": (EDGE, EDGE.replace('from-port="0"', 'from-port="{}"')),
    "to-layer": (EDGE, EDGE.replace('to-layer="1"', 'to-layer="{}"')),
    "to-port": (EDGE, EDGE.replace('to-port="0" ', 'to-port="{}" ')),
    "layer id": ('<layer id="0" ', '<layer id="{}" '),
    "port id": ('<port id="0" precision="FP32"', '<port id="{}" precision="FP32"'),
}
ORIGINAL = {"to-layer": "1"}


Found = list[tuple[str, int, int]]


def diagnose(tmp_path: Path, place: str, value: str) -> tuple[Found, int, int]:
    """Diagnostics of the model with the id at `place` written `value`, and where it is."""
    old, template = PLACES[place]
    text = pool_model().replace(old, template.format(value), 1)
    line_number, line = next(
        (n, line) for n, line in enumerate(text.splitlines(), 1) if template.format(value) in line
    )
    column = line.index(template.format(value)) + template.index("{}") + 1
    try:
        found = irpool.load(write(tmp_path, text)).validate()
    except irpool.IRError as error:
        found = error.diagnostics
    return [(d.code, d.line, d.column) for d in found], line_number, column


@pytest.mark.parametrize("place", list(PLACES))
@pytest.mark.parametrize("spelling", [" {}", "+{}", "0{}"])
def test_accepted_spellings_are_clean(tmp_path: Path, place: str, spelling: str) -> None:
    value = spelling.format(ORIGINAL.get(place, "0"))
    found, _, _ = diagnose(tmp_path, place, value)
    assert found == []


@pytest.mark.parametrize("place", list(PLACES))
def test_trailing_blank_is_refused_at_the_value(tmp_path: Path, place: str) -> None:
    found, line, column = diagnose(tmp_path, place, ORIGINAL.get(place, "0") + " ")
    assert ("IR105", line, column) in found


@pytest.mark.parametrize("place", list(PLACES))
@pytest.mark.parametrize("digit", ["\uff10", "\u0660"], ids=["fullwidth", "arabic-indic"])
def test_other_scripts_digits_are_refused(tmp_path: Path, place: str, digit: str) -> None:
    found, line, column = diagnose(tmp_path, place, digit)
    assert ("IR105", line, column) in found
