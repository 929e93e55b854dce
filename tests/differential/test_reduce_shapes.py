"""Differential test: shape inference and verdicts of ReduceMean-1, ReduceMax-1 and
AdaptiveMaxPool-8 against OpenVINO's `read_model`.

Configurations are small IRs written as XML text (Parameter -> op with a Const or Parameter
second input -> Result), drawn from a seeded generator, so configuration #n can be rebuilt
with `random_config(n)`: data shapes with dynamic dims, intervals, dynamic rank and scalars;
axes of every integer type and of a float type, scalar, 1-D, 2-D or empty, with negative,
repeated and out-of-range values; keep_dims in every spelling; output_size and
index_element_type as AdaptiveMaxPool takes them. Each verdict is the one of the
configuration's file alone, though most are read and loaded `BATCH_SIZE` to a file
(`check_batch`). Checked for every configuration, as in
tests/differential/test_avg_pool_shapes.py:
1. OpenVINO accepts: irpool infers the same shape for every output, and its errors are
   strictness rules only (OpenVINO never checks the declared dims, so IR301/IR302/IR305 are
   not counted: the ports here declare the input's dims).
2. OpenVINO rejects: irpool reports an error of a rule whose runtime "rejects".
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import irpool
from irpool.rules import RULES, Severity
from tests import ir
from tests.differential.pool_shapes import (
    CLAIM_RULES,
    OutputSize,
    PortClaim,
    naive_dims,
    output_size_layer,
    pick,
    port,
    random_output_size,
    random_shape,
)
from tests.differential.shape_batches import (
    BATCH_SIZE,
    errors_by_position,
    positioned,
    predicts_rejection,
    read_in_batches,
)

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

CONFIG_COUNT = 1500
SEED = "irpool-differential-shapes-reductions-1"
OPS = {"ReduceMean": 40, "ReduceMax": 40, "AdaptiveMaxPool": 20}
REDUCE_OPSETS = {"opset1": 40, "opset8": 20, "opset13": 20, "opset17": 15, "opset0": 5}
ADAPTIVE_OPSETS = {"opset8": 60, "opset14": 20, "opset16": 15, "opset1": 5}
ELEMENT_TYPES = {"f32": 70, "f16": 8, "i32": 8, "u8": 5, "boolean": 4, "dynamic": 5}
KEEP_DIMS = {"true": 30, "false": 30, "1": 5, "0": 5, "True": 5, "yes": 5, "": 5, None: 15}
INDEX_TYPES = {"i32": 45, "i64": 25, "I32": 5, "u8": 5, "f32": 5, "": 5, None: 10}


@dataclass(frozen=True)
class Config:
    index: int
    op_type: str
    opset: str
    shape: str  # the data Parameter's `shape` attribute, verbatim
    element_type: str
    attrs: tuple[tuple[str, str], ...]
    second: OutputSize  # axes or output_size: a Const (with values) or a Parameter

    def describe(self) -> str:
        source = "Parameter" if self.second.values is None else f"Const {list(self.second.values)}"
        return (
            f"#{self.index} {self.op_type} {self.opset} shape={self.shape!r} "
            f"{self.element_type} {dict(self.attrs)} second input: {source} "
            f"{self.second.element_type} shape={list(self.second.shape)}"
        )


def random_axes(rng: random.Random, rank: int | None) -> OutputSize:
    if rng.random() < 0.1:
        shape = rng.choice([(1,), (2,), ()])
        return OutputSize("i64", shape, None)
    element_type = rng.choices(["i64", "i32", "u8", "f32"], [50, 35, 8, 7])[0]
    span = max(rank or 3, 1)
    count = rng.choices([0, 1, 2, 3], [8, 45, 35, 12])[0]
    values = [rng.randint(-span, span - 1) for _ in range(count)]
    if values and rng.random() < 0.1:
        values[0] = rng.choice([span, -span - 1, span + 2])  # out of range
    if element_type == "u8":
        values = [abs(v) for v in values]
    shape: tuple[int, ...] = (len(values),)
    if len(values) == 1 and rng.random() < 0.35:
        shape = ()
    elif len(values) == 2 and rng.random() < 0.05:
        shape = (1, 2)
    return OutputSize(element_type, shape, tuple(values))


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}:{index}")
    op_type = pick(rng, OPS)
    element_type = pick(rng, ELEMENT_TYPES)
    attrs: dict[str, str] = {}
    if op_type == "AdaptiveMaxPool":
        rank = rng.choices([3, 4, 5, 2, None], [30, 30, 30, 3, 7])[0]
        index_type = rng.choices(list(INDEX_TYPES), list(INDEX_TYPES.values()))[0]
        if index_type is not None:
            attrs["index_element_type"] = index_type
        spatial = rank - 2 if rank is not None and rank >= 3 else 2
        second = random_output_size(rng, spatial)
        opset = pick(rng, ADAPTIVE_OPSETS)
    else:
        rank = rng.choices([0, 1, 2, 3, 4, 5, None], [4, 10, 15, 20, 30, 10, 11])[0]
        keep_dims = rng.choices(list(KEEP_DIMS), list(KEEP_DIMS.values()))[0]
        if keep_dims is not None:
            attrs["keep_dims"] = keep_dims
        second = random_axes(rng, rank)
        opset = pick(rng, REDUCE_OPSETS)
    shape = random_shape(rng, rank)
    return Config(index, op_type, opset, shape, element_type, tuple(attrs.items()), second)


def render_layers(
    config: Config, position: int | None = None, offset: int = 0
) -> tuple[list[str], list[str], bytes | None]:
    """Parameter -> op -> Result, with the second input (its bytes at `offset`): ids 0 to 3,
    or from 4 * `position` in a batch, where each layer's name ends with the position."""
    base, suffix = (0, "") if position is None else (4 * position, str(position))
    precision = ir.PRECISIONS.get(config.element_type, "FP32")
    data = PortClaim(naive_dims(config.shape), precision)
    second = PortClaim(config.second.shape, ir.PRECISIONS[config.second.element_type])
    second_layer, weights = output_size_layer(config.second, second, base + 1, suffix, offset)
    outputs = [port(9, data, output=True, names=f"out{suffix}")]
    if config.op_type == "AdaptiveMaxPool":
        outputs.append(port(10, data, output=True))
    parameter = ir.data([("shape", config.shape), ("element_type", config.element_type)])
    layers = [
        ir.layer(base, f"in{suffix}", "Parameter", "opset1", parameter,
              outputs=[port(0, data, output=True)]),
        second_layer,
        ir.layer(base + 2, f"pool{suffix}", config.op_type, config.opset, ir.data(config.attrs),
              inputs=[port(0, data, output=False), port(1, second, output=False)],
              outputs=outputs),
        ir.layer(base + 3, f"out{suffix}", "Result", "opset1",
              inputs=[port(0, data, output=False)]),
    ]  # fmt: skip
    edges = [(0, 0, 2, 0), (1, 0, 2, 1), (2, 9, 3, 0)]
    return layers, [ir.edge(a + base, b, c + base, d) for a, b, c, d in edges], weights


def write_ir(directory: Path, name: str, configs: list[Config]) -> Path:
    """The configurations in one file (one alone: as `render_layers` writes it alone), their
    .bin never empty: OpenVINO cannot map an empty .bin ("ptr is Null")."""
    layers, edges, blob, weighs = [], [], b"", False
    for position, config in enumerate(configs):
        place = None if len(configs) == 1 else position
        more, joins, weights = render_layers(config, place, len(blob))
        layers += more
        edges += joins
        blob += weights or b""
        weighs |= weights is not None
    path = directory / f"{name}.xml"
    path.write_text(ir.net(layers, edges, name))
    if weighs:
        path.with_suffix(".bin").write_bytes(blob + bytes(8))
    return path


@dataclass(frozen=True)
class Outcome:
    config: Config
    openvino: str  # "rejects: ..." or the output shapes
    irpool: str
    problem: str  # empty: agrees


def read_alone(core: Any, path: Path) -> tuple[list[str] | None, str]:
    """OpenVINO's shapes of the op's outputs (None: it refuses the file), and its verdict."""
    try:
        node = next(
            n for n in core.read_model(path).get_ordered_ops() if n.get_friendly_name() == "pool"
        )
    except Exception as error:  # the runtime's verdict, whatever its exception type
        return None, "rejects: " + " | ".join(str(error).strip().splitlines()[-1:])[:200]
    return accepted(node)


def accepted(node: Any) -> tuple[list[str], str]:
    expected = [str(node.get_output_partial_shape(i)) for i in range(node.get_output_size())]
    return expected, f"accepts: {expected}"


def check_config(core: Any, directory: Path, config: Config) -> Outcome:
    path = write_ir(directory, f"config{config.index}", [config])
    expected, seen = read_alone(core, path)
    model = irpool.load(path)
    errors = [d for d in model.validate() if d.severity is Severity.ERROR]
    inferred = [str(shape) for shape in model.output_shapes().get("pool", [])]
    return judge(config, expected, seen, errors, inferred)


def judge(
    config: Config,
    expected: list[str] | None,
    seen: str,
    found: list[irpool.Diagnostic],
    inferred: list[str],
) -> Outcome:
    """The outcome of a configuration: irpool's errors (`found`) and shapes of the op's
    outputs (`inferred`) against OpenVINO's (`expected`, None: refused; `seen`: its verdict)."""
    errors = {d.code for d in found} - CLAIM_RULES
    ours = f"{inferred or 'not inferred'}, errors {sorted(errors)}"
    problem = ""
    if expected is not None:
        if inferred and inferred != expected:
            problem = "shape differs"
        elif not inferred and not errors:
            problem = "not inferred, no error"
        elif any(not RULES[code].is_strictness for code in errors):
            problem = "accepted file gets a runtime error"
    elif not any(RULES[code].runtime == "rejects" for code in errors):
        problem = "rejected file gets no rejecting error"
    return Outcome(config, seen, ours, problem)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    core = ov.Core()
    directory = tmp_path_factory.mktemp("differential_shapes_reductions")
    configs = [random_config(i) for i in range(CONFIG_COUNT)]
    outcomes: dict[int, Outcome] = {}
    for start in range(0, CONFIG_COUNT, BATCH_SIZE):
        outcomes |= check_batch(core, directory, configs[start : start + BATCH_SIZE])
    return [outcomes[config.index] for config in configs]


def check_batch(core: Any, directory: Path, configs: list[Config]) -> dict[int, Outcome]:
    """`check_config` of each configuration, from batch files (tests/differential/
    shape_batches.py): irpool loads them all once, and its findings predict which OpenVINO
    refuses; those are read alone, the rest in batches, split where OpenVINO refuses one.
    A configuration a batch cannot judge is checked alone."""
    if len(configs) == 1:
        return {configs[0].index: check_config(core, directory, configs[0])}
    try:
        model = irpool.load(write_ir(directory, f"batch{configs[0].index}", configs))
    except Exception:  # the configuration that makes irpool raise, raises alone
        model = None
    found = None if model is None else errors_by_position(model, len(configs), 4)
    if model is None or found is None:
        return {c.index: check_config(core, directory, c) for c in configs}
    inferred: list[list[str]] = [[] for _ in configs]
    for name, shapes in model.output_shapes().items():
        place = positioned(name)
        if place is not None and place[0] == "pool":
            inferred[place[1]] = [str(shape) for shape in shapes]
    outcomes, batched = {}, []
    for position, config in enumerate(configs):
        if not predicts_rejection(found[position]):
            batched.append(position)
            continue
        expected, seen = read_alone(core, write_ir(directory, f"config{config.index}", [config]))
        outcomes[config.index] = (
            check_config(core, directory, config)  # irpool was wrong: as it always is alone
            if expected is not None
            else judge(config, None, seen, found[position], inferred[position])
        )

    def read_batch(positions: list[int]) -> Any:
        name = f"read{configs[positions[0]].index}_{len(positions)}"
        return core.read_model(write_ir(directory, name, [configs[p] for p in positions]))

    for positions, read in read_in_batches(batched, read_batch):
        nodes = {} if read is None else {n.get_friendly_name(): n for n in read.get_ordered_ops()}
        for number, position in enumerate(positions):
            config, node = configs[position], nodes.get(f"pool{number}")
            outcomes[config.index] = (
                check_config(core, directory, config)
                if node is None or len(positions) == 1
                else judge(config, *accepted(node), found[position], inferred[position])
            )
    return outcomes


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    accepted = [o for o in outcomes if o.openvino.startswith("accepts")]
    assert len(accepted) >= 0.5 * len(outcomes)
    assert len(outcomes) - len(accepted) >= 0.1 * len(outcomes)
    counts: Counter[str] = Counter()
    for outcome in accepted:
        counts[outcome.config.op_type] += 1
        if any(mark in outcome.openvino for mark in ("?", "..")):
            counts[f"{outcome.config.op_type} non-static"] += 1
        if "[...]" in outcome.openvino:
            counts[f"{outcome.config.op_type} dynamic rank"] += 1
        if outcome.config.second.values is None:
            counts["second input not constant"] += 1
    wanted = [f"{op}{kind}" for op in OPS for kind in ("", " non-static", " dynamic rank")]
    assert [f for f in [*wanted, "second input not constant"] if counts[f] < 10] == [], counts


def test_irpool_matches_openvino(outcomes: list[Outcome]) -> None:
    failing = [o for o in outcomes if o.problem]
    kinds = Counter(o.problem for o in failing)
    shown = "\n".join(
        f"  {o.config.describe()}\n    OpenVINO {o.openvino}\n    irpool {o.irpool}: {o.problem}"
        for o in failing[:20]
    )
    assert not failing, f"{len(failing)} of {len(outcomes)} differ ({dict(kinds)}):\n{shown}"
