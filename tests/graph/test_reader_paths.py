"""The graph reader's fast paths change nothing: with every switch of
irpool/graph/fast_paths.py off (one thread, each layer serialized and read through lxml,
nothing memoized or shared), irpool must give exactly what it gives with all on, on every IR
file the repository holds (rule fixtures, examples, golden and conformance models)."""

from __future__ import annotations

from dataclasses import astuple, fields, replace
from pathlib import Path

import pytest

import irpool
from irpool.diagnostics import Diagnostic
from irpool.graph import fast_paths
from irpool.graph.fast_paths import FastPaths
from tests.graph.test_repeated_layers import write_chain

ROOT = Path(__file__).resolve().parents[2]
# The files written to go wrong, each in its own way.
RULE_FIXTURES = sorted(ROOT.glob("tests/rules/*.xml"))
FILES = sorted(
    [
        *RULE_FIXTURES,
        *ROOT.glob("examples/**/*.xml"),
        *ROOT.glob("tests/golden/models/*.xml"),
        *ROOT.glob("tests/conformance/*/model.xml"),
    ]
)

Reading = tuple[list[tuple[object, ...]], list[tuple[object, ...]]]


def _diagnostic(d: Diagnostic) -> tuple[object, ...]:
    return (d.code, d.severity, d.line, d.column, d.message, d.layer_id, d.layer_name)


def reading(path: Path) -> Reading:
    """Every diagnostic, and every layer as the graph holds it."""
    try:
        model = irpool.load(path)
    except irpool.IRError as error:
        return [_diagnostic(d) for d in error.diagnostics], []
    diagnostics = [_diagnostic(d) for d in model.validate()]
    layers: list[tuple[object, ...]] = [
        (
            layer.id,
            layer.name,
            layer.type,
            layer.version,
            layer.position,
            layer.data_items,
            [astuple(port) for port in layer.inputs],
            [astuple(port) for port in layer.outputs],
            dict(layer.positions),
        )
        for layer in model.graph.layers.values()
    ]
    return diagnostics, layers


def test_the_corpus_is_there() -> None:
    assert len(FILES) > 300


def test_every_switch_is_on_by_default() -> None:
    assert all(astuple(fast_paths.ENABLED))
    assert not any(astuple(FastPaths.none()))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_fast_paths_read_what_the_plain_paths_read(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = reading(path)
    monkeypatch.setattr(fast_paths, "ENABLED", FastPaths.none())
    assert reading(path) == fast


@pytest.mark.parametrize("switch", [field.name for field in fields(FastPaths)])
def test_each_fast_path_off_alone_changes_nothing(
    switch: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The paths combine: one off among the others on must read the same too."""
    fast = [reading(path) for path in RULE_FIXTURES]
    monkeypatch.setattr(fast_paths, "ENABLED", replace(FastPaths(), **{switch: False}))
    for path, expected in zip(RULE_FIXTURES, fast, strict=True):
        assert reading(path) == expected, path.name


@pytest.mark.parametrize("paths", [FastPaths(), FastPaths.none()], ids=["fast", "plain"])
def test_the_switches_take_effect(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, paths: FastPaths
) -> None:
    """Layers written alike share their ports on the fast paths only, so a switch left
    unread would show here rather than make the comparison above vacuous."""
    write_chain(tmp_path / "chain.xml", 2)
    monkeypatch.setattr(fast_paths, "ENABLED", paths)
    layers = irpool.load(tmp_path / "chain.xml").graph.layers
    first, second = layers[1], layers[2]
    assert (first.inputs is second.inputs) is paths.shared_bodies
    assert (first.data_items is second.data_items) is paths.shared_bodies
