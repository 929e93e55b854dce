"""The graph reader's fast paths change nothing: cutting layer bodies from one serialization
of <layers>, and reading layer heads with one regular expression (irpool/graph/build.py),
must give exactly what reading every layer through lxml gives, on every IR file the
repository holds (rule fixtures, examples, golden and conformance models)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import irpool
from irpool.graph import build

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(
    [
        *ROOT.glob("tests/rules/*.xml"),
        *ROOT.glob("examples/**/*.xml"),
        *ROOT.glob("tests/golden/models/*.xml"),
        *ROOT.glob("tests/conformance/*/model.xml"),
    ]
)

Reading = tuple[list[tuple[str, int, int, str]], list[tuple[object, ...]]]


def reading(path: Path) -> Reading:
    """Every diagnostic, and every layer as the graph holds it."""
    try:
        model = irpool.load(path)
    except irpool.IRError as error:
        return [(d.code, d.line, d.column, d.message) for d in error.diagnostics], []
    diagnostics = [(d.code, d.line, d.column, d.message) for d in model.validate()]
    layers = [
        (
            layer.id,
            layer.name,
            layer.type,
            layer.version,
            layer.position,
            layer.data_items,
            [(p.id, p.side, p.position, p.declared, p.precision) for p in layer.inputs],
            [(p.id, p.side, p.position, p.declared, p.precision) for p in layer.outputs],
        )
        for layer in model.graph.layers.values()
    ]
    return diagnostics, layers


def test_the_corpus_is_there() -> None:
    assert len(FILES) > 300


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_fast_paths_read_what_lxml_reads(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = reading(path)
    monkeypatch.setattr(build, "_HEAD", re.compile(r"(?!)"))  # heads element by element
    assert reading(path) == fast
    monkeypatch.setattr(build, "_cut", lambda text, container: None)  # bodies too
    assert reading(path) == fast
