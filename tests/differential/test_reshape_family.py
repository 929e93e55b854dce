"""Live differential test: Reshape-1, Squeeze-1, Unsqueeze-1 and Convert-1 against OpenVINO.

Every configuration is one small IR written as XML text (Parameter `in<n>` + Const pattern or
axes -> op -> Result `out<n>`), drawn by a generator seeded with its index, so configuration
#n can be rebuilt alone with `random_config(n)`. Input dims are static, dynamic (`?`) or
intervals (`2..5`, `..4`, `3..`), ranks 0 to 5 or a dynamic rank; patterns and axes mix valid
values with zeros, -1, negatives, repeats and values out of range, so a good part is invalid.

Shapes (every configuration): OpenVINO's `read_model` is the oracle. When it accepts the file,
the declared output dims and precision are rewritten to what it inferred and irpool must report
no IR301/IR302/IR305, infer the same intervals (`2..5`, `3..`), and report no error but
strictness rules; when it rejects
the file, irpool must report an error of a rule whose runtime "rejects".

Run (accepted configurations with static shapes that irpool finds valid): up to `BATCH_SIZE`
configurations share one model, compiled once on the CPU plugin (f32 inference precision) and
run on seeded inputs holding NaN, ±inf, values beyond int32 and each type's extremes; outputs
must be equal bit for bit (NaN where the CPU has NaN), every conversion included.
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
from irpool.rules import RULES
from tests import ir
from tests.differential.harness import NUMPY
from tests.differential.shape_batches import Batches, Verdict

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-reshape-family-1"
COUNTS = {"Reshape": 380, "Squeeze": 150, "Unsqueeze": 150, "Convert": 220}
# Configurations #RUN_BASE.. have static input shapes only, so that most of them can run.
RUN_BASE = 100_000
RUN_COUNTS = {"Reshape": 520, "Squeeze": 100, "Unsqueeze": 120, "Convert": 20}
BATCH_SIZE = 80
MAX_REPORTED = 12
CLAIM_RULES = frozenset({"IR301", "IR302", "IR305"})

CONVERT_SOURCES = (
    "f32",
    "f16",
    "f64",
    "i8",
    "u8",
    "i16",
    "u16",
    "i32",
    "i64",
    "u32",
    "u64",
    "boolean",
)
DESTINATIONS = (*CONVERT_SOURCES, "bf16")


@dataclass(frozen=True)
class Config:
    index: int
    op: str
    shape: str  # the Parameter's shape attribute: "2,?,1..4", "" (scalar) or "..."
    element_type: str
    second: tuple[int, ...] | None  # the pattern or axes Const (None: none, as in Convert)
    second_type: str
    second_scalar: bool
    attrs: tuple[tuple[str, str], ...]

    def describe(self) -> str:
        second = "" if self.second is None else f" {self.second_type}{list(self.second)}"
        scalar = " (scalar)" if self.second_scalar else ""
        return (
            f"#{self.index} {self.op} {dict(self.attrs)} on {self.element_type}[{self.shape}]"
            f"{second}{scalar}"
        )


def random_dim(rng: random.Random, static: bool) -> str:
    kind = rng.random() * (0.72 if static else 1)
    if kind < 0.72:
        return str(rng.choice((1, 1, 2, 3, 4, 5, 6, 0) if rng.random() < 0.1 else (1, 1, 2, 3, 4)))
    if kind < 0.86:
        return "?"
    low, high = rng.randint(0, 3), rng.randint(3, 8)
    return rng.choice((f"{low}..{high}", f"..{high}", f"{low + 1}..", f"{low}..{low}"))


def static_values(dims: list[str]) -> list[int | None]:
    return [int(d) if d.isdigit() else None for d in dims]


def random_pattern(rng: random.Random, dims: list[str]) -> list[int]:
    """Mostly a regrouping of the input dims, with 0 and -1 where they fit; sometimes noise."""
    if rng.random() < 0.2 or not dims:
        return [rng.randint(-2, 6) for _ in range(rng.randint(0, 4))]
    values = static_values(dims)
    pattern: list[int] = []
    position = 0
    while position < len(dims):
        size = rng.choice((1, 1, 2, 3))
        group = values[position : position + size]
        if size == 1 and rng.random() < 0.35:
            pattern.append(0)
        elif all(v is not None for v in group):
            pattern.append(int(np.prod([v for v in group if v is not None])))
        else:
            pattern.append(-1)
        position += size
    if rng.random() < 0.5:
        pattern[rng.randrange(len(pattern))] = -1
    if rng.random() < 0.15:
        pattern.insert(rng.randrange(len(pattern) + 1), rng.choice((1, 1, 2, -1, 0)))
    return pattern


def random_axes(rng: random.Random, rank: int, op: str) -> list[int]:
    out_rank = rank + (rng.randint(1, 3) if op == "Unsqueeze" else 0)
    span = max(out_rank, 1)
    axes = [
        rng.randint(-span, span - 1) for _ in range(rng.randint(0 if op == "Squeeze" else 1, 3))
    ]
    if rng.random() < 0.1:
        axes.append(rng.choice((span, -span - 1)))  # out of range
    if axes and rng.random() < 0.1:
        axes.append(axes[0])  # a repeat
    return axes


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    static = index >= RUN_BASE
    counts = RUN_COUNTS if static else COUNTS
    limits = np.cumsum(list(counts.values()))
    op = list(counts)[int(np.searchsorted(limits, index % RUN_BASE, side="right"))]
    rank = rng.choice((0, 1, 2, 3, 3, 4, 4, 5))
    dims = [random_dim(rng, static) for _ in range(rank)]
    if op == "Squeeze" and dims and rng.random() < 0.6:
        dims[rng.randrange(rank)] = "1"
    dynamic_rank = not static and rng.random() < 0.05
    shape = "..." if dynamic_rank else ",".join(dims)
    second_type = rng.choice(("i64", "i64", "i64", "i32", "u8" if rng.random() < 0.3 else "f32"))
    if op == "Convert":
        source = rng.choice(CONVERT_SOURCES)
        destination = rng.choice(DESTINATIONS)
        if rng.random() < 0.03:
            destination = rng.choice(("dynamic", destination.upper()))
        return Config(
            index, op, shape, source, None, "", False, (("destination_type", destination),)
        )
    element_type = rng.choice(("f32", "f32", "f16", "i32", "u8", "i64"))
    if op == "Reshape":
        second = random_pattern(rng, dims)
        attrs = (("special_zero", rng.choice(("true", "false"))),)
    else:
        second = random_axes(rng, rank, op)
        if static:  # mostly what irpool finds valid, so that it runs
            ones = [a for a in range(-rank, rank) if dims[a] == "1"]
            if op == "Unsqueeze":
                second = sorted(set(second))
            elif ones:
                second = rng.sample(ones, rng.randint(1, min(2, len(ones))))
        attrs = ()
    if op == "Squeeze" and rng.random() < 0.2:  # the one-input form: every 1 goes
        return Config(index, op, shape, element_type, None, "", False, attrs)
    scalar = len(second) == 1 and rng.random() < 0.3
    if second_type == "u8":
        second = [v % 256 for v in second]
    return Config(index, op, shape, element_type, tuple(second), second_type, scalar, attrs)


# --------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    dims: tuple[int, ...] | None  # None: no <dim> (dynamic rank)
    element_type: str


def parameter_claim(config: Config) -> Claim:
    if config.shape == "...":
        return Claim(None, config.element_type)
    return Claim(tuple(static_dim(d) for d in config.shape.split(",") if d), config.element_type)


def static_dim(text: str) -> int:
    """A dim's length, or -1 when it is not static (`3..3` is)."""
    low, _, high = text.partition("..")
    return int(text) if text.isdigit() else int(low) if low and low == high else -1


def port(port_id: int, claim: Claim, names: str = "") -> str:
    return ir.typed_port(port_id, claim.element_type, claim.dims, names)


def render_layers(
    config: Config, output: Claim, base: int, offset: int
) -> tuple[list[str], list[str], bytes]:
    """The config's layers (ids from `base`) and edges, and its Const bytes at `offset`."""
    n = config.index
    source = parameter_claim(config)
    parameter = ir.data([("shape", config.shape), ("element_type", config.element_type)])
    layers = [
        ir.layer(base, f"in{n}", "Parameter", "opset1", parameter, (), [port(0, source, f"in{n}")])
    ]
    op_inputs = [port(0, source)]
    edges = [ir.edge(base, 0, base + 2, 0)]
    blob = b""
    if config.second is not None:
        values = np.array(config.second, dtype=NUMPY.get(config.second_type, np.float32))
        if config.second_scalar:
            values = values.reshape(())
        blob = values.astype(values.dtype.newbyteorder("<")).tobytes()
        claim = Claim(values.shape, config.second_type)
        const = ir.data(
            [
                ("element_type", config.second_type),
                ("shape", ",".join(map(str, values.shape))),
                ("offset", str(offset)),
                ("size", str(len(blob))),
            ]
        )
        layers.append(ir.layer(base + 1, f"c{n}", "Const", "opset1", const, (), [port(0, claim)]))
        op_inputs.append(port(1, claim))
        edges.append(ir.edge(base + 1, 0, base + 2, 1))
    out_port = len(op_inputs)
    outputs = [port(out_port, output, f"out{n}")]
    op = ir.layer(
        base + 2, f"op{n}", config.op, "opset1", ir.data(config.attrs), op_inputs, outputs
    )
    layers.append(op)
    layers.append(ir.layer(base + 3, f"out{n}", "Result", "opset1", "", [port(0, output)]))
    edges.append(ir.edge(base + 2, out_port, base + 3, 0))
    return layers, edges, blob


def render(configs: list[tuple[Config, Claim]]) -> tuple[str, bytes]:
    layers: list[str] = []
    edges: list[str] = []
    blobs = b""
    for position, (config, claim) in enumerate(configs):
        layer_texts, edge_texts, blob = render_layers(config, claim, 4 * position, len(blobs))
        layers += layer_texts
        edges += edge_texts
        blobs += blob
    return ir.net(layers, edges, "family"), blobs


def write(directory: Path, name: str, configs: list[tuple[Config, Claim]]) -> Path:
    xml, blob = render(configs)
    path = directory / f"{name}.xml"
    path.write_text(xml, encoding="utf-8")
    if blob:
        path.with_suffix(".bin").write_bytes(blob)
    return path


def naive_claim(config: Config) -> Claim:
    destination = dict(config.attrs).get("destination_type", config.element_type).lower()
    return Claim(parameter_claim(config).dims, destination)


def openvino_claim(config: Config, output: Any) -> Claim:
    """What OpenVINO infers of the configuration's output."""
    shape = output.get_partial_shape()
    dims = (
        None
        if shape.rank.is_dynamic
        else tuple(d.get_length() if d.is_static else -1 for d in shape)
    )
    return Claim(dims, ELEMENT_NAMES.get(output.get_element_type().get_type_name(), "dynamic"))


ELEMENT_NAMES = {
    "f32": "f32", "f16": "f16", "bf16": "bf16", "f64": "f64", "i8": "i8", "i16": "i16",
    "i32": "i32", "i64": "i64", "u8": "u8", "u16": "u16", "u32": "u32", "u64": "u64",
    "boolean": "boolean", "dynamic": "dynamic",
}  # fmt: skip


# --------------------------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    config: Config
    accepted: bool
    claim: Claim | None
    problems: list[str]
    irpool_errors: int


def check_shapes(core: Any, directory: Path, configs: list[Config]) -> list[Outcome]:
    """OpenVINO's claim of each configuration's output (read with a naive one, which irpool
    then loads rewritten to OpenVINO's) and how irpool's findings disagree, batched."""
    items = [(config, naive_claim(config)) for config in configs]
    verdicts = Batches(core, directory, write, openvino_claim).verdicts(items)
    return [outcome_of(config, verdict) for config, verdict in zip(configs, verdicts, strict=True)]


def outcome_of(config: Config, verdict: Verdict) -> Outcome:
    claim, diagnostics, errors = verdict.claim, verdict.diagnostics, verdict.errors
    problems = []
    if verdict.output is not None and verdict.ours != "nothing":
        # Declared dims say only "not static"; the inferred intervals must be OpenVINO's.
        ours, theirs = verdict.ours, str(verdict.output.get_partial_shape())
        if ours != theirs:
            problems.append(f"disagrees: irpool infers {ours}, OpenVINO {theirs}")
    if claim is not None:
        problems += [f"disagrees: {d.code} {d.message}" for d in errors if d.code in CLAIM_RULES]
        problems += [
            f"rejects what OpenVINO accepts: {d.code} {d.message}"
            for d in errors
            if d.code not in CLAIM_RULES and not RULES[d.code].is_strictness
        ]
    elif not any(RULES[d.code].runtime == "rejects" for d in errors if d.code not in CLAIM_RULES):
        problems.append(f"accepts what OpenVINO rejects: {[d.code for d in diagnostics]}")
    return Outcome(config, claim is not None, claim, problems, len(errors))


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    core = ov.Core()
    directory = tmp_path_factory.mktemp("reshape_family")
    indices = [*range(sum(COUNTS.values())), *range(RUN_BASE, RUN_BASE + sum(RUN_COUNTS.values()))]
    return check_shapes(core, directory, [random_config(i) for i in indices])


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        verdict = "accepted" if outcome.accepted else "rejected"
        counts[f"{outcome.config.op} {verdict}"] += 1
        shape = outcome.claim.dims if outcome.claim else None
        if outcome.accepted and outcome.config.op != "Convert" and shape and -1 in shape:
            counts["non-static output"] += 1
    minimum = {f"{op} accepted": count // 3 for op, count in COUNTS.items()}
    minimum |= {"Reshape rejected": 50, "Squeeze rejected": 10, "Unsqueeze rejected": 10}
    minimum["non-static output"] = 80
    assert {k: counts[k] for k, v in minimum.items() if counts[k] < v} == {}, counts


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    failing = [o for o in outcomes if o.problems]
    shown = "\n".join(f"{o.config.describe()}: {o.problems[0]}" for o in failing[:MAX_REPORTED])
    assert not failing, f"{len(failing)} of {len(outcomes)} configurations disagree:\n{shown}"


# --------------------------------------------------------------------------------------------
# Run
# --------------------------------------------------------------------------------------------


def random_input(config: Config, shape: tuple[int, ...]) -> NDArray[Any]:
    rng = np.random.default_rng(config.index)
    dtype = np.dtype(NUMPY[config.element_type])
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        wide = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
        small = rng.integers(-300 if dtype.kind == "i" else 0, 300, size=shape).astype(dtype)
        return np.where(rng.random(shape) < 0.5, wide, small)
    values = rng.normal(0, 200, size=shape)
    specials = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 1e19, 65520.0, -0.7, 2.5, 1e300])
    picked = specials[rng.integers(0, len(specials), size=shape)]
    values = np.where(rng.random(shape) < 0.3, picked, values)
    with np.errstate(over="ignore"):
        return values.astype(dtype)


def runnable(outcome: Outcome) -> bool:
    config, claim = outcome.config, outcome.claim
    if outcome.irpool_errors or claim is None or claim.dims is None or -1 in claim.dims:
        return False
    if config.shape == "..." or -1 in (parameter_claim(config).dims or ()):
        return False
    return claim.element_type != "dynamic"


def as_comparable(array: NDArray[Any], element_type: str) -> NDArray[Any]:
    """OpenVINO returns bf16 as raw 16-bit values; irpool holds bf16 as f32."""
    if element_type == "bf16" and array.dtype != np.float32:
        return (array.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    return array


def test_run_matches_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    chosen = [o for o in outcomes if runnable(o)]
    per_op = Counter(o.config.op for o in chosen)
    assert per_op["Reshape"] >= 300 and min(per_op.values()) >= 100, per_op
    core = ov.Core()
    problems: list[str] = []
    for start in range(0, len(chosen), BATCH_SIZE):
        batch = chosen[start : start + BATCH_SIZE]
        path = write(tmp_path, f"run{start}", [(o.config, o.claim) for o in batch if o.claim])
        model = irpool.load(path)
        inputs = {
            f"in{o.config.index}": random_input(o.config, parameter_claim(o.config).dims or ())
            for o in batch
        }
        compiled = core.compile_model(
            str(path), "CPU", {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": 1}
        )
        expected = compiled(inputs)
        actual = model.run(inputs)
        for output, value in expected.items():
            name = output.get_any_name()
            outcome = next(o for o in batch if f"out{o.config.index}" == name)
            assert outcome.claim is not None
            theirs = as_comparable(np.asarray(value), outcome.claim.element_type)
            ours = np.asarray(actual[name])
            if theirs.shape != ours.shape or not np.array_equal(
                ours, theirs, equal_nan=ours.dtype.kind == "f"
            ):
                source = inputs[f"in{outcome.config.index}"].ravel()[:6]
                problems.append(
                    f"{outcome.config.describe()}: input {source} irpool {ours.ravel()[:6]} "
                    f"OpenVINO {theirs.ravel()[:6]}"
                )
    shown = "\n".join(problems[:MAX_REPORTED])
    assert not problems, f"{len(problems)} of {len(chosen)} configurations differ:\n{shown}"
