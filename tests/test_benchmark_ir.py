"""The IR files benchmarks/run.py writes for irpool are the models it times OpenVINO on.

Each workload, shrunk to small planes, is written as the benchmark writes it; OpenVINO must
read it with the output shape the benchmark declares and compute exactly what the model the
benchmark builds with OpenVINO's Python builders computes.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
pytestmark = pytest.mark.oracle

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "run.py"


def _benchmark_module() -> Any:
    spec = importlib.util.spec_from_file_location("benchmark_run", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


run = _benchmark_module()


@pytest.mark.parametrize("workload", run.WORKLOADS, ids=lambda w: w.name)
def test_the_ir_computes_what_openvino_is_timed_on(workload: Any, tmp_path: Path) -> None:
    small = replace(workload, shape=(2, 3, *[9] * workload.rank))
    core = ov.Core()
    model = core.read_model(run.write_ir(small, small.output_shape, tmp_path))
    assert model.output(0).get_partial_shape() == ov.PartialShape(list(small.output_shape))
    x = np.random.default_rng(0).random(small.shape, dtype=np.float32)
    compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    from_file = compiled(x)[0]
    from_builders = next(iter(run.openvino_bench(small, x)().values()))
    np.testing.assert_array_equal(from_file, from_builders)
