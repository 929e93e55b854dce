"""Live differential test: Gather-1, -7 and -8 whose axis is computed, not a Const, against
OpenVINO's CPU plugin (docs/ops/Gather.md#a-computed-axis).

Configuration #n (`random_config(n)`) gathers from data of rank 1 to 4 (static, or with a
dynamic or interval dim) by indices (a Const, or a Parameter of static or dynamic shape), the
axis computed by one of `AXES`: what OpenVINO folds at compile time (a Convert or a sum of
Consts, a ShapeOf of a static input, a static dim of a dynamic one, an interval dim's value
its bounds pin) and what only the run knows (a Parameter, a Convert of one, a dynamic dim, an
interval dim less itself). The model is built with OpenVINO's op
builders and saved as IR. Verdict: irpool reports IR614 exactly where the CPU plugin cannot
compile or run the model (Gather-1 with static shapes may kill the process: those are
compiled first in a worker process, restarted after a crash). Runs: every model the CPU
runs, on seeded data holding NaN, ±inf and extremes, equal bit for bit. IRPOOL_TEST_SCALE
scales the number of configurations (default 300).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from tests.differential.harness import NUMPY, PER_OP, random_input
from tests.differential.openvino_worker import Oracle
from tests.differential.single_layer import CPU_CONFIG, same

ov = pytest.importorskip("openvino")
ops = pytest.importorskip("openvino.opset8")
opset1 = pytest.importorskip("openvino.opset1")
opset7 = pytest.importorskip("openvino.opset7")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-gather-axis-1"
FOLDED = ("convert const", "sum of consts", "static shape", "static dim of a dynamic shape")
FOLDED += ("interval pinned by bounds",)  # (2..5 mod 1) + axis
RUN_TIME = ("parameter", "convert parameter", "dynamic dim", "interval less itself")
AXES = FOLDED + RUN_TIME
TYPES = ("f32", "f32", "f16", "i32", "i64", "u8")
# The crash guard for Gather-1 with static shapes: one worker process for the sweep
# (tests/differential/openvino_worker.py restarts it after a crash and confirms the crash in a
# fresh one), instead of a process per model.
GUARD = """
import json, sys
sys.modules.setdefault("openvino_telemetry", None)
import numpy as np, openvino as ov
core = ov.Core()
for line in sys.stdin:
    request = json.loads(line)
    answer = {{"stage": None, "message": ""}}
    try:
        compiled = core.compile_model(core.read_model(request["path"]), "CPU", {config!r})
        compiled.create_infer_request().infer(dict(np.load(request["run"])))
    except Exception as error:
        answer = {{"stage": "compile", "message": str(error)}}
    print(json.dumps(answer), flush=True)
"""


@dataclass(frozen=True)
class Config:
    index: int
    version: int
    axis_kind: str
    axis: int  # the axis the computation gives (in range)
    data_type: str
    dims: tuple[int, ...]  # the data fed
    dynamic_data: int | None  # the data dim written dynamic (None: static data)
    indices: tuple[int, ...]  # indices' shape; values in range
    indices_input: str  # "const", "static" or "dynamic" Parameter
    batch_dims: int

    def describe(self) -> str:
        return (
            f"#{self.index} Gather-{self.version} axis {self.axis} by {self.axis_kind} on "
            f"{self.data_type}{list(self.dims)} (dynamic dim {self.dynamic_data}), indices "
            f"{self.indices_input}{list(self.indices)}, batch_dims {self.batch_dims}"
        )

    @property
    def static(self) -> bool:
        dynamic_indices = self.indices_input == "dynamic" and len(self.indices) > 0
        return self.dynamic_data is None and not dynamic_indices


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    rank = rng.choice((1, 2, 2, 3, 3, 4))
    dims = tuple(rng.randint(2, 4) for _ in range(rank))
    version = rng.choice((8, 8, 7, 1, 1))
    batch_dims = 1 if version > 1 and rank > 1 and rng.random() < 0.2 else 0
    axis = rng.randint(batch_dims, rank - 1)
    kind = rng.choice(AXES)
    if kind in ("parameter", "convert parameter") and rng.random() < 0.5:
        axis -= rank  # counted from the end
    indices = dims[:batch_dims] + tuple(rng.randint(1, 3) for _ in range(rng.choice((0, 1, 2))))
    return Config(
        index,
        version,
        kind,
        axis,
        rng.choice(TYPES),
        dims,
        rng.randint(0, rank - 1) if rng.random() < 0.4 else None,
        indices,
        rng.choice(("const", "const", "static", "dynamic")),
        batch_dims,
    )


def _constant(value: Any, dtype: Any = np.int64) -> Any:
    return ops.constant(np.array(value, dtype))


def _axis(config: Config, parameters: list[Any], feeds: dict[str, NDArray[Any]]) -> Any:
    """The axis computation, its Parameters and what a run feeds them."""
    kind, axis = config.axis_kind, config.axis
    if kind == "convert const":
        return ops.convert(_constant(axis, np.int32), "i64")
    if kind == "sum of consts":
        return ops.add(_constant(axis - 1), _constant(1))
    if kind in ("parameter", "convert parameter"):
        dtype = np.int32 if kind == "convert parameter" else np.int64
        shape = [] if config.index % 2 else [1]
        parameter = ops.parameter(shape, dtype, name=f"axis{config.index}")
        parameters.append(parameter)
        feeds[f"axis{config.index}"] = np.array(axis, dtype).reshape(shape)
        return ops.convert(parameter, "i64") if kind == "convert parameter" else parameter
    if kind.startswith("interval"):
        parameter = ops.parameter([ov.Dimension(2, 5)], np.float32, name=f"aux{config.index}")
        parameters.append(parameter)
        feeds[f"aux{config.index}"] = np.zeros(3, np.float32)
        dim = ops.gather(ops.shape_of(parameter), _constant(0), _constant(0))
        nothing = ops.mod(dim, _constant(1)) if "pinned" in kind else ops.subtract(dim, dim)
        return ops.add(nothing, _constant(axis))
    length = axis + 2  # a dim the shape subgraph reads, less 2
    shape = {"static shape": [length], "static dim of a dynamic shape": [-1, length]}
    parameter = ops.parameter(shape.get(kind, [-1]), np.float32, name=f"aux{config.index}")
    parameters.append(parameter)
    feeds[f"aux{config.index}"] = np.zeros(
        (3, length) if "dynamic shape" in kind else length, np.float32
    )
    position = 1 if kind == "static dim of a dynamic shape" else 0
    dim = ops.gather(ops.shape_of(parameter), _constant(position), _constant(0))
    return ops.subtract(dim, _constant(2))


def build(config: Config) -> tuple[Any, dict[str, NDArray[Any]]]:
    """The model and its inputs."""
    feeds: dict[str, NDArray[Any]] = {}
    declared = list(config.dims)
    if config.dynamic_data is not None:
        declared[config.dynamic_data] = -1
    data = ops.parameter(declared, NUMPY[config.data_type], name=f"data{config.index}")
    feeds[f"data{config.index}"] = random_input(config.index, config.data_type, config.dims)
    length = config.dims[config.axis % len(config.dims)]
    picks = np.random.default_rng(config.index).integers(0, length, config.indices)
    parameters = [data]
    if config.indices_input == "const":
        indices = _constant(picks)
    else:
        shape = [-1] * len(picks.shape) if config.indices_input == "dynamic" else picks.shape
        indices = ops.parameter(list(shape), np.int64, name=f"indices{config.index}")
        parameters.append(indices)
        feeds[f"indices{config.index}"] = picks
    axis = _axis(config, parameters, feeds)
    if config.version == 1:
        gather = opset1.gather(data, indices, axis)
    else:
        make = opset7.gather if config.version == 7 else ops.gather
        gather = make(data, indices, axis, config.batch_dims)
    gather.output(0).get_tensor().set_names({f"out{config.index}"})
    return ov.Model([gather], parameters), feeds


def _cpu_runs(
    config: Config, path: Path, feeds: dict[str, NDArray[Any]], core: Any, guard: Oracle
) -> NDArray[Any] | None:
    """The CPU plugin's output, None when it cannot compile or run the model (Gather-1 with
    static shapes first in the guard's worker process: it may kill the process)."""
    if config.version == 1 and config.static:
        np.savez(path.with_suffix(".npz"), **feeds)
        verdict = guard.judge(path, run=path.with_suffix(".npz"))
        assert verdict.stage != "timeout", f"{config.describe()}: {verdict.message}"
        if verdict.rejected:
            return None
    try:
        compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
        result = compiled.create_infer_request().infer(feeds)
    except RuntimeError:
        return None
    return np.asarray(next(iter(result.values())))


@dataclass
class Outcome:
    config: Config
    cpu_runs: bool
    irpool_refuses: bool
    problem: str | None


def check(config: Config, directory: Path, core: Any, guard: Oracle) -> Outcome:
    model, feeds = build(config)
    path = directory / f"gather{config.index}.xml"
    ov.save_model(model, path, compress_to_fp16=False)
    theirs = _cpu_runs(config, path, feeds, core, guard)
    loaded = irpool.load(path)
    errors = [d.code for d in loaded.validate() if d.severity.value == "error"]
    refuses = errors == ["IR614"]
    problem = None
    if errors and not refuses:
        problem = f"irpool reports {errors}"
    elif (theirs is None) != refuses:
        problem = f"the CPU {'fails' if theirs is None else 'runs'}, irpool refuses: {refuses}"
    elif theirs is not None:
        ours = loaded.run(dict(feeds))[f"out{config.index}"]
        if not same(ours, theirs):
            problem = f"irpool {ours.ravel()[:6]} {ours.shape}, CPU {theirs.ravel()[:6]}"
    return Outcome(config, theirs is not None, refuses, problem)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    directory = tmp_path_factory.mktemp("gather_axis")
    core, guard = ov.Core(), Oracle(GUARD.format(config=CPU_CONFIG))
    try:
        return [check(random_config(i), directory, core, guard) for i in range(PER_OP)]
    finally:
        guard.close()


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        counts["runs" if outcome.cpu_runs else "fails"] += 1
        counts[f"run-time axis {'runs' if outcome.cpu_runs else 'fails'}"] += (
            outcome.config.axis_kind in RUN_TIME
        )
        counts[f"Gather-{outcome.config.version} fails"] += not outcome.cpu_runs
    minimum = {"runs": PER_OP // 2, "run-time axis runs": PER_OP // 10}
    minimum |= {"run-time axis fails": PER_OP // 10, "Gather-1 fails": PER_OP // 50}
    assert {k: counts[k] for k, v in minimum.items() if counts[k] < v} == {}, counts


def test_verdicts_and_runs_match_openvino(outcomes: list[Outcome]) -> None:
    failing = [o for o in outcomes if o.problem]
    shown = "\n".join(f"{o.config.describe()}: {o.problem}" for o in failing[:12])
    assert not failing, f"{len(failing)} of {len(outcomes)} configurations disagree:\n{shown}"
