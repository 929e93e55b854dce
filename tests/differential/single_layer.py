"""The live differential of one layer against OpenVINO, shared by the shape and index ops'
tests (test_concat.py, test_transpose.py, test_gather.py, test_shape_of.py,
test_variadic_split.py).

A configuration is one layer whose inputs are Parameters (data, static, dynamic or interval
dims) or Consts (indices, axes, orders, lengths, with their values), every output read by a
Result. Shapes: the file goes through `read_model`; when it accepts it, irpool must infer the
same shape for every output and report no error but strictness rules, and when it rejects it,
irpool must report an error of a rule whose runtime "rejects". Runs: the accepted
configurations whose Parameters are static share one model per batch, compiled once on the
CPU plugin (f32 inference precision), fed seeded inputs holding NaN, ±inf, ±0, huge values
and each integer type's extremes; outputs must be equal bit for bit (NaN payloads and -0
included).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from irpool.model import Model as LoadedModel
from irpool.rules import RULES
from tests import ir
from tests.differential.harness import (
    CPU_CONFIG,
    MAX_REPORTED,
    NUMPY,
    const,
    declared,
    parameter,
    random_dim,
    random_input,
)

ov = pytest.importorskip("openvino")

BATCH_SIZE = 40
# Data types of the runs: floats carry NaN, ±inf and -0; integers their extremes.
DATA_TYPES = ("f32", "f32", "f32", "f16", "f64", "i32", "i64", "i8", "u8", "i16", "u16", "u32")
STRIDE = 16  # layer ids per configuration


@dataclass(frozen=True)
class Source:
    """A layer input: a Parameter (`shape` as its attribute: "2,?,1..4", "" for a scalar,
    "..." for a dynamic rank) or, when `values` is set, a Const of static `shape`."""

    type: str
    shape: str
    values: tuple[float, ...] | None = None
    # What a run feeds a Parameter that is no data (an order, indices): None for data, which
    # gets seeded random values with NaN, ±inf and extremes.
    feed: tuple[float, ...] | None = None

    @property
    def dims(self) -> tuple[int, ...]:
        return tuple(int(d) for d in self.shape.split(",") if d)

    @property
    def static(self) -> bool:
        return self.shape != "..." and all(d.isdigit() for d in self.shape.split(",") if d)


@dataclass(frozen=True)
class Config:
    index: int
    op: str
    version: str
    attrs: tuple[tuple[str, str], ...]
    inputs: tuple[Source, ...]
    data_inputs: int = 1  # the leading inputs that are data; the others are controls

    @property
    def controls(self) -> tuple[Source, ...]:
        """The inputs that say what to do (indices, axes, orders): a run needs their values."""
        return self.inputs[self.data_inputs :]

    def describe(self) -> str:
        ins = ", ".join(
            f"{s.type}[{s.shape}]" + ("" if s.values is None else f"={list(s.values)}")
            for s in self.inputs
        )
        return f"#{self.index} {self.op}-{self.version} {dict(self.attrs)} on {ins}"

    @property
    def static(self) -> bool:
        return all(s.static for s in self.inputs)


def random_shape(rng: random.Random, rank: int) -> list[str]:
    """Dims static, dynamic or intervals; all static a third of the time, so that many
    configurations run."""
    if rng.random() < 0.35:
        return [str(rng.choice((1, 2, 3, 4, 5, 0) if rng.random() < 0.1 else (1, 2, 3, 4, 5)))
                for _ in range(rank)]  # fmt: skip
    return [random_dim(rng) for _ in range(rank)]


def _array(source: Source, values: tuple[float, ...]) -> NDArray[Any]:
    dtype = np.dtype(NUMPY[source.type])
    wide = np.array(values, np.float64 if dtype.kind == "f" else np.int64)
    with np.errstate(over="ignore"):
        return wide.astype(dtype).reshape(source.dims)  # integers wrap


def _const_bytes(source: Source) -> bytes:
    assert source.values is not None
    values = _array(source, source.values)
    return values.astype(values.dtype.newbyteorder("<")).tobytes()


Outputs = list[tuple[str, list[str] | None]]  # per output: type and dims ("-1"; None: rank)


def render(config: Config, outputs: Outputs, base: int, offset: int) -> tuple[str, str, bytes]:
    n, op = config.index, base + STRIDE - 1
    layers, ports, edges, blob = [], [], [], b""
    for position, source in enumerate(config.inputs):
        layer = base + position
        if source.values is not None:
            data = _const_bytes(source)
            where = offset + len(blob)
            layers.append(
                const(layer, f"c{position}_{n}", source.type, source.shape, where, len(data))
            )
            blob += data
        else:
            name = f"in{position}_{n}"
            layers.append(parameter(layer, name, source.type, source.shape))
        ports.append(ir.typed_port(position, source.type, declared(source.shape)))
        edges.append(ir.edge(layer, 0, op, position))
    first = len(config.inputs)
    outs = [
        ir.typed_port(first + k, kind, dims, f"out{k}_{n}")
        for k, (kind, dims) in enumerate(outputs)
    ]
    attributes = ir.data(config.attrs)
    layers.append(ir.layer(op, f"op{n}", config.op, config.version, attributes, ports, outs))
    for k, (kind, dims) in enumerate(outputs):
        result = base + len(config.inputs) + k
        layers.append(ir.result(result, f"r{k}_{n}", dims, ir.precision(kind)))
        edges.append(ir.edge(op, first + k, result, 0))
    return "".join(layers), "".join(edges), blob


def write(directory: Path, name: str, configs: list[tuple[Config, Outputs]]) -> Path:
    layers, edges, blob = [], [], b"\0"  # a Const of no elements then has data (ptr is Null)
    for position, (config, outputs) in enumerate(configs):
        assert len(config.inputs) + len(outputs) < STRIDE
        text, edge_text, more = render(config, outputs, STRIDE * position, len(blob))
        layers.append(text)
        edges.append(edge_text)
        blob += more
    path = directory / f"{name}.xml"
    path.write_text(ir.net(layers, edges, name="shape_ops"), encoding="utf-8")
    path.with_suffix(".bin").write_bytes(blob)
    return path


def openvino_outputs(model: Any) -> Outputs:
    found: Outputs = []
    for output in model.outputs:
        shape = output.get_partial_shape()
        dims = (
            None
            if shape.rank.is_dynamic
            else [str(d.get_length()) if d.is_static else "-1" for d in shape]
        )
        name = output.get_element_type().get_type_name()
        found.append(("boolean" if name == "boolean" else name, dims))
    return found


@dataclass
class Outcome:
    config: Config
    outputs: Outputs | None  # OpenVINO's, when it accepts the file
    problems: list[str]
    # irpool reports an error OpenVINO's reader does not raise (IR6xx: its CPU plugin fails):
    # not run.
    strict: bool = False


def check_shapes(core: Any, directory: Path, config: Config, naive: Outputs) -> Outcome:
    """`naive`: the outputs declared for the first `read_model` (rewritten to OpenVINO's)."""
    path = write(directory, f"shape{config.index}", [(config, naive)])
    try:
        model = core.read_model(path)
    except Exception:  # read_model raises plain RuntimeErrors: any failure is a rejection
        model = None
    outputs = None if model is None else openvino_outputs(model)
    if outputs is not None:
        path = write(directory, f"shape{config.index}", [(config, outputs)])
    loaded = irpool.load(path)
    errors = [d for d in loaded.validate() if d.severity.value == "error"]
    return Outcome(config, outputs, shape_problems(loaded, errors, model), bool(errors))


def shape_problems(loaded: LoadedModel, errors: list[irpool.Diagnostic], model: Any) -> list[str]:
    if model is None:
        if any(RULES[d.code].runtime == "rejects" for d in errors):
            return []
        return [f"accepts what OpenVINO rejects: {[(d.code, d.message) for d in errors]}"]
    problems = []
    inferred = loaded.checked.outputs.get(STRIDE - 1)
    theirs = [str(output.get_partial_shape()) for output in model.outputs]
    ours = [str(info.shape) for info in inferred] if inferred else ["nothing"]
    if ours[: len(theirs)] != theirs:
        problems.append(f"disagrees: irpool infers {ours}, OpenVINO {theirs}")
    problems += [
        f"rejects what OpenVINO accepts: {d.code} {d.message}"
        for d in errors
        if not RULES[d.code].is_strictness
    ]
    return problems


def data_input(config: Config, position: int) -> NDArray[Any]:
    source = config.inputs[position]
    if source.feed is not None:
        return _array(source, source.feed)
    return random_input(config.index * 8 + position, source.type, source.dims)


def same(actual: NDArray[Any], expected: NDArray[Any]) -> bool:
    """Equal bit for bit: shape, dtype and every element (NaN payloads and -0 included)."""
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return False
    return np.ascontiguousarray(actual).tobytes() == np.ascontiguousarray(expected).tobytes()


def run_problems(core: Any, directory: Path, outcomes: list[Outcome]) -> tuple[list[str], int]:
    """Problems of every accepted static configuration's run, and how many ran."""
    runnable = [
        (o.config, o.outputs)
        for o in outcomes
        if o.outputs is not None
        and not o.strict
        and o.config.static
        and all(s.type in NUMPY for s in o.config.inputs)
        and all(s.values is not None or s.feed is not None for s in o.config.controls)
        and not any(s.type == "boolean" for s in o.config.inputs)
    ]
    problems: list[str] = []
    for start in range(0, len(runnable), BATCH_SIZE):
        batch = runnable[start : start + BATCH_SIZE]
        problems += _run_batch(core, write(directory, f"run{start}", batch), batch)
    return problems, len(runnable)


def _run_batch(core: Any, path: Path, batch: list[tuple[Config, Outputs | None]]) -> list[str]:
    inputs = {
        f"in{position}_{config.index}": data_input(config, position)
        for config, _ in batch
        for position, source in enumerate(config.inputs)
        if source.values is None
    }
    try:
        compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
        results = compiled.create_infer_request().infer(inputs)
    except RuntimeError as error:  # one layer fails: found alone
        if len(batch) == 1:
            return [f"{batch[0][0].describe()}: the CPU plugin cannot run it: {error}"]
        problems = []
        for position, item in enumerate(batch):
            alone = write(path.parent, f"{path.stem}_{position}", [item])  # type: ignore[list-item]
            problems += _run_batch(core, alone, [item])
        return problems
    ours = irpool.load(path).run(dict(inputs))
    theirs = {port.get_any_name(): value for port, value in results.items()}
    problems = []
    for config, outputs in batch:
        for k in range(len(outputs or ())):
            name = f"out{k}_{config.index}"
            if not same(ours[name], theirs[name]):
                problems.append(
                    f"{config.describe()} output {k}: irpool {ours[name].ravel()[:6]} "
                    f"{ours[name].shape}, CPU {theirs[name].ravel()[:6]} {theirs[name].shape}"
                )
    return problems


def outcomes_of(
    directory: Path, configs: list[Config], naive: Callable[[Config], Outputs]
) -> list[Outcome]:
    """Every configuration through `read_model` and irpool; `naive`: the outputs a
    configuration declares before OpenVINO's are known."""
    core = ov.Core()
    return [check_shapes(core, directory, config, naive(config)) for config in configs]


def assert_covers(outcomes: list[Outcome], counts: Counter[str], minimum: dict[str, int]) -> None:
    """The generator reached every part of the space: `counts` (a test's own, with the
    verdicts and runs added here) at least `minimum`."""
    for outcome in outcomes:
        counts["accepted" if outcome.outputs else "rejected"] += 1
        counts["runs"] += outcome.outputs is not None and outcome.config.static
    assert {k: counts[k] for k, v in minimum.items() if counts[k] < v} == {}, counts


def assert_shapes_agree(outcomes: list[Outcome]) -> None:
    failing = [o for o in outcomes if o.problems]
    shown = "\n".join(f"{o.config.describe()}: {o.problems[0]}" for o in failing[:MAX_REPORTED])
    assert not failing, f"{len(failing)} of {len(outcomes)} configurations disagree:\n{shown}"


def assert_runs_agree(outcomes: list[Outcome], directory: Path) -> None:
    problems, runs = run_problems(ov.Core(), directory, outcomes)
    shown = "\n".join(problems[:MAX_REPORTED])
    assert not problems, f"{len(problems)} of {runs} runs differ:\n{shown}"


def data_type(config: Config) -> Outputs:
    """One output, of the data's type."""
    return [(config.inputs[0].type, None)]
