"""Live differential test: Select-1 against OpenVINO.

Configuration #n (rebuilt alone with `random_config(n)`) is a Select of a `cond` (boolean,
sometimes another type), `then` and `else` (one element type, sometimes two), whose dims are
broadcast partners of one another (equal, 1, missing, other), static, dynamic or intervals,
with every `auto_broadcast` (numpy, none, pdpd, explicit, upper case, absent).

Shapes (every configuration): OpenVINO's `read_model` is the oracle, as in
tests/differential/test_arithmetic.py. Run (accepted configurations with static shapes, pdpd
included): batches compiled once on the CPU plugin (f32 inference precision) and run on seeded
inputs holding NaN, ±inf, ±0, huge values and each integer type's extremes; outputs must be
equal bit for bit (NaN where the CPU has NaN). The CPU plugin cannot compile `explicit` nor
some `pdpd` Selects; those are checked for shapes only.

IRPOOL_TEST_SCALE scales the number of configurations (default 300).
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
from tests import ir
from tests.differential.arithmetic_cases import openvino_output, partner, same
from tests.differential.harness import (
    CPU_CONFIG,
    MAX_REPORTED,
    NUMPY,
    PER_OP,
    declared,
    parameter,
    random_dim,
    random_input,
)
from tests.differential.harness import write as write_ir
from tests.differential.shape_batches import Batches

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-select-1"
TYPES = ("f32", "f32", "f32", "i32", "i64", "f16", "f64", "i8", "u8", "u16", "boolean")
BATCH_SIZE = 60
NAMES = ("cond", "then", "else")


@dataclass(frozen=True)
class Config:
    index: int
    types: tuple[str, str, str]  # cond, then, else
    shapes: tuple[str, str, str]  # Parameter shape attributes: "2,?,1..4", "" or "..."
    attrs: tuple[tuple[str, str], ...]

    def describe(self) -> str:
        inputs = ", ".join(
            f"{name} {kind}[{shape}]"
            for name, kind, shape in zip(NAMES, self.types, self.shapes, strict=True)
        )
        return f"#{self.index} Select {dict(self.attrs)} on {inputs}"

    @property
    def static(self) -> bool:
        return all(d.isdigit() or d == "" for shape in self.shapes for d in shape.split(","))


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    value_type = rng.choice(TYPES)
    other_type = value_type if rng.random() < 0.95 else rng.choice(TYPES)
    cond_type = "boolean" if rng.random() < 0.95 else rng.choice(TYPES)
    dims = [random_dim(rng) for _ in range(rng.choice((0, 1, 2, 3, 3, 4)))]
    shapes = [dims, partner(rng, dims), partner(rng, dims)]
    rng.shuffle(shapes)
    texts = tuple("..." if rng.random() < 0.02 else ",".join(s) for s in shapes)
    mode = rng.choice(("numpy",) * 10 + ("none", "none", "pdpd", "pdpd", "explicit", "NUMPY"))
    attrs: tuple[tuple[str, str], ...] = () if rng.random() < 0.15 else (("auto_broadcast", mode),)
    return Config(index, (cond_type, value_type, other_type), texts, attrs)  # type: ignore[arg-type]


def render_layers(
    config: Config, output: tuple[str, list[str] | None], base: int, offset: int
) -> tuple[str, str, bytes]:
    """Ids 2 * base + (cond 0, then 1, Select 2, Result 3, else 4): `write` gives 4 per
    configuration, Select needs 5."""
    n, first = config.index, 2 * base
    ids = (first, first + 1, first + 4)
    layers, inputs, edges = [], [], []
    for position, (name, kind, shape) in enumerate(
        zip(NAMES, config.types, config.shapes, strict=True)
    ):
        layers.append(parameter(ids[position], f"{name}{n}", kind, shape))
        inputs.append(ir.typed_port(position, kind, declared(shape)))
        edges.append(ir.edge(ids[position], 0, first + 2, position))
    out_type, out_dims = output
    outputs = [ir.typed_port(3, out_type, out_dims, f"out{n}")]
    attributes = ir.data(config.attrs)
    layers.append(ir.layer(first + 2, f"op{n}", "Select", "opset1", attributes, inputs, outputs))
    layers.append(ir.result(first + 3, f"out{n}", out_dims, ir.precision(out_type)))
    edges.append(ir.edge(first + 2, 3, first + 3, 0))
    return "".join(layers), "".join(edges), b""


def write(directory: Path, name: str, configs: list[tuple[Config, tuple[str, Any]]]) -> Path:
    return write_ir(directory, name, configs, render_layers)


@dataclass
class Outcome:
    config: Config
    output: tuple[str, list[str] | None] | None  # OpenVINO's, when it accepts the file
    problems: list[str]


def check_shapes(core: Any, directory: Path, configs: list[Config]) -> list[Outcome]:
    """OpenVINO's output of each configuration (read with a naive output, which irpool then
    loads rewritten to OpenVINO's) and how irpool's findings disagree, batched (`Batches`:
    8 ids each)."""
    items = [(config, (config.types[1], None)) for config in configs]
    verdicts = Batches(core, directory, write, openvino_output, ids_each=8).verdicts(items)
    return [
        Outcome(config, verdict.claim, verdict.problems)
        for config, verdict in zip(configs, verdicts, strict=True)
    ]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    core = ov.Core()
    directory = tmp_path_factory.mktemp("select")
    return check_shapes(core, directory, [random_config(i) for i in range(PER_OP)])


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        verdict = "accepted" if outcome.output else "rejected"
        mode = dict(outcome.config.attrs).get("auto_broadcast", "numpy").lower()
        counts[f"{mode} {verdict}"] += 1
        counts[verdict] += 1
        counts["runs"] += outcome.output is not None and outcome.config.static
        counts["non-static output"] += outcome.output is not None and "-1" in (
            outcome.output[1] or ["-1"]
        )
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 20, "runs": PER_OP // 4}
    minimum |= {f"{mode} accepted": PER_OP // 40 for mode in ("none", "pdpd")}
    minimum |= {"explicit rejected": 1, "non-static output": PER_OP // 10}
    assert {k: counts[k] for k, v in minimum.items() if counts[k] < v} == {}, counts


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    failing = [o for o in outcomes if o.problems]
    shown = "\n".join(f"{o.config.describe()}: {o.problems[0]}" for o in failing[:MAX_REPORTED])
    assert not failing, f"{len(failing)} of {len(outcomes)} configurations disagree:\n{shown}"


def inputs_of(config: Config) -> dict[str, NDArray[Any]]:
    arrays = {}
    for position, (name, kind, shape) in enumerate(
        zip(NAMES, config.types, config.shapes, strict=True)
    ):
        dims = tuple(int(d) for d in shape.split(",") if d)
        seed = config.index + 1_000_000 * position
        if kind == "boolean":
            arrays[f"{name}{config.index}"] = np.random.default_rng(seed).random(dims) < 0.5
        else:
            arrays[f"{name}{config.index}"] = random_input(seed, kind, dims)
    return arrays


def mode_of(config: Config) -> str:
    return dict(config.attrs).get("auto_broadcast", "numpy").lower()


def run_batch(
    core: Any, path: Path, batch: list[tuple[Config, Any]]
) -> tuple[list[str], list[Config]]:
    """Problems of a batch, and the configurations the CPU plugin cannot compile (each then
    run alone)."""
    try:
        compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
    except RuntimeError:
        if len(batch) == 1:
            return [], [batch[0][0]]
        failing, uncompiled = [], []
        for position, item in enumerate(batch):
            more, refused = run_batch(
                core, write(path.parent, f"{path.stem}_{position}", [item]), [item]
            )
            failing += more
            uncompiled += refused
        return failing, uncompiled
    inputs = {k: v for config, _ in batch for k, v in inputs_of(config).items()}
    ours = irpool.load(path).run(dict(inputs))
    results = compiled.create_infer_request().infer(inputs)
    theirs = {port.get_any_name(): value for port, value in results.items()}
    failing = []
    for config, _ in batch:
        name = f"out{config.index}"
        if not same(ours[name], theirs[name]):
            failing.append(
                f"{config.describe()}: irpool {ours[name].ravel()[:4]}, "
                f"CPU {theirs[name].ravel()[:4]}"
            )
    return failing, []


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    """The CPU plugin cannot compile `explicit` (which `read_model` accepts on three equal
    shapes: "Unsupported auto broadcast specification") nor some `pdpd` Selects (scalars among
    them); irpool runs them."""
    core = ov.Core()
    runnable = [
        (o.config, o.output)
        for o in outcomes
        if o.output is not None and o.config.static and set(o.config.types) <= {*NUMPY, "boolean"}
    ]
    failing: list[str] = []
    uncompiled: list[Config] = []
    for start in range(0, len(runnable), BATCH_SIZE):
        batch = runnable[start : start + BATCH_SIZE]
        more, refused = run_batch(core, write(tmp_path, f"run{start}", batch), batch)
        failing += more
        uncompiled += refused
    shown = "\n".join(failing[:MAX_REPORTED])
    assert not failing, f"{len(failing)} of {len(runnable)} runs differ:\n{shown}"
    unknown = [c.describe() for c in uncompiled if mode_of(c) not in ("explicit", "pdpd")]
    assert not unknown, f"the CPU plugin cannot compile: {unknown[:MAX_REPORTED]}"
    assert len(uncompiled) < len(runnable) // 4, "most runs must compile"
