"""What Model Optimizer 2020-2021 writes on every layer of an IR v10 file (`output_padding`
on Convolution-1: IR210; `special_zero="True"` on Reshape: IR211) is one info per cause and
file, which counts and names the layers (diagnostics.merge_repeats) and holds every place.
OpenVINO reads, compiles and runs such a file."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

import irpool
from irpool.rules import Severity
from tests import ir

SHAPE = (1, 1, 4, 4)
CONVOLUTIONS = 12
RESHAPES = 3


def convolution(layer_id: int) -> str:
    attributes = ir.data(
        [
            ("auto_pad", "explicit"),
            ("dilations", "1,1"),
            ("output_padding", "0,0"),  # Model Optimizer's, from ConvolutionBackpropData
            ("pads_begin", "0,0"),
            ("pads_end", "0,0"),
            ("strides", "1,1"),
        ]
    )
    inputs = [ir.port(0, SHAPE), ir.port(1, (1, 1, 1, 1))]
    return ir.layer(
        layer_id,
        f"conv{layer_id}",
        "Convolution",
        "opset1",
        attributes,
        inputs,
        [ir.port(2, SHAPE)],
    )


def reshape(layer_id: int) -> str:
    attributes = ir.data([("special_zero", "True")])
    inputs = [ir.port(0, SHAPE), ir.port(1, (4,), "I64")]
    return ir.layer(
        layer_id, f"reshape{layer_id}", "Reshape", "opset1", attributes, inputs, [ir.port(2, SHAPE)]
    )


def model_optimizer_v10() -> tuple[str, bytes]:
    """Parameter, then the Convolutions and Reshapes in a chain, then a Result."""
    weight = ir.data(
        [("element_type", "f32"), ("shape", "1,1,1,1"), ("offset", "0"), ("size", "4")]
    )
    target = ir.data([("element_type", "i64"), ("shape", "4"), ("offset", "4"), ("size", "32")])
    layers = [
        ir.parameter(0, "data", SHAPE),
        ir.layer(1, "weight", "Const", "opset1", weight, (), [ir.port(0, (1, 1, 1, 1))]),
        ir.layer(2, "target", "Const", "opset1", target, (), [ir.port(0, (4,), "I64")]),
    ]
    edges, source = [], (0, 0)
    chain = [convolution] * CONVOLUTIONS + [reshape] * RESHAPES
    for layer_id, make in enumerate(chain, start=3):
        layers.append(make(layer_id))
        edges += [
            ir.edge(*source, layer_id, 0),
            ir.edge(1 if make is convolution else 2, 0, layer_id, 1),
        ]
        source = (layer_id, 2)
    last = 3 + len(chain)
    layers.append(ir.result(last, "out", SHAPE))
    edges.append(ir.edge(*source, last, 0))
    return ir.net(layers, edges, version=10), struct.pack("<f4q", 0.5, *SHAPE)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    text, weights = model_optimizer_v10()
    return ir.write(tmp_path, text, weights)


def test_one_info_per_cause_naming_the_layers(path: Path) -> None:
    found = irpool.load(path).validate()
    assert [(d.code, d.severity) for d in found] == [
        ("IR210", Severity.INFO),
        ("IR211", Severity.INFO),
    ]
    padding, spelling = found
    assert padding.message.endswith(
        f'(on {CONVOLUTIONS} layers: "conv3", "conv4", "conv5", "conv6", "conv7", "conv8", '
        f'"conv9", "conv10" and {CONVOLUTIONS - 8} more)'
    )
    assert [d.layer_name for d in padding.occurrences()] == [
        f"conv{i}" for i in range(3, 3 + CONVOLUTIONS)
    ]
    assert spelling.message.endswith('(on 3 layers: "reshape15", "reshape16", "reshape17")')
    assert len({d.line for d in spelling.occurrences()}) == RESHAPES


@pytest.mark.oracle
def test_openvino_reads_compiles_and_runs_it(path: Path) -> None:
    ov = pytest.importorskip("openvino")
    import numpy as np

    compiled = ov.Core().compile_model(path, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    feed = np.arange(16, dtype=np.float32).reshape(SHAPE)
    expected = compiled([feed])[compiled.outputs[0]]
    ran = irpool.load(path).run({"data": feed})
    np.testing.assert_allclose(next(iter(ran.values())), expected, rtol=1e-6)
