"""Live differential test: a Convert of a Const, run by irpool and by the CPU plugin.

OpenVINO folds such a Convert when it compiles, with its reference conversion (C++ casts), not
the plugin's kernel, and the plugin then holds the folded constant as any constant (i64, u32
and u64 saturated to int32, f64 as f32). irpool folds it the same way: small constants at check
time, larger ones (beyond `FOLDED_SIZE`) when it plans a run. Every source and destination type
on the edge values of tests/golden/convert_cpu.json, as a small Const and as one large enough that
the check does not fold it; a Reshape after the Convert makes the folded value flow through an
op, as in a real model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from irpool.ops.folding import FOLDED_SIZE
from tests.differential.oracle_batch import CPU_CONFIG
from tests.execute.convert_golden import PAIRS, TABLE, decoded

ov = pytest.importorskip("openvino")
opset1 = pytest.importorskip("openvino.opset1")

pytestmark = pytest.mark.oracle


def comparable(array: NDArray[Any], destination: str) -> NDArray[Any]:
    """bf16 as f32 (OpenVINO returns its raw 16 bits, irpool f32 holding bf16 values)."""
    if destination == "bf16" and array.dtype != np.float32:
        return (array.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    return array


@pytest.mark.parametrize("large", [False, True], ids=["check-folded", "plan-folded"])
@pytest.mark.parametrize(("source", "destination"), PAIRS, ids=[f"{s}-{d}" for s, d in PAIRS])
def test_folded_convert_matches_the_cpu(
    tmp_path: Path, source: str, destination: str, large: bool
) -> None:
    values = decoded(TABLE[source]["input"], source)
    if large:
        values = np.resize(values, FOLDED_SIZE + len(values))
    converted = opset1.convert(opset1.constant(values), destination)
    reshaped = opset1.reshape(converted, opset1.constant(np.array([-1], np.int64)), False)
    reshaped.output(0).get_tensor().set_names({"out0"})
    dummy = opset1.parameter([1], np.float32, name="in0")
    path = tmp_path / "folded.xml"
    ov.save_model(ov.Model([reshaped, dummy], [dummy]), path, compress_to_fp16=False)
    compiled = ov.Core().compile_model(path, "CPU", CPU_CONFIG)
    zero = np.zeros(1, np.float32)
    theirs = comparable(
        compiled.create_infer_request().infer({0: zero})[compiled.output(0)], destination
    )
    ours = irpool.load(path).run({"in0": zero})["out0"]
    assert ours.dtype == theirs.dtype
    assert np.array_equal(ours, theirs, equal_nan=ours.dtype.kind == "f"), (
        f"input {values[:40].tolist()}\nours {ours[:40].tolist()}\ncpu {theirs[:40].tolist()}"
    )
