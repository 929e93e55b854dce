"""The pooling family as OpenVINO's frontends write it (issue #12's evidence).

`tests/family_corpus/` holds models converted from real torch.nn modules and ONNX nodes by
`openvino.convert_model`, saved by `ov.save_model` (with and without fp16 compression), and the
CPU plugin's outputs for them (tools/gen_family_corpus.py). Every file must validate clean (no
error, no IR202 "not checked") and `model.run` must reproduce OpenVINO: maxima and indices
exactly, averages to the tolerance the index gives. Failures name the case, its source and the
layer types it holds, so they say which op is missing or wrong.
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

CORPUS = Path(__file__).resolve().parent / "family_corpus"
INDEX: dict[str, Any] = json.loads((CORPUS / "index.json").read_text())
CASES = {case["name"]: case for case in INDEX["cases"]}


def _what(case: dict[str, Any]) -> str:
    return f"{case['name']} ({case['source']}; holds {', '.join(case['layer_types'])})"


@pytest.mark.parametrize("name", sorted(CASES))
def test_validates_clean(name: str) -> None:
    case = CASES[name]
    findings = [
        f"{d.code} {d.severity.value} line {d.line}: {d.message}"
        for d in irpool.load(CORPUS / name / "model.xml").validate()
        if d.severity is irpool.Severity.ERROR or d.code == "IR202"
    ]
    assert not findings, f"{_what(case)}:\n" + "\n".join(findings)


@pytest.mark.parametrize("name", sorted(CASES))
def test_run_reproduces_openvino(name: str) -> None:
    case = CASES[name]
    model = irpool.load(CORPUS / name / "model.xml")
    with np.load(CORPUS / name / "inputs.npz") as inputs:
        try:
            outputs = model.run(dict(inputs))
        except irpool.IRError as error:
            pytest.fail(f"{_what(case)}: irpool cannot run it: {error}")
    with np.load(CORPUS / name / "outputs.npz") as expected:
        assert sorted(outputs) == sorted(expected.files), _what(case)
        for key, spec in case["outputs"].items():
            where = f"{_what(case)}, output {key!r}"
            assert outputs[key].dtype == expected[key].dtype, where
            if spec.get("exact"):
                np.testing.assert_array_equal(outputs[key], expected[key], err_msg=where)
            else:
                np.testing.assert_allclose(
                    outputs[key], expected[key], spec["rtol"], spec["atol"], err_msg=where
                )


def test_the_cli_validates_the_whole_corpus_with_exit_0() -> None:
    result = CliRunner().invoke(cli, ["validate", "--format", "concise", str(CORPUS)])
    assert result.exit_code == 0, result.output
    assert "IR202" not in result.output


def test_corpus_holds_what_the_issue_lists() -> None:
    types = {kind for case in CASES.values() for kind in case["layer_types"]}
    for needed in ("MaxPool-opset1", "MaxPool-opset8", "MaxPool-opset14", "AdaptiveMaxPool-opset8",
                   "AdaptiveAvgPool-opset8", "ReduceMean-opset1", "ReduceMax-opset1",
                   "Reshape-opset1", "Convert-opset1"):  # fmt: skip
        assert needed in types, needed
    sources = [case["name"].split("_")[0] for case in CASES.values()]
    assert {"torch", "onnx"} <= set(sources)
    assert {True, False} == {case["compress_to_fp16"] for case in CASES.values()}
    declared = [spec["declared_shape"] for c in CASES.values() for spec in c["inputs"].values()]
    assert any("?" in shape for shape in declared) and any("?" not in s for s in declared)
    element_types = {spec["element_type"] for c in CASES.values() for spec in c["inputs"].values()}
    assert {"float32", "float16", "uint8", "int8", "int32"} <= element_types
    on_disk = sum(path.stat().st_size for path in CORPUS.rglob("*") if path.is_file())
    assert on_disk < 3 * 2**20
