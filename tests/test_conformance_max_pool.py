"""irpool run on the MaxPool conformance corpus: models saved by OpenVINO and the CPU plugin's
values and indices (tools/gen_max_pool_conformance.py), reproduced exactly, NaN for NaN."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import irpool

CORPUS = Path(__file__).resolve().parent / "conformance_max_pool"
CASES = [case["name"] for case in json.loads((CORPUS / "index.json").read_text())["cases"]]


@pytest.mark.parametrize("name", CASES)
def test_outputs_equal_the_cpu_plugins(name: str) -> None:
    model = irpool.load(CORPUS / name / "model.xml")
    assert not model.has_errors  # same_* files may carry the IR213 info: pads are computed
    with (
        np.load(CORPUS / name / "inputs.npz") as inputs,
        np.load(CORPUS / name / "outputs.npz") as expected,
    ):
        got = model.run(dict(inputs))
        assert set(got) == set(expected.files)
        for key in expected.files:
            assert got[key].dtype == expected[key].dtype, key
            np.testing.assert_array_equal(got[key], expected[key], err_msg=key)
