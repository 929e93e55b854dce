"""Weights in a decompression subgraph (u8 Const -> Convert f16 -> Subtract zero point ->
Multiply scale f16 -> Convert f32) that the CPU computes in f32 and then multiplies by as f32
weights, activations not quantized: read by a Convolution, by a MatMul as rank-3 weights, or
by a MatMul and a ShapeOf (irpool/cpu/f16_constants.py, irpool/cpu/compressed_weights.py).
Folded as written, the f16 Multiply would round every weight to f16; a fused product would
quantize the activations."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from tests import ir

pytestmark = pytest.mark.usefixtures("vnni_host")  # the products of a VNNI host

RNG = np.random.default_rng(3)
TO_F16, TO_F32 = (ir.data([("destination_type", t)]) for t in ("f16", "f32"))
TRANSPOSED = ir.data([("transpose_a", "false"), ("transpose_b", "true")])
PATCH = ir.data([
    ("strides", "4,4"), ("pads_begin", "0,0"), ("pads_end", "0,0"), ("dilations", "1,1"),
    ("auto_pad", "explicit"),
])  # fmt: skip


def _decompressed(
    shape: tuple[int, ...], scale_shape: tuple[int, ...]
) -> tuple[list[str], list[str], bytes, NDArray[np.float32]]:
    """Layers 1-7 computing f32 weights of `shape` (layer 7's output), their edges, data and
    the weights computed in f32."""
    quantized = RNG.integers(0, 256, shape).astype(np.uint8)
    points = RNG.integers(100, 156, scale_shape).astype(np.uint8)
    scales = (RNG.random(scale_shape) * 0.01 + 0.001).astype(np.float16)
    blob = quantized.tobytes() + points.tobytes() + scales.tobytes()
    layers = [
        ir.typed_const(1, "q", "u8", shape, 0, quantized.size),
        ir.typed_layer(2, "Convert", [("u8", shape)], ("f16", shape), TO_F16),
        ir.typed_const(3, "zp", "u8", scale_shape, quantized.size, points.size),
        ir.typed_layer(4, "Convert", [("u8", scale_shape)], ("f16", scale_shape), TO_F16),
        ir.typed_layer(5, "Subtract", [("f16", shape), ("f16", scale_shape)], ("f16", shape)),
        ir.typed_const(6, "scale", "f16", scale_shape, quantized.size + points.size, scales.nbytes),
        ir.typed_layer(7, "Multiply", [("f16", shape), ("f16", scale_shape)], ("f16", shape)),
        ir.typed_layer(8, "Convert", [("f16", shape)], ("f32", shape), TO_F32),
    ]  # fmt: skip
    edges = [
        ir.edge(1, 0, 2, 0), ir.edge(3, 0, 4, 0), ir.edge(2, 1, 5, 0), ir.edge(4, 1, 5, 1),
        ir.edge(5, 2, 7, 0), ir.edge(6, 0, 7, 1), ir.edge(7, 2, 8, 0),
    ]  # fmt: skip
    weights = (quantized.astype(np.float32) - points) * scales.astype(np.float32)
    return layers, edges, blob, weights


def _run(
    tmp_path: Path, layers: list[str], edges: list[str], blob: bytes, x: NDArray[np.float32]
) -> NDArray[np.float32]:
    model = irpool.load(ir.write(tmp_path, ir.net(layers, edges), blob))
    assert model.validate() == []
    found = model.run({"x": x})
    return np.asarray(found["y"])


def _close(found: NDArray[np.float32], expected: NDArray[np.float64]) -> None:
    assert float(np.abs(found - expected).max()) <= 1e-6 * float(np.abs(expected).max())


def test_a_matmuls_rank_3_weights(tmp_path: Path) -> None:
    layers, edges, blob, weights = _decompressed((4, 32, 64), (4, 32, 1))
    x = RNG.standard_normal((4, 5, 64)).astype(np.float32)
    layers += [
        ir.parameter(0, "x", x.shape),
        ir.typed_layer(
            9, "MatMul", [("f32", x.shape), ("f32", weights.shape)], ("f32", (4, 5, 32)), TRANSPOSED
        ),
        ir.result(10, "y", (4, 5, 32)),
    ]
    edges += [ir.edge(0, 0, 9, 0), ir.edge(8, 1, 9, 1), ir.edge(9, 2, 10, 0)]
    found = _run(tmp_path, layers, edges, blob, x)
    _close(found, x.astype(np.float64) @ np.swapaxes(weights, 1, 2))


def test_a_convolutions_weights(tmp_path: Path) -> None:
    layers, edges, blob, weights = _decompressed((8, 3, 4, 4), (8, 1, 1, 1))
    x = RNG.standard_normal((1, 3, 8, 8)).astype(np.float32)
    layers += [
        ir.parameter(0, "x", x.shape),
        ir.typed_layer(
            9,
            "Convolution",
            [("f32", x.shape), ("f32", weights.shape)],
            ("f32", (1, 8, 2, 2)),
            PATCH,
        ),
        ir.result(10, "y", (1, 8, 2, 2)),
    ]
    edges += [ir.edge(0, 0, 9, 0), ir.edge(8, 1, 9, 1), ir.edge(9, 2, 10, 0)]
    found = _run(tmp_path, layers, edges, blob, x)
    patches = x.reshape(3, 2, 4, 2, 4).transpose(1, 3, 0, 2, 4).reshape(4, 48)
    expected = (patches.astype(np.float64) @ weights.reshape(8, 48).T).T.reshape(1, 8, 2, 2)
    _close(found, expected)


@pytest.mark.parametrize("shape_of", [False, True])
def test_weights_another_layer_reads_too(tmp_path: Path, shape_of: bool) -> None:
    """Read by a ShapeOf besides, the weights stay f32 constants: no activation quantized."""
    layers, edges, blob, weights = _decompressed((40, 64), (40, 1))
    x = RNG.standard_normal((3, 64)).astype(np.float32)
    layers += [
        ir.parameter(0, "x", x.shape),
        ir.typed_layer(
            9, "MatMul", [("f32", x.shape), ("f32", weights.shape)], ("f32", (3, 40)), TRANSPOSED
        ),
        ir.result(10, "y", (3, 40)),
    ]
    edges += [ir.edge(0, 0, 9, 0), ir.edge(8, 1, 9, 1), ir.edge(9, 2, 10, 0)]
    if shape_of:
        shape_data = ir.data([("output_type", "i64")])
        layers += [
            ir.layer(
                11,
                "l11",
                "ShapeOf",
                "opset3",
                shape_data,
                [ir.typed_port(0, "f32", weights.shape)],
                [ir.typed_port(1, "i64", (2,))],
            ),
            ir.result(12, "rows", (2,), "I64"),
        ]
        edges += [ir.edge(8, 1, 11, 0), ir.edge(11, 1, 12, 0)]
    found = _run(tmp_path, layers, edges, blob, x)
    exact = x.astype(np.float64) @ weights.T
    off = float(np.abs(found - exact).max()) / float(np.abs(exact).max())
    assert (off <= 1e-6) == shape_of  # fused: the activations quantized to int8 steps
