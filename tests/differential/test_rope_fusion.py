"""Live differential test: a rotary embedding as the transformers' exporters write it
(x * cos + Concat(-x[..., h:], x[..., :h]) * sin), which the CPU plugin fuses into one RoPE
kernel (irpool/cpu/rope_fusion.py): irpool equals the CPU bit for bit, static and dynamic
shapes, either order of the Add's inputs (docs/cpu.md "RoPE runs as one kernel"). Written
with the tests' IR builder."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irpool
from tests import ir
from tests.differential.oracle_batch import CPU_CONFIG

ov = pytest.importorskip("openvino")

pytestmark = pytest.mark.oracle

SHAPE = (2, 4, 5)  # batch, heads, tokens; then the head size


def write_model(directory: Path, depth: int, dynamic: bool, swapped: bool) -> Path:
    half = depth // 2
    x = ("-1", 4, "-1", depth) if dynamic else (*SHAPE, depth)
    angles = (x[0], 1, x[2], depth)
    halved = (*x[:3], half)
    bounds = [half, 2**63 - 1, 1, -1, 0, half]
    blob = np.array(bounds, np.int64).tobytes() + np.float32(-1).tobytes()
    consts = [
        ir.typed_const(3 + index, f"bound{index}", "i64", (1,), 8 * index, 8) for index in range(6)
    ]
    slice_ports = [("i64", (1,))] * 4
    layers = [
        ir.parameter(0, "x", x),
        ir.parameter(1, "cos", angles),
        ir.parameter(2, "sin", angles),
        *consts,
        ir.typed_const(9, "minus_one", "f32", (), 48, 4),
        ir.layer(
            10, "second", "Slice", "opset8", "",
            [ir.typed_port(i, t, s) for i, (t, s) in enumerate([("f32", x), *slice_ports])],
            [ir.typed_port(5, "f32", halved)],
        ),
        ir.layer(
            11, "first", "Slice", "opset8", "",
            [ir.typed_port(i, t, s) for i, (t, s) in enumerate([("f32", x), *slice_ports])],
            [ir.typed_port(5, "f32", halved)],
        ),
        ir.typed_layer(12, "Multiply", [("f32", halved), ("f32", ())], ("f32", halved)),
        ir.typed_layer(
            13, "Concat", [("f32", halved), ("f32", halved)], ("f32", x),
            ir.data([("axis", "-1")]),
        ),
        ir.typed_layer(14, "Multiply", [("f32", x), ("f32", angles)], ("f32", x)),
        ir.typed_layer(15, "Multiply", [("f32", x), ("f32", angles)], ("f32", x)),
        ir.typed_layer(16, "Add", [("f32", x), ("f32", x)], ("f32", x)),
        ir.result(17, "y", x),
    ]  # fmt: skip
    edges = [ir.edge(0, 0, 10, 0), ir.edge(0, 0, 11, 0), ir.edge(9, 0, 12, 1)]
    edges += [ir.edge(3 + index, 0, 10, 1 + index) for index in range(4)]  # half.., step, axis
    edges += [ir.edge(7, 0, 11, 1), ir.edge(8, 0, 11, 2), ir.edge(5, 0, 11, 3)]
    edges += [ir.edge(6, 0, 11, 4), ir.edge(10, 5, 12, 0)]
    edges += [ir.edge(12, 2, 13, 0), ir.edge(11, 5, 13, 1)]
    edges += [ir.edge(0, 0, 14, 0), ir.edge(1, 0, 14, 1)]  # x * cos
    edges += [ir.edge(13, 2, 15, 0), ir.edge(2, 0, 15, 1)]  # rotated * sin
    edges += [ir.edge(15 if swapped else 14, 2, 16, 0), ir.edge(14 if swapped else 15, 2, 16, 1)]
    edges.append(ir.edge(16, 2, 17, 0))
    return ir.write(directory, ir.net(layers, edges), blob)


@pytest.mark.parametrize("swapped", [False, True])
@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("depth", [16, 64, 96, 112, 128])
def test_the_fused_rotary_embedding_equals_the_cpu_bit_for_bit(
    tmp_path: Path, depth: int, dynamic: bool, swapped: bool
) -> None:
    path = write_model(tmp_path, depth, dynamic, swapped)
    model = irpool.load(path)
    assert model.validate() == []
    rng = np.random.default_rng(depth)
    x = rng.standard_normal((*SHAPE, depth)).astype(np.float32)
    angles = rng.uniform(0, 6, (SHAPE[0], 1, SHAPE[2], depth))
    inputs = {"x": x, "cos": np.cos(angles).astype(np.float32)}
    inputs["sin"] = np.sin(angles).astype(np.float32)
    expected = ov.Core().compile_model(path, "CPU", CPU_CONFIG)(inputs)[0]
    (found,) = model.run(inputs).values()
    np.testing.assert_array_equal(found, expected)
