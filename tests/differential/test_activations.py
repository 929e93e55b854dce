"""Live differential test: the elementwise ops (ReLU, Sigmoid, Swish, HSwish, HSigmoid, Floor,
Clamp) against OpenVINO.

Configuration #n (rebuilt alone with `random_config(n)`) is one op on one element type; input
dims are static, dynamic (`?`) or intervals (`2..5`, `..4`, `3..`), ranks 0 to 4 or a dynamic
rank; Swish gets no beta, a scalar beta Const or a beta Parameter, sometimes of another type or
rank, and every op sometimes a type OpenVINO refuses. Clamp's configurations (numbered from
`CLAMP_BASE`, so the others' stay as they were) get `min` and `max` from spellings OpenVINO reads
exactly (infinite, huge, beyond int32, fractional, equal) and, sometimes, ones it refuses or
reinterprets (`nan`, `1e400`, `0x1`, a fullwidth digit, min > max, an absent bound).

Shapes (every configuration): OpenVINO's `read_model` is the oracle. When it accepts the file
irpool must infer its intervals and report no error; when it rejects it, irpool must report
an error of a rule whose runtime "rejects".

Run (accepted configurations with static shapes): up to `BATCH_SIZE` configurations share one
model, compiled once on the CPU plugin (f32 inference precision, 1 thread) and run on seeded
inputs holding NaN (all but every third), ±inf, ±0, huge values, each integer type's extremes
and values around the ops' kinks (-3, 3, 0) and the CPU's exp underflow (-87). Outputs must be
equal bit for bit (NaN where the CPU has NaN): Sigmoid and Swish by the CPU's polynomial exp
(irpool/cpu/vector_exp.py), a Swish whose beta is a run-time input by the reference kernel
(irpool/cpu/scalar_exp.py).

Clamp runs only where irpool reports no error (a reinterpreted or absent bound is one).

IRPOOL_TEST_SCALE scales the number of configurations per op (default 300). The harness
(tests/differential/harness.py) writes, reads and compares.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from tests import ir
from tests.differential.harness import (
    CPU_CONFIG,
    MAX_REPORTED,
    NUMPY,
    PER_OP,
    const,
    declared,
    parameter,
    random_dim,
    random_input,
    write,
)
from tests.differential.shape_batches import Batches

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-elementwise-1"
OPS = {  # type -> its opset
    "ReLU": "opset1",
    "Sigmoid": "opset1",
    "Swish": "opset4",
    "HSwish": "opset4",
    "HSigmoid": "opset5",
    "Floor": "opset1",
}
VERSIONS = {**OPS, "Clamp": "opset1"}
BATCH_SIZE = 60
# Clamp's configurations are numbered from here, after every other op's.
CLAMP_BASE = 1_000_000
# Bounds OpenVINO reads exactly as written (docs/ir-reader.md#floating-point-attributes), and
# spellings it refuses or reads as another number.
EXACT_BOUNDS = (
    "0", "6", "-1.5", "0.25", "0.5", "5.5", "-inf", "inf", "1e30", "-1e30", "-0", "1e-40",
    "3.4028235e38", "2147483647", "-2147483648", "3e9", "200", "-200", "127.5", "6.", ".5",
    "+6", "6e0", " 6", "1e-400", "0.1", "65504", "-3",
)  # fmt: skip
ODD_BOUNDS = ("nan", "1e400", "0x1", "６", "", "Infinity")
RUN_TYPES = ("f32", "f32", "f32", "f16", "f64", "i32", "i64", "i8", "u8", "u16", "u32")
OTHER_TYPES = ("bf16", "boolean", "i16", "u64")


@dataclass(frozen=True)
class Config:
    index: int
    op: str
    element_type: str
    shape: str  # the data Parameter's shape attribute: "2,?,1..4", "" (scalar) or "..."
    beta: str  # Swish: "" none, "const" a Const, "input" a Parameter
    beta_type: str
    beta_shape: str
    bounds: tuple[tuple[str, str], ...] = ()  # Clamp's min and max as written

    def describe(self) -> str:
        beta = f" beta {self.beta} {self.beta_type}[{self.beta_shape}]" if self.beta else ""
        bounds = f" {dict(self.bounds)}" if self.op == "Clamp" else ""
        return f"#{self.index} {self.op}{bounds} on {self.element_type}[{self.shape}]{beta}"

    @property
    def exact(self) -> bool:
        """Whether irpool reports no error for the op's attributes (its bounds)."""
        return self.op != "Clamp" or (
            len(self.bounds) == 2 and all(text in EXACT_BOUNDS for _, text in self.bounds)
        )

    @property
    def static(self) -> bool:
        dims = (*self.shape.split(","), *self.beta_shape.split(","))
        return all(d.isdigit() or d == "" for d in dims)


def clamp_bounds(rng: random.Random) -> tuple[tuple[str, str], ...]:
    """min and max, mostly read exactly and min <= max; sometimes not, or absent."""
    texts = [rng.choice(EXACT_BOUNDS if rng.random() < 0.93 else ODD_BOUNDS) for _ in range(2)]
    values = [float(t) if t in EXACT_BOUNDS else 0.0 for t in texts]
    if values[0] > values[1] and rng.random() < 0.85:
        texts.reverse()
    bounds = tuple(zip(("min", "max"), texts, strict=True))
    return bounds if rng.random() < 0.97 else bounds[: rng.randint(0, 1)]


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    op = "Clamp" if index >= CLAMP_BASE else list(OPS)[index % len(OPS)]
    element_type = rng.choice(RUN_TYPES if rng.random() < 0.92 else OTHER_TYPES)
    if op == "Swish" and rng.random() < 0.85:
        element_type = rng.choice(("f32", "f32", "f16", "f64"))
    dims = [random_dim(rng) for _ in range(rng.choice((0, 1, 2, 3, 3, 4)))]
    shape = "..." if rng.random() < 0.04 else ",".join(dims)
    beta, beta_type, beta_shape = "", "", ""
    if op == "Swish" and rng.random() < 0.6:
        beta = rng.choice(("const", "input"))
        beta_type = element_type if rng.random() < 0.9 else rng.choice(("f32", "f16", "i32"))
        beta_shape = "" if rng.random() < 0.85 else rng.choice(("1", "2", "1,1", "?"))
    bounds = clamp_bounds(rng) if op == "Clamp" else ()
    return Config(index, op, element_type, shape, beta, beta_type, beta_shape, bounds)


# --------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------


def beta_value(config: Config) -> NDArray[Any]:
    rng = np.random.default_rng(config.index)
    value = rng.choice([1.0, 1.0, 0.5, 2.0, -1.0, 0.0, 1.7, np.inf, np.nan])
    shape = tuple(int(d) for d in config.beta_shape.split(",") if d.isdigit())
    with np.errstate(invalid="ignore"):  # NaN and inf as an integer beta OpenVINO refuses
        return np.full(shape, value).astype(NUMPY.get(config.beta_type, np.float32))


def render_layers(
    config: Config, output: tuple[str, list[str] | None], base: int, offset: int
) -> tuple[str, str, bytes]:
    """The config's layers (ids from `base`) and edges, and its Const bytes at `offset`."""
    n, op = config.index, base + 2
    layers = [parameter(base, f"in{n}", config.element_type, config.shape)]
    inputs = [ir.typed_port(0, config.element_type, declared(config.shape))]
    edges = [ir.edge(base, 0, op, 0)]
    blob = b""
    if config.beta == "const":
        value = beta_value(config)
        if config.beta_type == "bf16":  # the upper half of each f32
            value = (value.view(np.uint32) >> 16).astype(np.uint16)
        blob = value.astype(value.dtype.newbyteorder("<")).tobytes()
        layers.append(
            const(base + 1, f"b{n}", config.beta_type, config.beta_shape, offset, len(blob))
        )
    elif config.beta == "input":
        layers.append(parameter(base + 1, f"b{n}", config.beta_type, config.beta_shape, f"beta{n}"))
    if config.beta:
        inputs.append(ir.typed_port(1, config.beta_type, declared(config.beta_shape)))
        edges.append(ir.edge(base + 1, 0, op, 1))
    out_type, out_dims = output
    out_port = len(inputs)
    # Clamp's bounds are escaped: a bound may hold any text.
    bounds = ir.data(config.bounds) if config.op == "Clamp" else ""
    out = ir.typed_port(out_port, out_type, out_dims, f"out{n}")
    layers.append(ir.layer(op, f"op{n}", config.op, VERSIONS[config.op], bounds, inputs, [out]))
    layers.append(ir.result(base + 3, f"out{n}", out_dims, ir.precision(out_type)))
    edges.append(ir.edge(op, out_port, base + 3, 0))
    return "".join(layers), "".join(edges), blob


# --------------------------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    config: Config
    accepted: bool
    problems: list[str]


def check_shapes(core: Any, directory: Path, configs: list[Config]) -> list[Outcome]:
    """read_model's verdict on each configuration and how irpool's findings disagree,
    batched (`Batches`)."""
    items = [(config, (config.element_type, declared(config.shape))) for config in configs]
    verdicts = Batches(core, directory, partial(write, render=render_layers)).verdicts(items)
    return [
        Outcome(config, verdict.output is not None, verdict.problems)
        for config, verdict in zip(configs, verdicts, strict=True)
    ]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    core = ov.Core()
    directory = tmp_path_factory.mktemp("elementwise")
    indices = [*range(PER_OP * len(OPS)), *range(CLAMP_BASE, CLAMP_BASE + PER_OP)]
    return check_shapes(core, directory, [random_config(i) for i in indices])


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        counts[f"{outcome.config.op} {'accepted' if outcome.accepted else 'rejected'}"] += 1
        counts["runs"] += outcome.accepted and outcome.config.static
        counts["Clamp runs"] += (
            outcome.accepted
            and outcome.config.static
            and (outcome.config.op == "Clamp" and outcome.config.exact)
        )
    minimum = {f"{op} accepted": PER_OP * 3 // 4 for op in VERSIONS}
    minimum |= {f"{op} rejected": PER_OP // 100 for op in VERSIONS}
    minimum |= {"Clamp rejected": PER_OP // 20, "Clamp runs": PER_OP // 3}
    minimum |= {"Swish rejected": PER_OP // 20, "runs": PER_OP * len(OPS) // 3}
    assert {k: counts[k] for k, v in minimum.items() if counts[k] < v} == {}, counts


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    failing = [o for o in outcomes if o.problems]
    shown = "\n".join(f"{o.config.describe()}: {o.problems[0]}" for o in failing[:MAX_REPORTED])
    assert not failing, f"{len(failing)} of {len(outcomes)} configurations disagree:\n{shown}"


# --------------------------------------------------------------------------------------------
# Run
# --------------------------------------------------------------------------------------------


def same(actual: NDArray[Any], expected: NDArray[Any]) -> bool:
    """Whether irpool's output is the CPU's, bit for bit but NaN's."""
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return False
    if expected.dtype.kind != "f":
        return bool(np.array_equal(actual, expected))
    if not np.array_equal(np.isnan(actual), np.isnan(expected)):
        return False
    found = ~np.isnan(expected)
    return actual[found].tobytes() == expected[found].tobytes()  # -0 is not 0


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    core = ov.Core()
    runnable = [
        o.config
        for o in outcomes
        if o.accepted and o.config.static and o.config.exact and o.config.element_type in NUMPY
    ]
    failing: list[str] = []
    for start in range(0, len(runnable), BATCH_SIZE):
        batch = runnable[start : start + BATCH_SIZE]
        outputs = [(c, (c.element_type, declared(c.shape))) for c in batch]
        path = write(tmp_path, f"run{start}", outputs, render_layers)
        inputs: dict[str, NDArray[Any]] = {}
        for config in batch:
            shape = tuple(int(d) for d in config.shape.split(",") if d)
            nan = config.index % 3 != 0  # every third without NaN
            inputs[f"in{config.index}"] = random_input(
                config.index, config.element_type, shape, nan
            )
            if config.beta == "input":
                inputs[f"beta{config.index}"] = beta_value(config)
        ours = irpool.load(path).run(dict(inputs))
        compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
        results = compiled.create_infer_request().infer(inputs)
        theirs = {port.get_any_name(): value for port, value in results.items()}
        for config in batch:
            name = f"out{config.index}"
            if not same(ours[name], theirs[name]):
                failing.append(
                    f"{config.describe()}: irpool {ours[name].ravel()[:6]}, "
                    f"CPU {theirs[name].ravel()[:6]} for {inputs[f'in{config.index}'].ravel()[:6]}"
                )
    shown = "\n".join(failing[:MAX_REPORTED])
    assert not failing, f"{len(failing)} of {len(runnable)} runs differ:\n{shown}"
