"""Live differential test: Gelu as the CPU computes it, bit for bit, in the form of each
instruction set this host can take (irpool.cpu.isa): the host's own in this process, a lesser
one (AVX2 on an AVX-512 host) in a process of its own with ONEDNN_MAX_CPU_ISA set, which
OpenVINO and irpool both read. TANH in its f32 steps, g = fma(x * x, 0.044715, 1) * x *
sqrt(2 / pi), then ((tanh(g) + 1) * 0.5) * x (irpool/execute/kernels/activations.py
`gelu_tanh`) with its tanh polynomial (irpool/cpu/vector_tanh.py), the same on both; ERF by
its minimax polynomials in |x| on AVX-512, by Abramowitz-Stegun's form on AVX2
(irpool/cpu/vector_gelu_erf.py). f64's tanh rounded to f32 is a last bit off on about 6%, the
exact ERF formula on about half (docs/ops/Gelu.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irpool
from irpool.cpu.isa import AVX2, AVX512_CORE, capped_isa, cpu_isa
from tests import ir
from tests.differential.capped import run_capped
from tests.differential.oracle_batch import CPU_CONFIG

ov = pytest.importorskip("openvino")

pytestmark = pytest.mark.oracle


def _inputs() -> np.ndarray:
    rng = np.random.default_rng(7)
    patterns = rng.integers(0, 1 << 32, 40_000, dtype=np.uint64).astype(np.uint32)
    return np.concatenate(
        [
            (rng.standard_normal(60_000) * 3).astype(np.float32),
            (rng.standard_normal(20_000) * 1e-3).astype(np.float32),  # where tanh(g) is g
            np.linspace(-12, 12, 40_001, dtype=np.float32),
            patterns.view(np.float32),  # every binade, subnormals, NaNs
            np.array([np.inf, -np.inf, -3e38, 3e38, 1.8e38, -0.0, 1e-45, np.nan], np.float32),
        ]
    )


def _run_as(isa: str, path: Path, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(CPU, irpool) outputs with the plugin capped at `isa` (in a child process unless it
    is this process's)."""
    if isa == cpu_isa():
        expected = ov.Core().compile_model(path, "CPU", CPU_CONFIG)({"x": x})[0]
        (found,) = irpool.load(path).run({"x": x}).values()
        return expected, found
    return run_capped(isa, path, {"x": x})


@pytest.mark.parametrize("isa", [AVX512_CORE, AVX2])
@pytest.mark.parametrize("mode", ["TANH", "ERF"])
def test_gelu_takes_the_cpus_steps(tmp_path: Path, mode: str, isa: str) -> None:
    if capped_isa(cpu_isa(), isa) != isa:
        pytest.skip(
            f"the plugin's {isa} kernels need an {isa} host (this one computes as {cpu_isa()})"
        )
    x = _inputs()
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
    expected, found = _run_as(isa, path, x)
    numbers = ~np.isnan(expected)
    assert np.array_equal(np.isnan(found), ~numbers)
    assert np.array_equal(found[numbers].view(np.uint32), expected[numbers].view(np.uint32))
