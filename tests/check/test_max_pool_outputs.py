"""MaxPool-8/14 findings that depend on whether the indices output is read: OpenVINO
computes indices, and fails on them, only then (measured,
docs/ops/MaxPool.md#what-the-reader-and-the-cpu-refuse)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import irpool

RULES = Path(__file__).resolve().parent.parent / "rules"


def without_indices_result(path: Path, directory: Path) -> Path:
    """The fixture with its indices Result (layer 3) and that edge removed."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r'\t\t<layer id="3".*?</layer>\n', "", text, flags=re.S)
    text = re.sub(r'\t\t<edge from-layer="1" from-port="2"[^\n]*\n', "", text)
    changed = directory / path.name
    changed.write_text(text, encoding="utf-8")
    return changed


@pytest.mark.parametrize(
    ("fixture", "code"),
    [
        ("IR217_maxpool8_index_type_u8.xml", "IR217"),
        ("IR217_maxpool8_without_dilations.xml", "IR217"),
        ("IR605_maxpool8_bf16_indices.xml", "IR605"),
    ],
)
def test_unread_indices_are_not_a_problem(fixture: str, code: str, tmp_path: Path) -> None:
    assert code in {d.code for d in irpool.load(RULES / fixture).validate()}
    assert irpool.load(without_indices_result(RULES / fixture, tmp_path)).validate() == []
