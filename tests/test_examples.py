"""The shipped examples do what examples/README.md says, rule code for rule code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import irpool

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

_ROW = re.compile(r"^\| `(?P<file>[^`]+\.xml)`[^|]*\|[^|]*\| (?P<codes>[^|]*) \|", re.M)


def _readme_expectations() -> dict[str, set[str]]:
    text = (EXAMPLES / "README.md").read_text()
    expected: dict[str, set[str]] = {}
    for folder in ("spec", "broken"):
        section = text.split(f"## `{folder}/`", 1)[1].split("\n## ", 1)[0]
        for row in _ROW.finditer(section):
            expected[f"{folder}/{row['file']}"] = set(re.findall(r"IR\d{3}", row["codes"]))
    return expected


EXPECTED = _readme_expectations()


def _codes(path: Path) -> set[str]:
    try:
        return {d.code for d in irpool.load(path).validate()}
    except irpool.IRError as error:
        return {d.code for d in error.diagnostics}


def test_readme_covers_every_example() -> None:
    files = {p.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.glob("*/*.xml")}
    valid = {f for f in files if f.startswith("valid/")}
    assert files - valid == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_reports_what_the_readme_says(name: str) -> None:
    assert _codes(EXAMPLES / name) == EXPECTED[name]


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("valid/*.xml")), ids=lambda p: p.name)
def test_valid_examples_are_clean(path: Path) -> None:
    assert irpool.load(path).validate() == []


def test_only_the_two_wrong_spec_examples_have_errors() -> None:
    failing = sorted(
        path.name for path in EXAMPLES.glob("spec/*.xml") if irpool.load(path).has_errors
    )
    assert failing == ["avgpool1_a_same_upper_k2s2.xml", "avgpool1_b_same_upper_k5s2.xml"]
