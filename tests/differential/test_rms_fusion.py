"""Live differential test: an RMSNorm as exporters write it (x * 1/Sqrt(ReduceMean(x^2) + eps)
[* gamma]), which the CPU plugin fuses into one RMS kernel (irpool/cpu/rms_fusion.py): irpool
equals the CPU bit for bit, and does where an int8 activation quantization after it meets a
rounding tie (docs/cpu.md "RMSNorm runs as one kernel")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irpool
from tests.differential.oracle_batch import CPU_CONFIG

ov = pytest.importorskip("openvino")
ops = pytest.importorskip("openvino.opset13")

pytestmark = pytest.mark.oracle


def write_model(path: Path, width: int, gamma: str) -> None:
    x = ops.parameter([-1, -1, width], np.float32, name="x")
    squares = ops.power(x, ops.constant(np.float32(2)))
    mean = ops.reduce_mean(squares, ops.constant(np.array([-1])), keep_dims=True)
    root = ops.sqrt(ops.add(mean, ops.constant(np.float32(1e-6))))
    normalised = ops.multiply(x, ops.divide(ops.constant(np.float32(1)), root))
    if gamma == "per element":
        scale = np.random.default_rng(width).uniform(0.5, 1.5, width).astype(np.float32)
        normalised = ops.multiply(normalised, ops.constant(scale))
    elif gamma == "one":
        normalised = ops.multiply(normalised, ops.constant(np.float32(0.75)))
    model = ov.Model([ops.result(normalised)], [x])
    ov.save_model(model, path, compress_to_fp16=False)


@pytest.mark.parametrize("gamma", ["none", "per element", "one"])
@pytest.mark.parametrize("width", [64, 96, 128, 40, 200])
def test_the_fused_rms_norm_equals_the_cpu_bit_for_bit(
    tmp_path: Path, width: int, gamma: str
) -> None:
    """Rows of int8 codes times a scale (an int8 embedding's rows), and of random floats."""
    path = tmp_path / "rms.xml"
    write_model(path, width, gamma)
    rng = np.random.default_rng(width)
    codes = rng.integers(-128, 128, (2, 9, width)).astype(np.float32) * np.float32(3.1e-3)
    floats = rng.standard_normal((2, 9, width)).astype(np.float32) * np.float32(7)
    compiled = ov.Core().compile_model(path, "CPU", CPU_CONFIG)
    model = irpool.load(path)
    for x in (codes, floats):
        expected = compiled({"x": x})[0]
        (got,) = model.run({"x": x}).values()
        np.testing.assert_array_equal(got, expected)
