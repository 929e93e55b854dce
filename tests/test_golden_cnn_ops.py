"""The golden vectors of the CNN classifier ops are complete and loadable.

tests/golden_cnn_ops/ holds, per case, the inputs and the CPU plugin's outputs
(INFERENCE_PRECISION_HINT=f32), written by `python tools/measure_cnn_ops.py --golden
tests/golden_cnn_ops` (docs/measurements.md#golden-vectors says what they show). The kernels are
checked
against them in tests/execute/; this test keeps the files complete.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

GOLDEN = Path(__file__).resolve().parent / "golden_cnn_ops"
INDEX: dict[str, Any] = json.loads((GOLDEN / "index.json").read_text())
CASES: list[dict[str, Any]] = INDEX["cases"]
# Every op type (and version) the CNN classifier measurements cover (docs/measurements.md).
REQUIRED_OPS = {
    "Convolution-1", "GroupConvolution-1", "ReLU-1", "Clamp-1", "Sigmoid-1", "Swish-4",
    "HSwish-4", "HSigmoid-5", "Add-1", "Multiply-1", "Subtract-1", "Divide-1", "Floor-1",
    "Mod-1", "Greater-1", "Power-1", "Concat-1", "MatMul-1", "Transpose-1", "Gather-8",
    "ShapeOf-1", "ShapeOf-3", "VariadicSplit-1", "SoftMax-8", "Sqrt-1",
}  # fmt: skip


def test_index_names_every_file_once() -> None:
    names = [case["name"] for case in CASES]
    assert len(names) == len(set(names))
    on_disk = {path.stem for path in GOLDEN.glob("*.npz")}
    assert on_disk == set(names)
    assert {path.name for path in GOLDEN.iterdir()} == {f"{name}.npz" for name in names} | {
        "index.json"
    }


def test_golden_set_is_small_and_covers_every_op() -> None:
    assert sum(path.stat().st_size for path in GOLDEN.iterdir()) < 2_000_000
    assert {case["op"] for case in CASES} == REQUIRED_OPS
    assert INDEX["config"] == {"INFERENCE_PRECISION_HINT": "f32"}
    assert INDEX["openvino"].startswith("2026.4")


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_case_arrays_match_the_index(case: dict[str, Any]) -> None:
    with np.load(GOLDEN / f"{case['name']}.npz") as arrays:
        for kind in ("input", "output"):
            declared = case[f"{kind}s"]
            assert declared, f"{case['name']} has no {kind}s"
            keys = sorted(key for key in arrays.files if key.startswith(kind))
            assert keys == [f"{kind}{i}" for i in range(len(declared))]
            for i, spec in enumerate(declared):
                array = arrays[f"{kind}{i}"]
                assert list(array.shape) == spec["shape"]
                assert str(array.dtype) == spec["dtype"]


def test_float_inputs_hold_non_finite_values() -> None:
    """Each op with a float input has at least one case whose inputs hold NaN and ±inf."""
    covered: set[str] = set()
    for case in CASES:
        with np.load(GOLDEN / f"{case['name']}.npz") as arrays:
            floats = [
                arrays[key] for key in arrays.files if key.startswith("input")
                if arrays[key].dtype.kind == "f"
            ]  # fmt: skip
        values = np.concatenate([array.ravel() for array in floats]) if floats else np.array([])
        if np.isnan(values).any() and np.isposinf(values).any() and np.isneginf(values).any():
            covered.add(case["op"])
    assert covered == REQUIRED_OPS
