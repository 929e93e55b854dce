"""Live differential property: ReduceMax with NaN, irpool against the CPU plugin, wherever irpool
knows the CPU's scan order (`scan_run` is not None: sequential, or runs of a vector or more
scanned in SIMD lanes, 16 on AVX-512 and 8 with AVX2; docs/ops/ReduceMax.md#the-cpus-scan).

Hypothesis draws the shape (ranks 2 to 4, dims around the lane width), the reduced axes and
where NaN and -inf sit; each example is one model compiled on the CPU (f32 inference
precision). tests/differential/test_reduce.py covers the rest of ReduceMax and ReduceMean.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irpool
from irpool.execute.kernels.reduce_order import scan_run
from tests.differential.oracle_batch import CPU_CONFIG
from tests.scale import examples

ov = pytest.importorskip("openvino")
opset1 = pytest.importorskip("openvino.opset1")

pytestmark = pytest.mark.oracle

DIMS = (1, 2, 3, 5, 15, 16, 17, 20, 33)


@st.composite
def configurations(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...], np.ndarray]:
    shape = tuple(draw(st.lists(st.sampled_from(DIMS), min_size=2, max_size=4)))
    axes = tuple(sorted(draw(st.sets(st.integers(0, len(shape) - 1), min_size=1))))
    seed = draw(st.integers(0, 2**32 - 1))
    nan_share = draw(st.sampled_from((0.01, 0.05, 0.2, 0.5)))
    rng = np.random.default_rng(seed)
    data = rng.standard_normal(shape).astype(np.float32)
    data[rng.random(shape) < nan_share] = np.nan
    data[rng.random(shape) < 0.02] = -np.inf
    return shape, axes, data


@settings(
    max_examples=examples(80),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(configuration=configurations(), dtype=st.sampled_from((np.float32, np.float16)))
def test_reduce_max_with_nan_matches_the_cpu(
    tmp_path: Path,
    configuration: tuple[tuple[int, ...], tuple[int, ...], np.ndarray],
    dtype: type,
) -> None:
    shape, axes, data = configuration
    if scan_run(shape, axes) is None:
        return  # recorded as not reproduced
    data = data.astype(dtype)
    parameter = opset1.parameter(list(shape), dtype, name="in0")
    axes_const = opset1.constant(np.array(axes, np.int64))
    reduce = opset1.reduce_max(parameter, axes_const, False)
    reduce.output(0).get_tensor().set_names({"out0"})
    path = tmp_path / "reduce_max.xml"
    ov.save_model(ov.Model([reduce], [parameter]), path, compress_to_fp16=False)
    compiled = ov.Core().compile_model(path, "CPU", CPU_CONFIG)
    theirs = compiled.create_infer_request().infer({0: data})[compiled.output(0)]
    ours = irpool.load(path).run({"in0": data})["out0"]
    assert np.array_equal(ours, theirs, equal_nan=True), f"{shape} axes {axes}"
