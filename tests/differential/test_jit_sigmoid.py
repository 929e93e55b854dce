"""Live differential test: Sigmoid and Swish as the CPU's JIT eltwise kernels compute them, bit
for bit (irpool/cpu/vector_exp.py): alone, and fused into a chain with the Multiply that
follows (an LLM MLP's SwiGLU, Swish(gate) * up), on uniform values over [-100, 100], normal
ones, the exp cut-off near -87.34, and ±inf, NaN, huge and subnormal values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irpool
from tests import ir
from tests.differential.oracle_batch import CPU_CONFIG

ov = pytest.importorskip("openvino")

pytestmark = pytest.mark.oracle

SPECIAL = [np.inf, -np.inf, np.nan, -np.nan, 3e38, -3e38, 1e-40, -1e-40, 0.0, -0.0, -87.34]


def _values(size: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    parts = [
        rng.uniform(-100, 100, size),
        rng.standard_normal(size) * 4,
        rng.uniform(-88, -86, size),
    ]
    return np.concatenate([*parts, SPECIAL]).astype(np.float32)


def _op(layer_id: int, type_: str, version: str, shape: tuple[int], ports: int) -> str:
    inputs = [ir.typed_port(i, "f32", shape) for i in range(ports)]
    return ir.layer(
        layer_id, type_.lower(), type_, version, "", inputs, [ir.typed_port(ports, "f32", shape)]
    )


@pytest.mark.parametrize(
    ("activation", "version", "multiplied"),
    [
        ("Swish", "opset4", False),
        ("Swish", "opset4", True),
        ("Sigmoid", "opset1", False),
        ("Sigmoid", "opset1", True),
    ],
)
def test_jit_sigmoid_is_the_cpus(
    tmp_path: Path, activation: str, version: str, multiplied: bool
) -> None:
    x, up = _values(100_000, 3), _values(100_000, 4)
    shape = (x.size,)
    layers = [
        ir.parameter(0, "x", shape),
        ir.parameter(1, "up", shape),
        _op(2, activation, version, shape, 1),
    ]
    edges = [ir.edge(0, 0, 2, 0)]
    if multiplied:
        layers.append(_op(3, "Multiply", "opset1", shape, 2))
        edges += [ir.edge(2, 1, 3, 0), ir.edge(1, 0, 3, 1)]
    last = 3 if multiplied else 2
    layers.append(ir.result(4, "y", shape))
    edges.append(ir.edge(last, 2 if multiplied else 1, 4, 0))
    path = ir.write(tmp_path, ir.net(layers, edges))
    inputs = {"x": x, "up": up}
    expected = ov.Core().compile_model(path, "CPU", CPU_CONFIG)(inputs)[0]
    (found,) = irpool.load(path).run(inputs).values()
    same = (found.view(np.uint32) == expected.view(np.uint32)) | (
        np.isnan(found) & np.isnan(expected)
    )
    assert same.all(), f"{(~same).sum()} differ, e.g. at x = {x[~same][:4]}"
