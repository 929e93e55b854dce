"""The rule fixtures under tests/rules/: `<CODE>_<what>.xml`, whose line 2 lists every
diagnostic the file must produce (`<!-- expect: IR301@28:11 -->`)."""

from __future__ import annotations

import re
from pathlib import Path

from irpool.cpu.isa import AVX512_CORE, cpu_isa

RULES_DIR = Path(__file__).parent / "rules"
FIXTURES = sorted(RULES_DIR.glob("*.xml"))

_EXPECT_LINE = re.compile(r"<!-- expect:(?P<items>(?:\s+IR\d{3}@\d+:\d+)*)\s*-->")
_ITEM = re.compile(r"(IR\d{3})@(\d+):(\d+)")
_NAME = re.compile(r"(IR\d{3})_[A-Za-z0-9_]+")

Found = tuple[str, int, int]

# Fixtures the CPU plugin refuses only on hosts with AVX-512: an AVX2-only host computes bf16
# layers in f32 (docs/cpu.md, "bf16 layers compute in f32 with at most AVX2") and compiles them.
REFUSED_WITH_AVX512_ONLY = frozenset({"IR605_maxpool8_bf16_indices"})


def refused_on_this_host(path: Path) -> bool:
    """Whether the CPU plugin of this host (or of its ONEDNN_MAX_CPU_ISA cap) refuses a fixture
    whose rule says it does."""
    return path.stem not in REFUSED_WITH_AVX512_ONLY or cpu_isa() == AVX512_CORE


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
