"""OpenVINO's runs for `compare`: a refusal becomes OpenVINOError with OpenVINO's own words,
and probed tensors come back keyed by irpool's (layer id, output index)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irpool
from irpool.compare.openvino_runs import F32, OpenVINOError, import_openvino, run_openvino

ROOT = Path(__file__).resolve().parents[2]
POOL = ROOT / "examples" / "valid" / "avgpool1_4d.xml"  # "input" f32 [1,2,5,5]
CHAIN = ROOT / "examples" / "valid" / "chain_avgpool_adaptive.xml"


@pytest.mark.oracle
def test_a_refusal_says_what_openvino_says_without_its_source_lines() -> None:
    openvino = pytest.importorskip("openvino")
    wrong = {"input": np.zeros((1, 2, 5, 4), np.float32)}
    with pytest.raises(OpenVINOError) as raised:
        run_openvino(openvino, POOL, None, wrong, (), F32)
    message = str(raised.value)
    assert "got [1,2,5,4] expecting [1,2,5,5]" in message
    assert "Exception from" not in message and "\n" not in message


@pytest.mark.oracle
def test_probes_come_back_by_layer_id_and_output_index() -> None:
    pytest.importorskip("openvino")
    model = irpool.load(CHAIN)
    x = np.random.default_rng(3).standard_normal((1, 3, 32, 32)).astype(np.float32)
    probes = [(tensor.layer, tensor.index) for tensor in model.tensors]
    run = run_openvino(import_openvino(), CHAIN, None, {"input": x}, probes, F32)
    assert run.precision == "f32"
    assert sorted(run.tensors) == sorted(tensor.ref for tensor in model.tensors)
    assert list(run.outputs) == ["output"]  # by Result layer name
    _, tensors = model.run({0: x}, intermediates=True)
    for tensor in model.tensors:
        np.testing.assert_allclose(run.tensors[tensor.ref], tensors[tensor.name], rtol=1e-5)
    np.testing.assert_array_equal(run.outputs["output"], run.tensors[model.tensors[-1].ref])
