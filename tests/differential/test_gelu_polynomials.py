"""Live differential test: Gelu as the CPU computes it on AVX-512, bit for bit. TANH in its f32
steps, g = fma(x * x, 0.044715, 1) * x * sqrt(2 / pi), then ((tanh(g) + 1) * 0.5) * x
(irpool/execute/kernels/activations.py `gelu_tanh`) with its tanh polynomial
(irpool/cpu/vector_tanh.py); ERF by its minimax polynomials in |x| (irpool/cpu/vector_gelu_erf.py).
f64's tanh rounded to f32 is a last bit off on about 6%, the exact ERF formula on about half
(docs/ops/Gelu.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irpool
from tests import ir
from tests.differential.oracle_batch import CPU_CONFIG

ov = pytest.importorskip("openvino")

pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("mode", ["TANH", "ERF"])
def test_gelu_takes_the_cpus_steps(tmp_path: Path, mode: str) -> None:
    rng = np.random.default_rng(7)
    patterns = rng.integers(0, 1 << 32, 40_000, dtype=np.uint64).astype(np.uint32)
    x = np.concatenate(
        [
            (rng.standard_normal(60_000) * 3).astype(np.float32),
            (rng.standard_normal(20_000) * 1e-3).astype(np.float32),  # where tanh(g) is g
            np.linspace(-12, 12, 40_001, dtype=np.float32),
            patterns.view(np.float32),  # every binade, subnormals, NaNs
            np.array([np.inf, -np.inf, -3e38, 3e38, 1.8e38, -0.0, 1e-45, np.nan], np.float32),
        ]
    )
    shape = (x.size,)
    layers = [
        ir.parameter(0, "x", shape),
        ir.layer(
            1, "gelu", "Gelu", "opset7", ir.data([("approximation_mode", mode)]),
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
