"""Live differential test: Gelu's TANH approximation in the CPU's f32 steps, g = fma(x * x,
0.044715, 1) * x * sqrt(2 / pi), then ((tanh(g) + 1) * 0.5) * x (irpool/execute/kernels/
activations.py `gelu_tanh`) with the CPU's tanh polynomial (irpool/cpu/vector_tanh.py): its
results bit for bit (f64's tanh rounded to f32 is a last bit off on about 6%; docs/ops/Gelu.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irpool
from tests import ir
from tests.differential.oracle_batch import CPU_CONFIG

ov = pytest.importorskip("openvino")

pytestmark = pytest.mark.oracle


def test_tanh_gelu_takes_the_cpus_steps(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    x = np.concatenate(
        [
            rng.standard_normal(60_000) * 3,
            rng.standard_normal(20_000) * 1e-3,  # where tanh(g) is g
            np.linspace(-12, 12, 40_001),
            [np.inf, -np.inf, -3e38, np.nan],
        ]
    ).astype(np.float32)
    shape = (x.size,)
    layers = [
        ir.parameter(0, "x", shape),
        ir.layer(
            1, "gelu", "Gelu", "opset7", ir.data([("approximation_mode", "TANH")]),
            [ir.typed_port(0, "f32", shape)], [ir.typed_port(1, "f32", shape)],
        ),
        ir.result(2, "y", shape),
    ]  # fmt: skip
    path = ir.write(tmp_path, ir.net(layers, [ir.edge(0, 0, 1, 0), ir.edge(1, 1, 2, 0)]))
    expected = ov.Core().compile_model(path, "CPU", CPU_CONFIG)({"x": x})[0]
    (found,) = irpool.load(path).run({"x": x}).values()
    numbers = ~np.isnan(expected)
    assert np.array_equal(np.isnan(found), ~numbers)
    assert np.array_equal(found[numbers].view(np.uint32), expected[numbers].view(np.uint32))
