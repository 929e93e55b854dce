"""The rule fixtures under tests/rules/: `<CODE>_<what>.xml`, whose line 2 lists every
diagnostic the file must produce (`<!-- expect: IR301@28:11 -->`)."""

from __future__ import annotations

import re
from pathlib import Path

RULES_DIR = Path(__file__).parent / "rules"
FIXTURES = sorted(RULES_DIR.glob("*.xml"))

_EXPECT_LINE = re.compile(r"<!-- expect:(?P<items>(?:\s+IR\d{3}@\d+:\d+)*)\s*-->")
_ITEM = re.compile(r"(IR\d{3})@(\d+):(\d+)")
_NAME = re.compile(r"(IR\d{3})_[A-Za-z0-9_]+")

Found = tuple[str, int, int]


def expected(path: Path) -> list[Found]:
    """The (code, line, column) list written on line 2 of a fixture."""
    lines = path.read_text(encoding="utf-8").splitlines()
    match = _EXPECT_LINE.fullmatch(lines[1].strip()) if len(lines) > 1 else None
    if match is None:
        raise AssertionError(f"{path.name}: line 2 must be <!-- expect: CODE@line:col ... -->")
    items = [(code, int(line), int(column)) for code, line, column in _ITEM.findall(match["items"])]
    return sorted(items)


def fixture_code(path: Path) -> str:
    match = _NAME.fullmatch(path.stem)
    if match is None:
        raise AssertionError(f"{path.name}: fixtures are named <CODE>_<what>.xml")
    return match.group(1)
