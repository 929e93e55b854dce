"""What a reader makes of an IR file (its diagnostics and every layer as the graph holds it),
and the repository's IR files written to go wrong, each in its own way."""

from __future__ import annotations

from dataclasses import astuple
from pathlib import Path

import irpool
from irpool.diagnostics import Diagnostic

ROOT = Path(__file__).resolve().parents[2]
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
