"""f16 arithmetic on constants folded as the CPU plugin folds it: in f32 (docs/cpu.md, "f16
constant arithmetic folds in f32"). NNCF's compressed Convolution weights in an fp16 file,
u8 -> Convert f16 -> Subtract zero point -> Multiply f16 scale -> Convert f32, read here by an
Add of zeros so that the run returns the weights the plan holds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from tests import ir

SHAPE, ONE = (8, 4, 3, 3), (8, 1, 1, 1)
RNG = np.random.default_rng(3)
QUANTIZED = RNG.integers(0, 256, SHAPE).astype(np.uint8)
POINTS = RNG.integers(100, 150, ONE).astype(np.uint8)
SCALES = (RNG.random(ONE) * 0.01 + 0.001).astype(np.float16)
IN_F32 = (QUANTIZED.astype(np.float32) - POINTS.astype(np.float32)) * SCALES.astype(np.float32)
IN_F16 = ((QUANTIZED.astype(np.float16) - POINTS.astype(np.float16)) * SCALES).astype(np.float32)


def write(directory: Path, zero_point: bool) -> Path:
    to_f16, to_f32 = (ir.data([("destination_type", t)]) for t in ("f16", "f32"))
    weights, points, scales = QUANTIZED.tobytes(), POINTS.tobytes(), SCALES.tobytes()
    offsets = np.cumsum([0, len(weights), len(points)])
    layers = [
        ir.parameter(0, "x", SHAPE),
        ir.typed_const(1, "q", "u8", SHAPE, 0, len(weights)),
        ir.typed_layer(2, "Convert", [("u8", SHAPE)], ("f16", SHAPE), to_f16),
        ir.typed_const(3, "zp", "u8", ONE, int(offsets[1]), len(points)),
        ir.typed_layer(4, "Convert", [("u8", ONE)], ("f16", ONE), to_f16),
        ir.typed_layer(5, "Subtract", [("f16", SHAPE), ("f16", ONE)], ("f16", SHAPE)),
        ir.typed_const(6, "scale", "f16", ONE, int(offsets[2]), len(scales)),
        ir.typed_layer(7, "Multiply", [("f16", SHAPE), ("f16", ONE)], ("f16", SHAPE)),
        ir.typed_layer(8, "Convert", [("f16", SHAPE)], ("f32", SHAPE), to_f32),
        ir.typed_layer(9, "Add", [("f32", SHAPE), ("f32", SHAPE)], ("f32", SHAPE)),
        ir.result(10, "y", SHAPE),
    ]
    edges = [ir.edge(1, 0, 2, 0), ir.edge(3, 0, 4, 0), ir.edge(6, 0, 7, 1), ir.edge(7, 2, 8, 0)]
    edges += [ir.edge(0, 0, 9, 0), ir.edge(8, 1, 9, 1), ir.edge(9, 2, 10, 0)]
    if zero_point:
        edges += [ir.edge(2, 1, 5, 0), ir.edge(4, 1, 5, 1), ir.edge(5, 2, 7, 0)]
    else:  # the Subtract and its zero point are left unread
        edges += [ir.edge(2, 1, 7, 0), ir.edge(2, 1, 5, 0), ir.edge(4, 1, 5, 1)]
    return ir.write(directory, ir.net(layers, edges), weights + points + scales)


def held_weights(tmp_path: Path, zero_point: bool) -> NDArray[np.float32]:
    (output,) = (
        irpool.load(write(tmp_path, zero_point)).run({"x": np.zeros(SHAPE, np.float32)}).values()
    )
    return np.asarray(output)


def test_the_f16_and_f32_decompressions_differ() -> None:
    """Else the test below could not tell them apart."""
    assert int((IN_F32 != IN_F16).sum()) > SHAPE[0]


@pytest.mark.parametrize(
    ("zero_point", "expected"),
    [(True, IN_F32), (False, QUANTIZED.astype(np.float32) * SCALES.astype(np.float32))],
)
def test_compressed_weights_in_an_fp16_file_are_decompressed_in_f32(
    tmp_path: Path, zero_point: bool, expected: NDArray[np.float32]
) -> None:
    np.testing.assert_array_equal(held_weights(tmp_path, zero_point), expected)
