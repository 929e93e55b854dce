"""An IR v10 file's inputs and outputs as OpenVINO types them (graph/io_types.py): an f16
Parameter is an f32 input, an output is f32 (i32 for i64, u32, u64), as the legacy API's
conversion inserts Converts. `run` takes and returns those types, computing inside in the
file's; IR v11 keeps every type, `old_api_map_element_type` rt_info or not."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irpool
from irpool.element_types import element_type
from irpool.graph.io_types import input_type, output_type
from tests import ir

SHAPE = (1, 4)
PRECISIONS = {"f16": "FP16", "f32": "FP32", "f64": "FP64", "i64": "I64", "i32": "I32"}
PRECISIONS |= {"u8": "U8", "i8": "I8", "boolean": "BOOL"}
VALUES = [1.0001, 3.3, -0.1, 2.0]


def identity(ir_version: int, type_name: str, rt_info: str = "") -> str:
    """Parameter -> Convert to its own type -> Result."""
    precision = PRECISIONS[type_name]
    attributes = ir.data([("shape", "1,4"), ("element_type", type_name)])
    parameter = ir.layer(
        0, "x", "Parameter", "opset1", attributes, (), [ir.port(0, SHAPE, precision, "x")]
    )
    if rt_info:
        parameter = parameter.replace("\t\t\t<output>", rt_info + "\t\t\t<output>", 1)
    convert = ir.layer(
        1,
        "y",
        "Convert",
        "opset1",
        ir.data([("destination_type", type_name)]),
        [ir.port(0, SHAPE, precision)],
        [ir.port(1, SHAPE, precision, "y")],
    )
    result = ir.layer(2, "out", "Result", "opset1", "", [ir.port(0, SHAPE, precision)])
    return ir.net(
        [parameter, convert, result], [ir.edge(0, 0, 1, 0), ir.edge(1, 1, 2, 0)], version=ir_version
    )


OLD_API_MAP = (
    '\t\t\t<rt_info>\n\t\t\t\t<attribute name="old_api_map_element_type" version="0" '
    'value="f32" />\n\t\t\t</rt_info>\n'
)


@pytest.mark.parametrize("ir_version", [10, 11])
@pytest.mark.parametrize("type_name", list(PRECISIONS))
def test_input_and_output_types_as_openvino_presents_them(
    ir_version: int, type_name: str, tmp_path: Path
) -> None:
    path = tmp_path / "model.xml"
    path.write_text(identity(ir_version, type_name), encoding="utf-8")
    model = irpool.load(path)
    assert [p.element_type for p in model.inputs] == [input_type(ir_version, type_name)]
    given = np.array([VALUES], element_type(model.inputs[0].element_type).dtype)
    returned = next(iter(model.run({"x": given}).values()))
    assert returned.dtype == element_type(output_type(ir_version, type_name)).dtype


@pytest.mark.oracle
@pytest.mark.parametrize(
    ("ir_version", "rt_info"), [(10, ""), (11, ""), (11, OLD_API_MAP), (10, OLD_API_MAP)]
)
@pytest.mark.parametrize("type_name", list(PRECISIONS))
def test_types_are_openvinos(ir_version: int, rt_info: str, type_name: str, tmp_path: Path) -> None:
    ov = pytest.importorskip("openvino")
    path = tmp_path / "model.xml"
    path.write_text(identity(ir_version, type_name, rt_info), encoding="utf-8")
    read = ov.Core().read_model(path)
    assert read.inputs[0].get_element_type().get_type_name() == input_type(ir_version, type_name)
    assert read.outputs[0].get_element_type().get_type_name() == output_type(ir_version, type_name)


def f16_chain(ir_version: int) -> str:
    """Two f16 Parameters, their sum plus the second again: OpenVINO's CPU computes it in f32."""
    attributes = ir.data([("shape", "1,4"), ("element_type", "f16")])
    layers = [
        ir.layer(i, n, "Parameter", "opset1", attributes, (), [ir.port(0, SHAPE, "FP16", n)])
        for i, n in ((0, "a"), (1, "b"))
    ]
    for layer_id, name in ((2, "t"), (3, "u")):
        inputs = [ir.port(0, SHAPE, "FP16"), ir.port(1, SHAPE, "FP16")]
        outputs = [ir.port(2, SHAPE, "FP16", name)]
        layers.append(ir.layer(layer_id, name, "Add", "opset1", "", inputs, outputs))
    layers.append(ir.layer(4, "out", "Result", "opset1", "", [ir.port(0, SHAPE, "FP16")]))
    edges = [ir.edge(0, 0, 2, 0), ir.edge(1, 0, 2, 1), ir.edge(2, 2, 3, 0), ir.edge(1, 0, 3, 1)]
    return ir.net(layers, [*edges, ir.edge(3, 2, 4, 0)], version=ir_version)


@pytest.mark.oracle
def test_v10_f16_model_takes_and_returns_f32_close_to_the_cpu(tmp_path: Path) -> None:
    ov = pytest.importorskip("openvino")
    path = tmp_path / "model.xml"
    path.write_text(f16_chain(10), encoding="utf-8")
    (tmp_path / "model.bin").write_bytes(b"")
    feeds = [np.array([VALUES], np.float32), np.array([[0.7, -1.9, 100.3, 5e-3]], np.float32)]
    ran = irpool.load(path).run(dict(enumerate(feeds)))["u"]
    compiled = ov.Core().compile_model(path, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    expected = compiled(feeds)[compiled.outputs[0]]
    assert ran.dtype == expected.dtype == np.float32
    # irpool rounds the inputs and each f16 tensor to f16; the CPU computes it all in f32
    scale = float(np.max(np.abs(expected)))
    np.testing.assert_allclose(ran, expected, rtol=0, atol=1e-3 * scale)
