"""The shape and index ops' kernels reproduce the CPU plugin's golden vectors bit for bit
(tests/golden_cnn_ops/, written by tools/measure_cnn_ops.py:
docs/measurements.md#golden-vectors)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from irpool.execute.registry import OutputSpec, kernel_of
from irpool.ops.base import Op
from irpool.ops.concat import Concat1
from irpool.ops.gather import Gather8
from irpool.ops.shape_of import ShapeOf1, ShapeOf3
from irpool.ops.transpose import Transpose1
from irpool.ops.variadic_split import VariadicSplit1

GOLDEN = Path(__file__).resolve().parents[1] / "golden_cnn_ops"
CASES = [
    case
    for case in json.loads((GOLDEN / "index.json").read_text())["cases"]
    if case["op"].split("-")[0] in ("Concat", "Transpose", "Gather", "ShapeOf", "VariadicSplit")
]
TYPES = {"float32": "f32", "int32": "i32", "int64": "i64"}


def op_and_inputs(case: dict[str, Any], arrays: list[Any]) -> tuple[Op, list[Any]]:
    attributes = case["attributes"]
    kind = case["op"]
    if kind == "Concat-1":
        return Concat1({"axis": attributes["axis"]}), arrays
    if kind == "Transpose-1":
        return Transpose1({}), arrays
    if kind == "Gather-8":
        axis = np.array(attributes["axis (Const)"], np.int64)
        return Gather8({"batch_dims": attributes["batch_dims"]}), [*arrays, axis]
    if kind == "ShapeOf-1":
        return ShapeOf1({}), arrays
    if kind == "ShapeOf-3":
        return ShapeOf3({"output_type": attributes["output_type"]}), arrays
    assert kind == "VariadicSplit-1"
    axis = np.array(attributes["axis (Const)"], np.int64)
    lengths = np.array(attributes["split_lengths (Const)"], np.int64)
    return VariadicSplit1({}), [*arrays, axis, lengths]


def test_every_shape_op_has_golden_cases() -> None:
    assert {case["op"] for case in CASES} == {
        "Concat-1", "Transpose-1", "Gather-8", "ShapeOf-1", "ShapeOf-3", "VariadicSplit-1"
    }  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_kernel_reproduces_the_cpu(case: dict[str, Any]) -> None:
    with np.load(GOLDEN / f"{case['name']}.npz") as stored:
        inputs = [stored[f"input{i}"] for i in range(len(case["inputs"]))]
        expected = [stored[f"output{i}"] for i in range(len(case["outputs"]))]
    op, arrays = op_and_inputs(case, inputs)
    kernel = kernel_of(op)
    assert kernel is not None
    specs = [OutputSpec.of(TYPES[str(e.dtype)]) for e in expected]
    produced = kernel(op, arrays, specs)
    for ours, theirs in zip(produced, expected, strict=True):
        assert ours is not None
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        assert ours.tobytes() == theirs.tobytes()
