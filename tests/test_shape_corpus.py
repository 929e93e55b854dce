"""PyTorch shape arithmetic as OpenVINO's frontend writes it (issue #18's false errors).

`tests/shape_corpus/` holds `x.view(x.size(0), -1)`, ShuffleNet's channel shuffle and a
floor-divided view, converted by `openvino.convert_model` and saved by `ov.save_model`
(tools/gen_shape_corpus.py). Their scalars (Gather of a scalar index, Divide, Floor) are written
without a <dim>, as a dynamic rank is: every file must validate with no error; IR202 for the
ops irpool does not model and the IR218 info are all it may say. `run` reproduces OpenVINO
where irpool has every kernel, and otherwise names the layer it cannot run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import irpool
from irpool.cli import cli
from irpool.execute.registry import runnable_types

CORPUS = Path(__file__).resolve().parent / "shape_corpus"
INDEX: dict[str, Any] = json.loads((CORPUS / "index.json").read_text())
CASES = {case["name"]: case for case in INDEX["cases"]}
ALWAYS_RUN = {"Parameter", "Const", "Result"}


def _unrunnable(case: dict[str, Any]) -> list[str]:
    types = {kind.split("-")[0] for kind in case["layer_types"]}
    return sorted(types - ALWAYS_RUN - set(runnable_types()))


@pytest.mark.parametrize("name", sorted(CASES))
def test_validates_with_no_error(name: str) -> None:
    found = irpool.load(CORPUS / name / "model.xml").validate()
    said = [f"{d.code} {d.severity.value} line {d.line}: {d.message}" for d in found]
    assert {d.code for d in found} <= {"IR202", "IR218"}, f"{CASES[name]['source']}:\n" + "\n".join(
        said
    )


def test_the_corpus_holds_the_scalar_chains() -> None:
    """As the issue lists them: scalars through Gather/Floor into Unsqueeze/Concat/Reshape."""
    chains = [
        case["source"]
        for case in CASES.values()
        if {"ShapeOf-opset3", "Gather-opset8", "Floor-opset1", "Unsqueeze-opset1",
            "Concat-opset1", "Reshape-opset1"} <= set(case["layer_types"])
    ]  # fmt: skip
    assert any("channel_shuffle" not in s and "//" in s for s in chains), chains
    assert any("transpose" in s for s in chains), chains
    assert {True, False} == {case["compress_to_fp16"] for case in CASES.values()}
    assert {"dynamic", "static", "dynamic_batch"} == {case["input"] for case in CASES.values()}


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if not _unrunnable(c)))
def test_run_reproduces_openvino(name: str) -> None:
    model = irpool.load(CORPUS / name / "model.xml")
    with np.load(CORPUS / name / "inputs.npz") as inputs:
        outputs = model.run(dict(inputs))
    with np.load(CORPUS / name / "outputs.npz") as expected:
        assert sorted(outputs) == sorted(expected.files)
        for key in expected.files:
            np.testing.assert_array_equal(outputs[key], expected[key], err_msg=key)


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if _unrunnable(c)))
def test_run_names_the_layer_it_cannot_run(name: str, tmp_path: Path) -> None:
    with np.load(CORPUS / name / "inputs.npz") as inputs:
        (array,) = inputs.values()
    np.save(tmp_path / "x.npy", array)
    result = CliRunner().invoke(
        cli, ["run", str(CORPUS / name / "model.xml"), "--input", str(tmp_path / "x.npy")]
    )
    assert result.exit_code == 1, result.output
    assert "cannot be executed by irpool" in result.output
    named = [kind for kind in _unrunnable(CASES[name]) if f"({kind})" in result.output]
    assert named, result.output


@pytest.mark.oracle
def test_openvino_reads_the_no_dim_ports_as_scalars() -> None:
    """What the reader makes of a port without <dim>: it infers every shape again, and the
    Gather of a scalar index, Divide and Floor are scalars (rank 0), the Unsqueeze [1]."""
    ov = pytest.importorskip("openvino")
    model = ov.Core().read_model(CORPUS / "channel_shuffle_dynamic_fp32" / "model.xml")
    shapes = {op.get_type_name(): [] for op in model.get_ordered_ops()}
    for op in model.get_ordered_ops():
        shapes[op.get_type_name()].append(str(op.get_output_partial_shape(0)))
    assert "[]" in shapes["Gather"]
    assert shapes["Floor"] == ["[]"] and shapes["Divide"] == ["[]"]
    assert shapes["Unsqueeze"] == ["[1]"]
    text = (CORPUS / "channel_shuffle_dynamic_fp32" / "model.xml").read_text()
    floor = text[text.index('type="Floor"') :]
    assert floor[: floor.index("</layer>")].count("<dim>") == 0  # written as no <dim>
