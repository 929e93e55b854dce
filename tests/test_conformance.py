"""irpool run on the conformance corpus: models saved by OpenVINO, the CPU plugin's outputs.

The corpus is produced by tools/gen_conformance.py with the real runtime (CPU,
INFERENCE_PRECISION_HINT=f32); this test needs only irpool. Where the CPU plugin is known to
depart from the semantics irpool implements, the case carries `known_cpu_deviation` and the
test checks that the difference is really there, so it stays recorded rather than hidden.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irpool

CORPUS = Path(__file__).resolve().parent / "conformance"
INDEX: dict[str, Any] = json.loads((CORPUS / "index.json").read_text())
CASES = {case["name"]: case for case in INDEX["cases"]}
# Models OpenVINO runs but irpool refuses, because they do not say exactly what runs.
REFUSED = {"adaptive8_r3_to0_size_i64_empty": "IR304"}  # output_size 0: an empty output


def _agrees(actual: np.ndarray, expected: np.ndarray, rtol: float, atol: float) -> bool:
    expected = np.where(np.isnan(expected), 0, expected)  # the CPU's NaN for empty windows
    if actual.shape != expected.shape:
        return False
    wide_actual, wide_expected = actual.astype(np.float64), expected.astype(np.float64)
    return bool(np.all(np.abs(wide_actual - wide_expected) <= atol + rtol * np.abs(wide_expected)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_outputs_agree_with_the_cpu_plugin(name: str) -> None:
    case = CASES[name]
    model = irpool.load(CORPUS / name / "model.xml")
    if name in REFUSED:
        assert {d.code for d in model.validate()} == {REFUSED[name]}
        with pytest.raises(irpool.InvalidModelError):
            model.run({})
        return
    with np.load(CORPUS / name / "inputs.npz") as inputs:
        outputs = model.run(dict(inputs))
    with np.load(CORPUS / name / "outputs.npz") as expected:
        assert sorted(outputs) == sorted(expected.files)
        verdicts = {}
        for result, spec in case["outputs"].items():
            assert outputs[result].dtype == expected[result].dtype, result
            verdicts[result] = _agrees(
                outputs[result], expected[result], spec["rtol"], spec["atol"]
            )
    if case.get("known_cpu_deviation"):
        assert not all(verdicts.values()), f"no longer deviates: {case['known_cpu_deviation']}"
    else:
        assert all(verdicts.values()), verdicts


def test_corpus_covers_what_the_issue_asks() -> None:
    descriptions = " ".join(case["description"] for case in INDEX["cases"])
    for needed in (
        "AvgPool-1",
        "AvgPool-14",
        "AvgPool-16",
        "AdaptiveAvgPool-8",
        "same_upper",
        "same_lower",
        "valid",
        "ceil_torch",
        "f16",
        "f64",
        "i32",
    ):
        assert needed in descriptions, needed
    ranks = {len(spec["shape"]) for c in INDEX["cases"] for spec in c["inputs"].values()}
    assert {3, 4, 5} <= ranks
    assert any(len(case["inputs"]) == 2 and len(case["outputs"]) == 2 for case in INDEX["cases"])
    assert any(
        "?" in spec["declared_shape"] for c in INDEX["cases"] for spec in c["inputs"].values()
    )
