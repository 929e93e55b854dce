"""The graph reader's fast paths change nothing: read by the plain reader (tests/graph/
plain_reader.py: one thread, each layer read through lxml, nothing memoized or shared), every
IR file the repository holds (rule fixtures, examples, golden and conformance models) must
give exactly what irpool gives."""

from __future__ import annotations

from pathlib import Path

import pytest

import irpool
from tests.graph.chains import write_chain
from tests.graph.plain_reader import plain_reading, source_text_reading
from tests.graph.readings import FILES, ROOT, reading


def test_the_corpus_is_there() -> None:
    assert len(FILES) > 300


@pytest.mark.parametrize("early", [False, True], ids=["as-sized", "source-text"])
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_fast_paths_read_what_the_plain_reader_reads(
    path: Path, early: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`source-text`: every file's layers and edges also read from its text while lxml
    parses it, as only large files' are."""
    if early:
        source_text_reading(monkeypatch)
    fast = reading(path)
    plain_reading(monkeypatch)
    assert reading(path) == fast


@pytest.mark.parametrize("plain", [False, True], ids=["fast", "plain"])
def test_the_oracle_is_another_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plain: bool
) -> None:
    """Layers written alike share their ports on the fast paths only, so an oracle that
    were the fast reader again would show here rather than make the comparison vacuous."""
    write_chain(tmp_path / "chain.xml", 2)
    if plain:
        plain_reading(monkeypatch)
    layers = irpool.load(tmp_path / "chain.xml").graph.layers
    first, second = layers[1], layers[2]
    assert (first.inputs is second.inputs) is not plain
    assert (first.data_items is second.data_items) is not plain
