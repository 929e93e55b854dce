"""The CPU refusals (the IR214 family, irpool/cpu/refusals.py) against the CPU plugin itself.

Each model is built with OpenVINO's builders, judged by read_model, compile_model and a run in
a worker process (a crash is a verdict, not a lost test run), and by `irpool validate`: irpool
reports the rule exactly where the plugin refuses the model."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

import irpool
from irpool.rules import CPU_FAILURE_STAGES, FAMILIES, RULES
from tests.rule_fixtures import FIXTURES, fixture_code, refused_on_this_host

ov = pytest.importorskip("openvino")
from tests.differential.openvino_worker import Oracle  # noqa: E402  (needs openvino)

o1, o8, o14 = ov.opset1, ov.opset8, ov.opset14
pytestmark = pytest.mark.oracle


@pytest.fixture(scope="module")
def oracle() -> Iterator[Oracle]:
    judge = Oracle()
    yield judge
    judge.close()


def refusals(path: Path) -> set[str]:
    """The CPU refusals irpool reports for a file."""
    return {d.code for d in irpool.load(path).validate()} & FAMILIES["IR214"]


def saved(model: object, path: Path, edit: Callable[[str], str] = lambda text: text) -> Path:
    ov.save_model(model, path, compress_to_fp16=False)
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    return path


CPU_FIXTURES = [
    path for path in FIXTURES if RULES[fixture_code(path)].runtime in CPU_FAILURE_STAGES
]


@pytest.mark.parametrize("path", CPU_FIXTURES, ids=[p.stem for p in CPU_FIXTURES])
def test_each_cpu_refusal_fixture_fails_where_its_rule_says(
    path: Path, oracle: Oracle, tmp_path: Path
) -> None:
    rule = RULES[fixture_code(path)]
    verdict = oracle.judge(path, run=tmp_path / "run.npz")
    if not refused_on_this_host(path):
        assert verdict.stage is None, f"this host's CPU plugin fails at {verdict.stage}"
        return
    assert verdict.stage in CPU_FAILURE_STAGES[rule.runtime], (
        f"{rule.code} claims the CPU plugin {rule.runtime}, but it "
        + (f"fails at {verdict.stage}: {verdict.message}" if verdict.stage else "runs it")
    )


def pooling(kind: str, indices: bool) -> object:
    """A pooling of f32 [1,2,9,9] with strides 2,1 (a wrapped stride is written in after)."""
    data = o1.parameter([1, 2, 9, 9], np.float32, name="x")
    if kind == "AvgPool-1":
        out = [o1.avg_pool(data, [2, 1], [1, 0], [0, 1], [3, 3], True, "ceil").output(0)]
    elif kind == "MaxPool-1":
        out = [o1.max_pool(data, [2, 1], [1, 0], [0, 1], [3, 3], "ceil").output(0)]
    else:
        make = o8.max_pool if kind == "MaxPool-8" else o14.max_pool
        pool = make(data, [2, 1], [2, 1], [1, 0], [0, 1], [3, 3], "ceil", "explicit", "i32", 2)
        out = list(pool.outputs()) if indices else [pool.output(0)]
    return ov.Model(out, [data], "m")


@pytest.mark.parametrize(
    ("kind", "indices"),
    [
        ("AvgPool-1", False),
        ("MaxPool-1", False),
        ("MaxPool-8", False),
        ("MaxPool-8", True),  # the reference code runs it
        ("MaxPool-14", False),
        ("MaxPool-14", True),
    ],
)
@pytest.mark.parametrize("strides", ["2, -1", "-1, 2"])
def test_a_wrapped_stride_is_refused_where_the_cpu_cannot_compile(
    kind: str, indices: bool, strides: str, oracle: Oracle, tmp_path: Path
) -> None:
    path = saved(
        pooling(kind, indices),
        tmp_path / "pool.xml",
        lambda text: text.replace('strides="2, 1"', f'strides="{strides}"'),
    )
    verdict = oracle.judge(path, run=tmp_path / "run.npz")
    assert verdict.stage in (None, "compile"), verdict.message
    assert refusals(path) == ({"IR603"} if verdict.stage else set())


def mat_mul(data: list[int], weights: str, after: str) -> object:
    """A MatMul of f32 `data` by a vector of its last dim (a Const, a [K,1] Const or a
    Parameter), then `after`: a Multiply by a constant (either operand order), by a
    Parameter, an Add of a constant, or nothing."""
    x = o1.parameter(data, np.float32, name="x")
    params = [x]
    depth = data[-1]
    if weights == "parameter":
        vector = o1.parameter([depth], np.float32, name="w")
        params.append(vector)
    else:
        shape = [depth] if weights == "vector" else [depth, 1]
        vector = o1.constant(np.full(shape, 0.5, np.float32))
    out = o1.matmul(x, vector, False, False)
    factor = o1.constant(np.array(1.5, np.float32))
    if after == "multiply":
        out = o1.multiply(out, factor)
    elif after == "multiplied":
        out = o1.multiply(factor, out)
    elif after == "multiply-parameter":
        scale = o1.parameter([], np.float32, name="s")
        params.append(scale)
        out = o1.multiply(out, scale)
    elif after == "add":
        out = o1.add(out, factor)
    return ov.Model([out], params, "m")


@pytest.mark.parametrize("data", [[5], [4, 5], [3, 4, 5], [2, 3, 4, 5]], ids=str)
@pytest.mark.parametrize("weights", ["vector", "column", "parameter"])
@pytest.mark.parametrize("after", ["multiply", "multiplied", "multiply-parameter", "add", "none"])
def test_the_matmul_multiply_fusion_is_refused_where_compiling_fails(
    data: list[int], weights: str, after: str, oracle: Oracle, tmp_path: Path
) -> None:
    path = saved(mat_mul(data, weights, after), tmp_path / "mat_mul.xml")
    verdict = oracle.judge(path, run=tmp_path / "run.npz")
    assert verdict.stage in (None, "compile"), verdict.message
    assert refusals(path) == ({"IR619"} if verdict.stage else set())


@pytest.mark.parametrize("data", [[-1, 4], [3, -1], [3, 4], [-1], [-1, -1, 4]], ids=str)
@pytest.mark.parametrize("weights", [[2, 4, 5], [1, 4, 5], [4, 5], [2, 2, 4, 5]], ids=str)
@pytest.mark.parametrize("constant", [True, False])
def test_a_batched_constant_is_refused_where_compiling_fails(
    data: list[int], weights: list[int], constant: bool, oracle: Oracle, tmp_path: Path
) -> None:
    x = o1.parameter(ov.PartialShape(data), np.float32, name="x")
    params = [x]
    if constant:
        w = o1.constant(np.full(weights, 0.5, np.float32))
    else:
        w = o1.parameter(weights, np.float32, name="w")
        params.append(w)
    model = ov.Model([o1.matmul(x, w, False, False)], params, "m")
    path = saved(model, tmp_path / "mat_mul.xml")
    verdict = oracle.judge(path)
    assert verdict.stage in (None, "compile"), verdict.message
    assert refusals(path) == ({"IR620"} if verdict.stage else set())


@pytest.mark.parametrize(
    ("data", "stop", "step"),
    [
        ([5], [0], np.array([-(2**31)], np.int32)),
        ([5], [0], np.array([-(2**31)], np.int64)),
        ([5], [0], np.array([-(2**31) - 1], np.int64)),
        ([5], [0], np.array([-(2**63)], np.int64)),
        ([5], [0], np.array([-(2**31) + 1], np.int32)),
        ([5], [0], np.array([-(2**15)], np.int16)),
        ([5], [4], np.array([-(2**31)], np.int32)),  # empty
        ([3, 5], [3, 0], np.array([1, -(2**31)], np.int32)),
        ([3, 5], [0, 0], np.array([1, -(2**31)], np.int32)),  # axis 0 empty
        ([ov.Dimension(2, 4)], [0], np.array([-(2**31)], np.int32)),  # fails at inference
    ],
    ids=str,
)
def test_a_minimum_slice_step_is_refused_where_the_plugin_crashes(
    data: list[object], stop: list[int], step: np.ndarray, oracle: Oracle, tmp_path: Path
) -> None:
    x = o1.parameter(ov.PartialShape(data), np.float32, name="x")
    start = o1.constant(np.array([0, 4][-len(stop) :], step.dtype))
    model = ov.Model(
        [o8.slice(x, start, o1.constant(np.array(stop, step.dtype)), o1.constant(step))], [x], "m"
    )
    path = saved(model, tmp_path / "slice.xml")
    verdict = oracle.judge(path, run=tmp_path / "run.npz")
    assert verdict.stage in (None, "compile", "crash"), verdict.message
    assert refusals(path) == ({"IR621"} if verdict.stage else set())


def clamped_product(
    producer: str, element_type: type, bounds: tuple[float, float], product_returned: bool
) -> object:
    """A Clamp of a MatMul's, Convolution's, GroupConvolution's or Add's output on
    [1,2,3,3] data, the product returned too or not."""
    x = o1.parameter([1, 2, 3, 3], element_type, name="x")
    if producer == "MatMul":
        product = o1.matmul(x, o1.constant(np.ones((3, 3), element_type)), False, False)
    elif producer == "Convolution":
        weights = o1.constant(np.ones((2, 2, 1, 1), element_type))
        product = o1.convolution(x, weights, [1, 1], [0, 0], [0, 0], [1, 1])
    elif producer == "GroupConvolution":
        weights = o1.constant(np.ones((2, 1, 1, 1, 1), element_type))
        product = o1.group_convolution(x, weights, [1, 1], [0, 0], [0, 0], [1, 1])
    else:
        product = o1.add(x, o1.constant(np.ones((1, 2, 3, 3), element_type)))
    outputs = [o1.clamp(product, *bounds)] + ([product] if product_returned else [])
    return ov.Model(outputs, [x], "m")


@pytest.mark.parametrize("producer", ["MatMul", "Convolution", "GroupConvolution", "Add"])
@pytest.mark.parametrize("element_type", [np.uint8, np.int32, np.float32], ids=str)
@pytest.mark.parametrize("bounds", [(0.5, 0.7), (-0.7, -0.5), (1.0, 1.0)], ids=str)
@pytest.mark.parametrize("product_returned", [False, True])
def test_a_fused_integer_clamp_with_crossed_bounds_is_refused_where_compiling_fails(
    producer: str,
    element_type: type,
    bounds: tuple[float, float],
    product_returned: bool,
    oracle: Oracle,
    tmp_path: Path,
) -> None:
    model = clamped_product(producer, element_type, bounds, product_returned)
    path = saved(model, tmp_path / "clamp.xml")
    verdict = oracle.judge(path, run=tmp_path / "run.npz")
    assert verdict.stage in (None, "compile"), verdict.message
    assert refusals(path) == ({"IR622"} if verdict.stage else set())
