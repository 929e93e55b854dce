"""Layers OpenVINO drops: a layer that feeds no Result is never created, so nothing inside it
can make the runtime refuse the file, except what its IR reader checks in every layer (the
layer's version, its ports' precisions and dims). Findings inside a dropped layer are
therefore warnings, those few excepted; the same layer feeding a Result keeps its errors.

Each case adds a layer 3 to Parameter -> AvgPool -> Result, unconnected, fed by the Parameter
or by an edge naming no port, and the oracle test checks OpenVINO's verdict on the very same
file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import irpool
from irpool.cli import cli
from tests import ir

SHAPE = (1, 2, 4, 4)
POOL_DATA = (
    'kernel="1, 1" strides="1, 1" pads_begin="0, 0" pads_end="0, 0" exclude-pad="false" '
    'auto_pad="explicit" rounding_type="floor"'
)


def extra_layer(
    data: str | None = POOL_DATA,
    type_: str = "AvgPool",
    version: str | None = "opset1",
    outputs: int = 1,
    output_port: str = ir.port(1, SHAPE),
) -> str:
    written_version = "" if version is None else f' version="{version}"'
    body = "" if data is None else f"\t\t\t<data {data} />\n"
    ports = "".join(output_port.replace('id="1"', f'id="{1 + n}"') for n in range(outputs))
    return (
        f'\t\t<layer id="3" name="extra" type="{type_}"{written_version}>\n{body}'
        f"\t\t\t<input>\n{ir.port(0, SHAPE)}\t\t\t</input>\n"
        f"\t\t\t<output>\n{ports}\t\t\t</output>\n\t\t</layer>\n"
    )


FED = ir.edge(0, 0, 3, 0)  # the Parameter feeds layer 3


def model(layer: str, edge: str, feeds_result: bool = False) -> str:
    """The pool model with `layer` added as layer 3 and `edge` (if any) added;
    `feeds_result`: layer 3 replaces the pool as the Result's producer (so it is kept)."""
    text = ir.pool_model().replace("\t</layers>", layer + "\t</layers>")
    edges = edge
    if feeds_result:
        text = text.replace(ir.edge(1, 1, 2, 0), ir.edge(3, 1, 2, 0))
    return text.replace("\t</edges>", edges + "\t</edges>")


# name: (layer 3, an edge into it, the finding, its severity when layer 3 is dropped)
CASES = {
    "unconnected": (extra_layer(), "", "IR503", "warning"),
    "edge from a missing layer": (extra_layer(), ir.edge(9, 0, 3, 0), "IR501", "warning"),
    "edge to a missing port": (extra_layer(), ir.edge(0, 0, 3, 5), "IR502", "warning"),
    "opset99": (extra_layer(version="opset99"), FED, "IR201", "warning"),
    "missing exclude-pad": (
        extra_layer(data=POOL_DATA.replace(' exclude-pad="false"', "")), FED, "IR203", "warning"
    ),
    "strides longer than kernel": (
        extra_layer(data=POOL_DATA.replace('strides="1, 1"', 'strides="1, 1, 1"')),
        FED, "IR207", "warning",
    ),
    "unparsable kernel": (
        extra_layer(data=POOL_DATA.replace('kernel="1, 1"', 'kernel="a, 1"')),
        FED, "IR204", "warning",
    ),
    "no <data>": (extra_layer(data=None, type_="Const"), FED, "IR215", "warning"),
    "two output ports": (extra_layer(outputs=2), FED, "IR506", "warning"),
    "type in no opset": (extra_layer(type_="AvgPoolX"), FED, "IR216", "warning"),
    "type Constant": (extra_layer(type_="Constant", data=None), FED, "IR216", "warning"),
    "declared dim wrong": (
        extra_layer(output_port=ir.port(1, (1, 2, 4, 3))), FED, "IR301", "warning"
    ),
    # What the reader checks in every layer, dropped or not.
    "no version": (extra_layer(version=None), FED, "IR105", "error"),
    "dim not a number": (
        extra_layer(output_port=ir.port(1, SHAPE).replace("<dim>1</dim>", "<dim>?</dim>", 1)),
        FED, "IR111", "error",
    ),
    "unknown precision": (
        extra_layer(output_port=ir.port(1, SHAPE, precision="FOO")), FED, "IR110", "error"
    ),
}  # fmt: skip


def findings(path: Path) -> list[tuple[str, str]]:
    try:
        diagnostics = irpool.load(path).validate()
    except irpool.IRError as error:
        diagnostics = error.diagnostics
    return [(d.code, d.severity.value) for d in diagnostics]


@pytest.mark.parametrize("name", CASES)
def test_a_dropped_layer_fails_the_file_only_where_the_reader_checks(
    name: str, tmp_path: Path
) -> None:
    layer, edge, code, severity = CASES[name]
    found = findings(ir.write(tmp_path, model(layer, edge)))
    assert (code, severity) in found
    assert ("IR505", "warning") in found
    errors = {c for c, s in found if s == "error"}
    assert errors == ({code} if severity == "error" else set())


@pytest.mark.parametrize("name", [n for n, case in CASES.items() if case[3] == "warning"])
def test_the_same_layer_feeding_a_result_keeps_its_error(name: str, tmp_path: Path) -> None:
    layer, edge, code, _ = CASES[name]
    assert (code, "error") in findings(ir.write(tmp_path, model(layer, edge, feeds_result=True)))


def test_the_warning_says_the_layer_is_dropped(tmp_path: Path) -> None:
    path = ir.write(tmp_path, model(extra_layer(type_="AvgPoolX"), FED))
    [message] = [d.message for d in irpool.load(path).validate() if d.code == "IR216"]
    assert "feeds no Result, so OpenVINO builds and compiles nothing from it" in message


def test_a_missing_bin_read_only_by_a_dropped_const_does_not_hide_the_kept_ones(
    tmp_path: Path,
) -> None:
    """One missing .bin is reported once among kept layers, whichever Const comes first."""
    dropped = ir.const(4, "unused", [2, 2])
    text = ir.adaptive_model().replace('\t\t<layer id="0"', dropped + '\t\t<layer id="0"')
    assert ("IR401", "error") in findings(ir.write(tmp_path, text))


@pytest.mark.oracle
@pytest.mark.parametrize("name", CASES)
def test_openvino_agrees(name: str, tmp_path: Path) -> None:
    ov = pytest.importorskip("openvino")
    layer, edge, _, severity = CASES[name]
    path = ir.write(tmp_path, model(layer, edge))
    core = ov.Core()
    try:
        core.compile_model(core.read_model(path), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    except RuntimeError:
        accepted = False
    else:
        accepted = True
    assert accepted == (severity == "warning")


def test_validate_passes_a_file_whose_only_errors_are_in_dropped_layers(tmp_path: Path) -> None:
    """The CLI keeps the demoted severity (a configuration only changes it by an override)."""
    path = ir.write(tmp_path, model(extra_layer(version="opset99"), FED))
    result = CliRunner().invoke(cli, ["validate", "--isolated", str(path)])
    assert result.exit_code == 0, result.output
    assert "IR201" in result.output


def test_without_a_result_a_parameters_compile_errors_are_warnings(tmp_path: Path) -> None:
    """With no Result OpenVINO builds an empty model: a Parameter of dynamic element type
    (IR602 where it feeds a Result) compiles and runs there (mutant 304 of the fuzz)."""
    text = ir.pool_model().replace('element_type="f32"', "").replace('type="Result"', 'type="Relu"')
    codes = findings(ir.write(tmp_path, text))
    assert ("IR507", "error") in codes
    assert ("IR602", "warning") in codes
    assert [code for code, severity in codes if severity == "error"] == ["IR507"]
