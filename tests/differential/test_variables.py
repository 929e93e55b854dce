"""Live differential test: ReadValue-3/6 and Assign-3/6 against OpenVINO's InferRequest.

Configuration #n (rebuilt alone with `random_config(n)`) is a stateful model built with
OpenVINO's builders: a ReadValue ("ReadValue" version 3 or 6) of one variable (f32, f16, i32,
i8 or u8), with no initializer (version 6), a Const one or one computed from the input (as
optimum-intel's caches are), updated by an Add or a Multiply, or, as optimum-intel's KV
caches, reordered by a Gather of `beam_idx` along the batch and grown by a Concat along
axis 1 (declared dynamic there), and stored by an "Assign". irpool must
validate it without an error, and over several steps of one infer request, after
`reset_state()` and in `Model.run`, give OpenVINO's outputs and `query_state()` bit for bit
(OpenVINO's InferRequest, CPU plugin, f32 inference precision). The rules' verdicts (IR510 to
IR512: read_model refuses) are judged on their fixtures; the CPU's (IR638 to IR640) by
tests/test_cpu_refusals.py.

IRPOOL_TEST_SCALE scales the number of configurations (default 60).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from tests.differential.harness import CPU_CONFIG, NUMPY
from tests.rule_fixtures import FIXTURES, fixture_code
from tests.scale import examples

ov = pytest.importorskip("openvino")
from tests.differential.openvino_worker import Oracle  # noqa: E402  (needs openvino)

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-variables-1"
CONFIGS = examples(60)
TYPES = ("f32", "f32", "f16", "i32", "i8", "u8")
STEPS = 4


@dataclass(frozen=True)
class Config:
    index: int
    version: int  # of the ReadValue and the Assign
    element_type: str
    dims: tuple[int, ...]  # the input's
    dynamic: tuple[bool, ...]  # which dims the variable declares dynamic
    initializer: str  # "none", "const", "input" (twice the input) or "zeros" (its shape's)
    update: str  # "Add", "Multiply" or "Concat"

    def describe(self) -> str:
        return (
            f"#{self.index} ReadValue-{self.version} {self.element_type}{list(self.dims)} "
            f"(dynamic {self.dynamic}), initializer {self.initializer}, {self.update}"
        )


def random_config(index: int) -> Config:
    """A variable updated in place (Add, Multiply: its declared dims static or not), or a
    cache that grows (Concat along axis 1, declared dynamic there): the patterns the CPU
    plugin runs. It fails or returns uninitialized memory on others
    (docs/ops/ReadValue.md#dynamic-variables-on-the-cpu)."""
    rng = random.Random(f"{SEED}-{index}")
    dims = tuple(rng.randint(1, 3) for _ in range(rng.randint(1, 3)))
    update = rng.choice(("Add", "Multiply", "Concat"))
    version = 3 if update != "Concat" and rng.random() < 0.3 else 6
    if update == "Concat":  # optimum-intel's caches: [batch, tokens, ...], reordered by beam
        dims = (rng.randint(1, 3), *dims)
        initializer = rng.choice(("none", "const", "zeros"))
        dynamic = (False, True, *(False for _ in dims[2:]))
    else:
        initializer = rng.choice(("const", "input") if version == 3 else ("none", "const", "input"))
        dynamic = (False,) * len(dims)
    # A ReadValue-3 f16 variable the CPU holds in f32 (docs/ops/ReadValue.md#values): not
    # compared.
    types = [t for t in TYPES if version == 6 or t != "f16"]
    return Config(index, version, rng.choice(types), dims, dynamic, initializer, update)


def build(config: Config, rng: np.random.Generator) -> Any:
    o6, o3, o1 = ov.opset6, ov.opset3, ov.opset1
    dtype = NUMPY[config.element_type]
    x = o1.parameter(list(config.dims), dtype, name="x")
    beams = o1.parameter([config.dims[0]], np.int32, name="beam_idx")
    if config.initializer == "const":
        init = o1.constant(values(rng, config.element_type, config.dims))
    elif config.initializer == "input":
        init = o1.multiply(x, o1.constant(np.array(2, dtype)))
    elif config.initializer == "zeros":
        init = ov.opset3.broadcast(o1.constant(np.array(0, dtype)), ov.opset3.shape_of(x))
    else:
        init = None
    if config.version == 3:
        assert init is not None
        read = o3.read_value(init, "cache")
    else:
        shape = [
            -1 if dynamic else n for n, dynamic in zip(config.dims, config.dynamic, strict=True)
        ]
        info = ov.op.util.VariableInfo()
        info.data_shape = ov.PartialShape(shape)
        info.data_type = ov.Type(dtype)
        info.variable_id = "cache"
        variable = ov.op.util.Variable(info)
        read = o6.read_value(init, variable) if init is not None else o6.read_value(variable)
    if config.update == "Concat":  # as optimum-intel reorders a cache: Gather by beam_idx
        reordered = ov.opset8.gather(read, beams, o1.constant(np.array(0, np.int64)))
        updated = o1.concat([reordered, x], 1)
    elif config.update == "Add":
        updated = o1.add(read, x)
    else:
        updated = o1.multiply(read, x)
    assign = o3.assign(updated, "cache") if config.version == 3 else o6.assign(updated, variable)
    results = [o1.result(updated), o1.result(read)]
    parameters = [x, beams] if config.update == "Concat" else [x]
    return ov.Model(results, [assign], parameters, "stateful")


def values(rng: np.random.Generator, element_type: str, dims: tuple[int, ...]) -> NDArray[Any]:
    """Small values (products stay finite over the steps), NaN and inf among floats, each
    integer type's extremes among integers (the CPU wraps i32 and saturates u8 and i8)."""
    dtype = NUMPY[element_type]
    if np.dtype(dtype).kind == "f":
        array = rng.uniform(-3, 3, dims).astype(dtype)
        special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 65504], dtype)
    else:
        array = rng.integers(-3 if np.dtype(dtype).kind == "i" else 0, 4, dims).astype(dtype)
        limits = np.iinfo(dtype)
        special = np.array([limits.min, limits.max, 0, 1], dtype)
    flat = array.reshape(-1)
    flat[rng.random(flat.size) < 0.15] = rng.choice(special)
    return array


def step_inputs(config: Config, rng: np.random.Generator) -> dict[str, NDArray[Any]]:
    inputs = {"x": values(rng, config.element_type, config.dims)}
    if config.update == "Concat":
        inputs["beam_idx"] = rng.permutation(config.dims[0]).astype(np.int32)
    return inputs


@pytest.fixture(scope="module")
def core() -> Any:
    return ov.Core()


def outputs_by_name(request: Any, inputs: dict[str, NDArray[Any]]) -> dict[str, NDArray[Any]]:
    produced = request.infer(inputs)
    return {port.get_any_name(): np.array(value) for port, value in produced.items()}


def states(request: Any) -> dict[str, NDArray[Any]]:
    return {state.name: np.array(state.state.data) for state in request.query_state()}


def same(found: dict[str, NDArray[Any]], expected: dict[str, NDArray[Any]]) -> bool:
    return found.keys() == expected.keys() and all(
        found[key].dtype == expected[key].dtype
        and found[key].shape == expected[key].shape
        and np.array_equal(found[key], expected[key], equal_nan=found[key].dtype.kind == "f")
        for key in found
    )


@pytest.mark.parametrize("index", range(CONFIGS))
def test_steps_agree_with_openvino(index: int, core: Any, tmp_path: Path) -> None:
    config = random_config(index)
    rng = np.random.default_rng(index)
    model = build(config, rng)
    path = tmp_path / "model.xml"
    ov.save_model(model, path, compress_to_fp16=False)
    loaded = irpool.load(path)
    errors = [d for d in loaded.validate() if d.severity is irpool.Severity.ERROR]
    assert errors == [], config.describe()
    compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
    theirs, ours = compiled.create_infer_request(), loaded.create_infer_request()
    steps = [step_inputs(config, rng) for _ in range(STEPS)]
    assert same(ours.query_state(), states(theirs)), f"{config.describe()}: before any step"
    for number, inputs in enumerate(steps, 1):
        expected = outputs_by_name(theirs, inputs)
        assert same(ours.infer(inputs), expected), f"{config.describe()}: step {number}"
        assert same(ours.query_state(), states(theirs)), f"{config.describe()}: state {number}"
    theirs.reset_state()
    ours.reset_state()
    expected = outputs_by_name(theirs, steps[0])
    assert same(ours.infer(steps[0]), expected), f"{config.describe()}: after reset_state"
    assert same(loaded.run(steps[0]), expected), f"{config.describe()}: Model.run"


def test_the_configurations_cover_each_kind() -> None:
    configs = [random_config(index) for index in range(CONFIGS)]
    assert {c.version for c in configs} == {3, 6}
    assert {c.initializer for c in configs} == {"none", "const", "input", "zeros"}
    assert {c.update for c in configs} == {"Add", "Multiply", "Concat"}
    assert set(TYPES) <= {c.element_type for c in configs}


@pytest.fixture(scope="module")
def oracle() -> Iterator[Oracle]:
    judge = Oracle()
    yield judge
    judge.close()


READ_REFUSALS = [path for path in FIXTURES if fixture_code(path) in {"IR510", "IR511", "IR512"}]


@pytest.mark.parametrize("path", READ_REFUSALS, ids=[p.stem for p in READ_REFUSALS])
def test_read_model_refuses_what_the_pair_rules_report(path: Path, oracle: Oracle) -> None:
    verdict = oracle.judge(path)
    assert verdict.stage == "read", verdict.message
