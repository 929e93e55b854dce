"""Live differential test: Broadcast-1 and -3 against OpenVINO (tests/differential/single_layer.py
for the files and the shape verdicts).

Configuration #n (`random_config(n)`) broadcasts data of rank 0 to 4 (static, dynamic, interval
dims, sometimes a dynamic rank; every run type, boolean included, with NaN, ±inf, -0 and each
integer type's extremes) by each version's modes, with a target (and, explicit, axes_mapping)
mostly valid for the data and sometimes not: other dims, ranks, -1, -2 and 0 values, 8-bit,
boolean or float types, unsorted or out-of-range axes, a missing or extra input. The target is
a Const, or a Parameter fed at run time. IRPOOL_TEST_SCALE scales the number (default
300).

Runs happen in a worker process (the CPU plugin crashes on some Broadcasts: a crash must not
kill pytest). Every accepted static configuration irpool finds clean must run on the CPU and
equal irpool's run bit for bit; every one irpool refuses with IR617 or IR618 (or refuses to
run) must crash, fail, or give another shape or other elements than NumPy's broadcast.
"""

from __future__ import annotations

import json
import random
import select
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from irpool.cpu.numerics import moved_as_held
from tests.differential.harness import NUMPY, PER_OP
from tests.differential.shape_graphs import Case as ShapeCase
from tests.differential.shape_graphs import shape_problems
from tests.differential.single_layer import (
    BATCH_SIZE,
    CPU_CONFIG,
    DATA_TYPES,
    MAX_REPORTED,
    Config,
    Outcome,
    Source,
    assert_covers,
    assert_shapes_agree,
    data_input,
    data_type,
    outcomes_of,
    random_shape,
    same,
    write,
)

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-broadcast-1"
TIMEOUT = 120
DIED = "the process died"
# Reads a model and its inputs, compiles and infers on the CPU plugin, saves the outputs:
# one JSON request a line ({"xml", "inputs", "outputs"}), one answer a line.
WORKER = f"""
import json, sys
sys.modules["openvino_telemetry"] = None
import numpy as np
import openvino as ov
core = ov.Core()
for line in sys.stdin:
    request = json.loads(line)
    try:
        model = core.read_model(request["xml"])
        compiled = core.compile_model(model, "CPU", {CPU_CONFIG!r})
        results = compiled.create_infer_request().infer(dict(np.load(request["inputs"])))
        np.savez(request["outputs"], **{{p.get_any_name(): v for p, v in results.items()}})
        print(json.dumps({{"failed": ""}}), flush=True)
    except Exception as error:
        print(json.dumps({{"failed": str(error)[-300:] or "failed"}}), flush=True)
"""


class Worker:
    """The CPU plugin in a process of its own, restarted when it dies or hangs."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[str] | None = None

    def run(self, path: Path, inputs: dict[str, NDArray[Any]]) -> dict[str, NDArray[Any]] | str:
        """The CPU's outputs by tensor name, or why there are none. A death is confirmed in
        a fresh process: an earlier file may have left the process unsound."""
        answer = self._ask(path, inputs)
        return self._ask(path, inputs) if answer == DIED else answer

    def _ask(self, path: Path, inputs: dict[str, NDArray[Any]]) -> dict[str, NDArray[Any]] | str:
        if self._process is None or self._process.poll() is not None:
            self._process = subprocess.Popen(
                [sys.executable, "-c", WORKER],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
        given, taken = path.with_suffix(".in.npz"), path.with_suffix(".out.npz")
        np.savez(given, **inputs)
        request = {"xml": str(path), "inputs": str(given), "outputs": str(taken)}
        assert self._process.stdin is not None and self._process.stdout is not None
        try:
            self._process.stdin.write(json.dumps(request) + "\n")
            self._process.stdin.flush()
            ready, _, _ = select.select([self._process.stdout], [], [], TIMEOUT)
            line = self._process.stdout.readline() if ready else ""
        except BrokenPipeError:
            line = ""
        if not line:
            self.close()
            return DIED
        failed: str = json.loads(line)["failed"]
        if failed:
            return failed
        with np.load(taken) as outputs:
            return dict(outputs)

    def close(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            self._process = None


def _target(rng: random.Random, dims: list[str], mode: str) -> tuple[list[int], list[int]]:
    """Target values and (explicit) axes, mostly valid for `dims`."""

    def like(dim: str) -> int:
        size = int(dim) if dim.isdigit() else rng.randint(1, 4)
        return size if size != 1 or rng.random() < 0.5 else rng.randint(1, 4)

    extra = [rng.randint(1, 4) for _ in range(rng.choice((0, 0, 1, 2)))]
    if mode == "explicit":
        values = [like(d) for d in dims]
        positions = sorted(rng.sample(range(len(dims) + len(extra)), len(dims)))
        target = [0] * (len(dims) + len(extra))
        for position, value in zip(positions, values, strict=True):
            target[position] = value
        rest = iter(extra)
        target = [v if p in positions else next(rest) for p, v in enumerate(target)]
        axes = positions
    elif mode == "pdpd":
        target, axes = [like(d) if rng.random() < 0.7 else 1 for d in dims], []
    elif mode == "bidirectional":
        target = extra + [1 if rng.random() < 0.4 else like(d) for d in dims]
        target, axes = target[rng.randint(0, len(target)) if rng.random() < 0.3 else 0 :], []
    else:
        target, axes = extra + [like(d) for d in dims], []
    if rng.random() < 0.15 and target:  # a wrong dim, or a special value
        target[rng.randrange(len(target))] = rng.choice((-1, -2, 0, 5, 1))
    if rng.random() < 0.05:
        target = target[1:] if rng.random() < 0.5 else [3, *target]
    if axes and rng.random() < 0.08:
        axes[rng.randrange(len(axes))] = rng.choice((-1, len(target), 0))
    return target, axes


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    version = "opset3" if rng.random() < 0.75 else "opset1"
    modes = ["numpy", "numpy", "explicit", "bidirectional", "bidirectional", "pdpd", "none"]
    mode = rng.choice(modes if version == "opset3" else [*modes[:3], "pdpd", "none"])
    rank = rng.choice((0, 1, 1, 2, 2, 3, 4))
    dims = random_shape(rng, rank)
    kind = "explicit" if mode == "none" else mode
    target, axes = _target(rng, dims, kind)
    three = kind == "explicit" or (version == "opset1" and kind == "pdpd")
    if rng.random() < 0.05:
        three = not three
    target_type = rng.choice(("i64",) * 14 + ("i32",) * 4 + ("u8", "i8", "f32", "boolean", "u64"))
    fed = rng.random() < 0.2 and all(d.isdigit() for d in dims)
    values = tuple(map(float, target))
    shape = str(len(target)) if rng.random() < 0.97 else f"1,{len(target)}"
    sources = [
        Source(target_type, shape, feed=values) if fed else Source(target_type, shape, values)
    ]
    if three:
        axes_values = tuple(map(float, axes or [0]))
        axes_type = rng.choice(("i64",) * 10 + ("i32", "u8", "f32"))
        axes_fed = fed and rng.random() < 0.5
        sources.append(
            Source(axes_type, str(len(axes_values)), feed=axes_values)
            if axes_fed
            else Source(axes_type, str(len(axes_values)), axes_values)
        )
    data_kind = rng.choice((*DATA_TYPES, "boolean"))
    data = Source(data_kind, "..." if rng.random() < 0.04 else ",".join(dims))
    return Config(index, "Broadcast", version, (("mode", mode),), (data, *sources))


def numpy_broadcast(config: Config, inputs: list[NDArray[Any]]) -> NDArray[Any] | None:
    """What the layer means, by NumPy alone: None where NumPy cannot broadcast so."""
    data, target = inputs[0], [int(v) for v in inputs[1].ravel()]
    mode = dict(config.attrs)["mode"]
    try:
        if mode in ("explicit", "none") and len(inputs) > 2:
            placed = [1] * len(target)
            for axis, size in zip(inputs[2].ravel(), data.shape or (1,), strict=True):
                placed[int(axis)] = size
            data = data.reshape(placed)
        elif mode == "pdpd" and data.ndim != len(target):
            return None
        shape = np.broadcast_shapes(data.shape, target) if mode == "bidirectional" else target
        return np.broadcast_to(data, shape)
    except (ValueError, IndexError, TypeError):
        return None


def _inputs(config: Config) -> dict[str, NDArray[Any]]:
    return {
        f"in{position}_{config.index}": data_input(config, position)
        for position, source in enumerate(config.inputs)
        if source.values is None
    }


def _arrays(config: Config, fed: dict[str, NDArray[Any]]) -> list[NDArray[Any]]:
    """Every input's array: fed, or the Const's."""
    arrays = []
    for position, source in enumerate(config.inputs):
        if source.values is None:
            arrays.append(fed[f"in{position}_{config.index}"])
            continue
        dtype = np.dtype(NUMPY[source.type])
        wide = np.array(source.values, np.float64 if dtype.kind == "f" else np.int64)
        with np.errstate(over="ignore"):
            arrays.append(wide.astype(dtype).reshape(source.dims))
    return arrays


def _static(config: Config) -> bool:
    controls = config.controls
    return config.static and all(s.values is not None or s.feed is not None for s in controls)


def _runs_right(config: Config, fed: dict[str, NDArray[Any]], theirs: Any) -> bool:
    """Whether the CPU's output is NumPy's broadcast, held as the CPU holds the type."""
    if isinstance(theirs, str):
        return False
    expected = numpy_broadcast(config, _arrays(config, fed))
    return expected is not None and same(theirs[f"out0_{config.index}"], moved_as_held(expected))


def _run_batch(worker: Worker, directory: Path, batch: list[Outcome]) -> list[str]:
    """irpool's runs against the CPU's, bit for bit; a run irpool refuses must be one the
    CPU gets wrong."""
    configs = [(o.config, o.outputs or []) for o in batch]
    path = write(directory, f"run{batch[0].config.index}", configs)
    inputs = {k: v for o in batch for k, v in _inputs(o.config).items()}
    theirs = worker.run(path, inputs)
    try:
        ours = irpool.load(path).run(dict(inputs))
    except irpool.IRError as error:
        if len(batch) > 1:
            return [p for o in batch for p in _run_batch(worker, directory, [o])]
        if _runs_right(batch[0].config, inputs, theirs):
            return [f"{batch[0].config.describe()}: irpool refuses to run it ({error})"]
        return []
    if isinstance(theirs, str):
        if len(batch) > 1:
            return [p for o in batch for p in _run_batch(worker, directory, [o])]
        return [f"{batch[0].config.describe()}: the CPU plugin cannot run it: {theirs}"]
    return [
        f"{o.config.describe()}: irpool {ours[name].ravel()[:6]} {ours[name].shape}, "
        f"CPU {theirs[name].ravel()[:6]} {theirs[name].shape}"
        for o in batch
        if not same(ours[name := f"out0_{o.config.index}"], theirs[name])
    ]


def _refusal_problem(worker: Worker, directory: Path, outcome: Outcome) -> str | None:
    """A configuration irpool refuses (IR617, IR618) must not run right on the CPU."""
    config = outcome.config
    path = write(directory, f"refused{config.index}", [(config, outcome.outputs or [])])
    fed = _inputs(config)
    if _runs_right(config, fed, worker.run(path, fed)):
        return f"{config.describe()}: irpool refuses it, the CPU runs it right"
    return None


@pytest.fixture(scope="module")
def worker() -> Iterator[Worker]:
    running = Worker()
    yield running
    running.close()


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    configs = [random_config(i) for i in range(PER_OP)]
    return outcomes_of(tmp_path_factory.mktemp("broadcast"), configs, data_type)


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        accepted = outcome.outputs is not None
        mode = dict(outcome.config.attrs)["mode"]
        counts[f"accepted {mode}"] += accepted
        counts["intervals"] += accepted and ".." in outcome.config.inputs[0].shape
        counts["fed"] += accepted and outcome.config.inputs[1].feed is not None
        counts["refused to run"] += accepted and outcome.strict
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 20, "runs": PER_OP // 4}
    minimum |= {f"accepted {m}": PER_OP // 30 for m in ("numpy", "explicit", "bidirectional")}
    minimum |= {"intervals": PER_OP // 30, "fed": PER_OP // 30, "refused to run": PER_OP // 60}
    assert_covers(outcomes, counts, minimum)


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def test_runs_match_openvino(outcomes: list[Outcome], worker: Worker, tmp_path: Path) -> None:
    runnable = [o for o in outcomes if o.outputs is not None and not o.strict and _static(o.config)]
    problems = [
        problem
        for start in range(0, len(runnable), BATCH_SIZE)
        for problem in _run_batch(worker, tmp_path, runnable[start : start + BATCH_SIZE])
    ]
    shown = "\n".join(problems[:MAX_REPORTED])
    assert not problems, f"{len(problems)} of {len(runnable)} runs differ:\n{shown}"


def test_what_irpool_refuses_the_cpu_runs_wrong(
    outcomes: list[Outcome], worker: Worker, tmp_path: Path
) -> None:
    refused = [o for o in outcomes if o.outputs is not None and o.strict and _static(o.config)]
    problems = [p for o in refused if (p := _refusal_problem(worker, tmp_path, o))]
    assert refused and not problems, "\n".join(problems[:MAX_REPORTED])


def test_swin_t_window_mask_pattern(tmp_path: Path) -> None:
    """swin_t's `new_zeros` and `fill_`: a scalar broadcast to a Concat of ShapeOf pieces of a
    dynamic tensor, sliced, and scalars broadcast to the slice's ShapeOf (numpy, and
    bidirectional as other converters write it): every layer's shape as `read_model` infers
    it, and the run equal to the CPU's."""
    o1, o3, o8 = ov.opset1, ov.opset3, ov.opset8
    dims = [-1, ov.Dimension(1, -1), ov.Dimension(1, -1), 8]
    windows = o1.parameter(ov.PartialShape(dims), np.float32, name="x")
    shape = o3.shape_of(windows)

    def size(axis: int) -> Any:
        picked = o8.gather(shape, o1.constant(np.int64(axis)), o1.constant(np.int64(0)))
        return o1.reshape(picked, o1.constant(np.array([1], np.int64)), False)

    zeros = o3.broadcast(o1.constant(np.float32(0)), o1.concat([size(1), size(2)], 0))
    bounds = [o1.constant(np.array([v], np.int64)) for v in (0, -7, 1, 0)]
    region = o3.shape_of(o8.slice(zeros, *bounds), "i32")
    filled = o3.broadcast(o1.constant(np.float32(1)), region)
    three = o1.constant(np.full((1, 1), 3, np.float32))
    both = o3.broadcast(three, region, broadcast_spec="BIDIRECTIONAL")
    model = ov.Model([zeros, filled, both], [windows])
    for position, node in enumerate(model.get_ordered_ops()):
        node.set_friendly_name(f"n{position}")
    path = tmp_path / "swin_t_mask.xml"
    ov.save_model(model, path, compress_to_fp16=False)
    core = ov.Core()
    assert shape_problems(core, ShapeCase(0, [], path, [])) == []
    given = {"x": np.zeros((2, 9, 10, 8), np.float32)}
    compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
    theirs = {p.get_any_name(): v for p, v in compiled.create_infer_request().infer(given).items()}
    ours = irpool.load(path).run(given)
    assert ours.keys() == theirs.keys()
    assert all(same(ours[name], theirs[name]) for name in ours)
