"""Structural extremes: a chain deep enough to overflow any recursive walk, many parallel
branches, one layer with very many inputs. Each validates, clean or with the expected
warning, in seconds and without RecursionError."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import irpool
from tests import ir

SHAPE = (1, 1, 2)


def chain(layers: int) -> str:
    """Parameter -> `layers` AvgPools -> Result: one path `layers + 2` long."""
    pools = [ir.avg_pool(i, f"pool_{i}", SHAPE, SHAPE) for i in range(1, layers + 1)]
    edges = [ir.edge(0, 0, 1, 0)] + [ir.edge(i, 1, i + 1, 0) for i in range(1, layers + 1)]
    return ir.net(
        [ir.parameter(0, "input", SHAPE), *pools, ir.result(layers + 1, "out", SHAPE)], edges
    )


def branches(count: int) -> str:
    """One Parameter feeding `count` AvgPool -> Result branches."""
    layers, edges = [ir.parameter(0, "input", SHAPE)], []
    for i in range(count):
        pool, out = 1 + 2 * i, 2 + 2 * i
        layers += [ir.avg_pool(pool, f"pool_{i}", SHAPE, SHAPE), ir.result(out, f"out_{i}", SHAPE)]
        edges += [ir.edge(0, 0, pool, 0), ir.edge(pool, 1, out, 0)]
    return ir.net(layers, edges)


def wide(inputs: int) -> str:
    """A Concat with `inputs` input ports, all fed by one Parameter."""
    ports = "".join(ir.port(i, SHAPE) for i in range(inputs))
    out = (SHAPE[0], SHAPE[1] * inputs, SHAPE[2])
    concat = (
        '\t\t<layer id="1" name="concat" type="Concat" version="opset1">\n'
        '\t\t\t<data axis="1" />\n'
        f"\t\t\t<input>\n{ports}\t\t\t</input>\n"
        f"\t\t\t<output>\n{ir.port(inputs, out)}\t\t\t</output>\n\t\t</layer>\n"
    )
    edges = [ir.edge(0, 0, 1, i) for i in range(inputs)] + [ir.edge(1, inputs, 2, 0)]
    return ir.net([ir.parameter(0, "input", SHAPE), concat, ir.result(2, "out", out)], edges)


def timed_validate(path: Path) -> tuple[irpool.Model, list[irpool.Diagnostic], float]:
    started = time.perf_counter()
    model = irpool.load(path)
    return model, model.validate(), time.perf_counter() - started


@pytest.fixture(scope="module")
def long_chain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ir.write(tmp_path_factory.mktemp("chain"), chain(100_000))


@pytest.mark.slow
def test_chain_of_100000_layers(long_chain: Path) -> None:
    """Recursion over the chain would need 100,000 frames; the limit is 1,000."""
    model, diagnostics, seconds = timed_validate(long_chain)
    assert diagnostics == []
    assert len(model.graph.layers) == 100_002
    assert len(model.graph.producers) == 100_001  # and so 100,000 edges and more
    assert model.graph.order[-1] == 100_001
    assert seconds < 30


@pytest.mark.slow
def test_chain_error_at_the_far_end_is_found(long_chain: Path, tmp_path: Path) -> None:
    """Shapes flow the whole way: a wrong dim on the last layer is still reported."""
    text = long_chain.read_text()
    last = text.rindex('name="out"')
    text = text[:last] + text[last:].replace("<dim>2</dim>", "<dim>3</dim>", 1)
    _, diagnostics, _ = timed_validate(ir.write(tmp_path, text))
    assert [(d.code, d.layer_name) for d in diagnostics] == [("IR301", "out")]


def test_10000_parallel_branches(tmp_path: Path) -> None:
    model, diagnostics, seconds = timed_validate(ir.write(tmp_path, branches(10_000)))
    assert diagnostics == []
    assert len(model.graph.producers) == 20_000
    assert seconds < 10


def test_one_layer_with_20000_inputs(tmp_path: Path) -> None:
    """Resolving each edge's port, and Concat's shape inference over its inputs, must not
    scan all the layer's ports per port (quadratic)."""
    model, diagnostics, seconds = timed_validate(ir.write(tmp_path, wide(20_000)))
    assert diagnostics == []
    assert len(model.graph.producers) == 20_001
    assert seconds < 10
