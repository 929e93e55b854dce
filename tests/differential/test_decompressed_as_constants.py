"""Live differential test: weights in a decompression subgraph (u8 Const -> Convert f16 ->
Subtract zero point -> Multiply scale f16 -> Convert f32) that the CPU does not fuse into a
product by compressed weights: it computes them in f32 and multiplies by them as f32 weights,
activations not quantized (docs/compressed-weights.md):
- a tied embedding and lm_head whose table a ShapeOf also reads (OPT's export);
- a MatMul's rank-3 weights (a mixture of experts' stacked experts, Qwen3-MoE's export);
- a Convolution's, one scale per output channel (ViT's patch embedding).
Folded as written, the f16 Multiply rounds every weight to f16 (2e-4 of the output's scale
off); quantizing the activations as a fused product does puts it 4e-3 off."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irpool
from tests.differential.oracle_batch import CPU_CONFIG

ov = pytest.importorskip("openvino")
ops = pytest.importorskip("openvino.opset13")

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(11)
# BLAS's f32 sums against the CPU's: both on f32 weights, in another order
TOLERANCE = 1e-6


def _weights(shape: tuple[int, ...], scale_shape: tuple[int, ...]) -> Any:
    quantized = RNG.integers(0, 256, shape).astype(np.uint8)
    points = RNG.integers(100, 156, scale_shape).astype(np.uint8)
    scales = (RNG.random(scale_shape) * 0.01 + 0.001).astype(np.float16)
    values = ops.subtract(
        ops.convert(ops.constant(quantized), "f16"), ops.convert(ops.constant(points), "f16")
    )
    return ops.convert(ops.multiply(values, ops.constant(scales)), "f32")


def _tied_with_shape_of() -> tuple[Any, dict[str, np.ndarray]]:
    table = _weights((300, 64), (300, 1))
    x = ops.parameter([-1, -1, 64], np.float32, name="x")
    ids = ops.parameter([-1, -1], np.int64, name="ids")
    logits = ops.matmul(x, table, False, True)
    rows = ops.gather(table, ids, ops.constant(np.int64(0)))
    width = ops.gather(ops.shape_of(table), ops.constant(np.array([1])), ops.constant(np.int64(0)))
    flat = ops.reshape(rows, ops.concat([ops.constant(np.array([-1])), width], 0), False)
    model = ov.Model([logits, flat], [x, ids])
    inputs = {
        "x": RNG.standard_normal((1, 13, 64)).astype(np.float32),
        "ids": np.array([[5, 299, 0]]),
    }
    return model, inputs


def _stacked_experts() -> tuple[Any, dict[str, np.ndarray]]:
    x = ops.parameter([4, -1, 64], np.float32, name="x")
    model = ov.Model([ops.matmul(x, _weights((4, 32, 64), (4, 32, 1)), False, True)], [x])
    return model, {"x": RNG.standard_normal((4, 13, 64)).astype(np.float32)}


def _convolution() -> tuple[Any, dict[str, np.ndarray]]:
    x = ops.parameter([1, 3, 32, 32], np.float32, name="x")
    filters = _weights((16, 3, 8, 8), (16, 1, 1, 1))
    model = ov.Model([ops.convolution(x, filters, [8, 8], [0, 0], [0, 0], [1, 1])], [x])
    return model, {"x": RNG.standard_normal((1, 3, 32, 32)).astype(np.float32)}


@pytest.mark.parametrize("build", [_tied_with_shape_of, _stacked_experts, _convolution])
def test_the_cpu_multiplies_by_weights_decompressed_in_f32(tmp_path: Path, build: Any) -> None:
    model, inputs = build()
    path = tmp_path / "model.xml"
    ov.save_model(model, path, compress_to_fp16=False)
    compiled = ov.Core().compile_model(path, "CPU", CPU_CONFIG)
    expected = compiled.create_infer_request().infer(inputs)
    loaded = irpool.load(path)
    assert loaded.validate() == []
    found = loaded.run(inputs)
    for index, value in enumerate(found.values()):
        wanted = expected[compiled.output(index)]
        scale = float(np.abs(wanted).max())
        assert float(np.abs(value - wanted).max()) <= TOLERANCE * scale
