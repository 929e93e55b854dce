"""Integer FloorMod chains run as the CPU plugin fuses them (irpool/cpu/eltwise_fusion.py):
in f32, a division by 0's NaN carried to the end. tests/differential/test_eltwise_fusion.py
checks the same against the CPU plugin itself."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irpool
from tests.ir import const, data, edge, layer, net, port, result, weights, write

INT32_MIN = -(2**31)


def _i64(layer_id: int, name: str) -> str:
    attributes = data([("shape", "3"), ("element_type", "i64")])
    outputs = [port(0, [3], "I64", names=name)]
    return layer(layer_id, name, "Parameter", "opset1", attributes, (), outputs)


def _floor_mod(layer_id: int, name: str) -> str:
    inputs = [port(0, [3], "I64"), port(1, [3], "I64")]
    return layer(layer_id, name, "FloorMod", "opset1", "", inputs, [port(2, [3], "I64")])


def _chain(
    tmp_path: Path,
    *,
    inner_read_twice: bool = False,
    divisor_port: int = 0,
    other: tuple[int, int, int] = (2, 2, 2),
) -> Path:
    """(a floormod b) floormod `other` (or `other` floormod (a floormod b), `divisor_port`
    1), the inner result also an output when `inner_read_twice`."""
    out = result(5, "out", [3]).replace('precision="FP32"', 'precision="I64"')
    layers = [_i64(0, "a"), _i64(1, "b"), const(2, "other", list(other))]
    layers += [_floor_mod(3, "inner"), _floor_mod(4, "outer"), out]
    inner_port, two_port = (0, 1) if divisor_port == 0 else (1, 0)
    edges = [edge(0, 0, 3, 0), edge(1, 0, 3, 1), edge(3, 2, 4, inner_port)]
    edges += [edge(2, 0, 4, two_port), edge(4, 2, 5, 0)]
    if inner_read_twice:
        layers.append(result(6, "inner_out", [3]).replace('precision="FP32"', 'precision="I64"'))
        edges.append(edge(3, 2, 6, 0))
    return write(tmp_path, net(layers, edges), weights(list(other)))


def _run(path: Path) -> list[int]:
    a, b = np.array([5, -5, 7]), np.array([0, 0, 2])
    model = irpool.load(path)
    assert [d for d in model.validate() if d.severity.value == "error"] == []
    outputs = model.run({"a": a, "b": b})
    return [int(v) for v in outputs["out"]]


def test_a_fused_chain_carries_the_nan_of_a_division_by_zero(tmp_path: Path) -> None:
    assert _run(_chain(tmp_path)) == [INT32_MIN, INT32_MIN, 1]


def test_a_second_reader_keeps_the_chain_apart(tmp_path: Path) -> None:
    assert _run(_chain(tmp_path, inner_read_twice=True)) == [0, 0, 1]


def test_floor_mod_fuses_only_through_its_first_input(tmp_path: Path) -> None:
    # 0 and -3 floormod INT32_MIN are 0 and -3; fused, a NaN divisor would give INT32_MIN
    path = _chain(tmp_path, divisor_port=1, other=(0, -3, 2))
    assert _run(path) == [0, -3, 0]


PRECISIONS = {"i16": "I16", "u16": "U16", "i32": "I32", "u32": "U32", "i8": "I8", "u8": "U8"}


def _power_then(tmp_path: Path, activation: str, version: str, element_type: str) -> Path:
    """a ** b, then `activation` (opset `version`), all of `element_type`, shape [4]."""
    precision = PRECISIONS[element_type]
    attributes = data([("shape", "4"), ("element_type", element_type)])
    parameters = [
        layer(i, name, "Parameter", "opset1", attributes, (), [port(0, [4], precision, names=name)])
        for i, name in enumerate("ab")
    ]
    power = layer(2, "power", "Power", "opset1", "", [port(0, [4], precision),
                  port(1, [4], precision)], [port(2, [4], precision)])  # fmt: skip
    then = layer(3, "then", activation, version, "", [port(0, [4], precision)],
                 [port(1, [4], precision, names="out")])  # fmt: skip
    out = result(4, "result", [4]).replace('precision="FP32"', f'precision="{precision}"')
    edges = [edge(0, 0, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 3, 0), edge(3, 1, 4, 0)]
    return write(tmp_path, net([*parameters, power, then, out], edges))


@pytest.mark.parametrize(
    ("activation", "version", "element_type", "expected"),
    [  # a = 0, 2, -2, 7 to the power b = -1, 2, -1, 31: inf, 4, -0.5, 2.75e26 in f32
        ("ReLU", "opset1", "i32", [INT32_MIN, 4, 0, INT32_MIN]),  # relu(inf) stored
        ("Floor", "opset1", "i32", [INT32_MIN, 4, -1, INT32_MIN]),  # floor(-0.5), not of 0
        ("Sigmoid", "opset1", "i32", [1, 1, 0, 1]),
        ("HSigmoid", "opset5", "i16", [1, 1, 0, 1]),  # hsigmoid(-0.5) 0.42 rounds to 0
        ("HSigmoid", "opset5", "u32", [1, 1, 0, 1]),
        ("ReLU", "opset1", "i8", [0, 4, 0, 0]),  # 8-bit: each result stored, -128 then 0
        ("HSigmoid", "opset5", "u8", [0, 1, 0, 0]),  # inf stored as 0, then hsigmoid(0) = 0.5
        ("Tanh", "opset1", "i32", [1, 1, 0, 1]),  # stored first: -1, 1, 0, -1
        ("Sqrt", "opset1", "i32", [INT32_MIN, 2, INT32_MIN, INT32_MIN]),  # sqrt(-0.5)
        ("Exp", "opset1", "i32", [INT32_MIN, 55, 1, INT32_MIN]),  # stored first: 0, 55, 1, 0
        ("Abs", "opset1", "i32", [INT32_MIN, 4, 0, INT32_MIN]),  # not fused: abs(0)
        ("Log", "opset1", "i32", [INT32_MIN, 1, INT32_MIN, INT32_MIN]),  # not fused: log(0)
    ],
)
def test_power_chains_go_on_through_activations(
    tmp_path: Path, activation: str, version: str, element_type: str, expected: list[int]
) -> None:
    dtype = np.dtype(element_type.replace("i", "int").replace("u", "uint"))
    a = np.array([0, 2, -2, 7]).astype(dtype)
    b = np.array([-1, 2, -1, 31]).astype(dtype)
    outputs = irpool.load(_power_then(tmp_path, activation, version, element_type)).run(
        {"a": a, "b": b}
    )
    np.testing.assert_array_equal(outputs["out"], np.array(expected).astype(dtype))
