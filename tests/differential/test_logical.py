"""Live differential test: the logical and bitwise families (irpool/ops/logical.py) against
OpenVINO.

Binary configuration #n (`random_config(n)`) is one of LogicalAnd, LogicalOr, LogicalXor,
BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseLeftShift, BitwiseRightShift on two inputs of drawn
types (boolean and integers mostly; floats and mixed types sometimes, which read_model
refuses) and broadcast dims (tests/differential/arithmetic_cases.py draws and renders them);
shift counts run from -40 to 69. Unary configuration #n (`unary_config(n)`) is LogicalNot or
BitwiseNot on one input of any type.

Shapes: `read_model` is the oracle. Runs (accepted static configurations, numpy, none and
explicit broadcasts): batches compiled once on the CPU plugin (f32 inference precision) and
run on seeded inputs (each integer type's extremes, half-true booleans, floats with NaN, ±inf,
±0); outputs must equal the CPU's bit for bit.

IRPOOL_TEST_SCALE scales the number of configurations per op (default 300 / 3).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from numpy.typing import NDArray

import irpool
from tests.differential.arithmetic_cases import (
    Config,
    Outcome,
    check_shapes,
    known_uncompiled,
    operand,
    partner,
    same,
    second_input,
    write,
)
from tests.differential.harness import (
    CPU_CONFIG,
    MAX_REPORTED,
    NUMPY,
    PER_OP,
    random_dim,
)
from tests.differential.harness import write as write_ir
from tests.differential.single_input import (
    assert_shapes_agree,
    read_model_verdicts,
    render_op,
    run_differences,
    runnable,
)

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-logical-1"
BINARY = (
    "LogicalAnd", "LogicalOr", "LogicalXor", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
    "BitwiseLeftShift", "BitwiseRightShift",
)  # fmt: skip
UNARY = {"LogicalNot": "opset1", "BitwiseNot": "opset13"}
PER_LOGICAL_OP = max(1, PER_OP // 3)
INTEGERS = ("i32", "i32", "i64", "i8", "u8", "i16", "u16", "u32", "u64")
OTHER_TYPES = ("f32", "f16", "f64", "bf16")
BATCH_SIZE = 60


def element_types(rng: random.Random, op: str) -> tuple[str, str]:
    if rng.random() < 0.08:
        return rng.choice(OTHER_TYPES + INTEGERS), rng.choice(("boolean", *INTEGERS))
    if op.startswith("Logical"):
        kind = "boolean"
    elif "Shift" in op:
        kind = rng.choice(INTEGERS)
    else:
        kind = rng.choice(("boolean", "boolean", *INTEGERS))
    return kind, kind


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    op = BINARY[index % len(BINARY)]
    dims = [random_dim(rng) for _ in range(rng.choice((0, 1, 2, 3, 3, 4)))]
    other = partner(rng, dims)
    shapes = ("..." if rng.random() < 0.03 else ",".join(dims), ",".join(other))
    mode = rng.choice(("numpy",) * 12 + ("none", "none", "pdpd", "explicit"))
    attrs = () if rng.random() < 0.15 else (("auto_broadcast", mode),)
    constant = all(d.isdigit() for d in other) and rng.random() < 0.25
    return Config(index, op, element_types(rng, op), shapes, constant, attrs)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    core = ov.Core()
    directory = tmp_path_factory.mktemp("logical")
    count = PER_LOGICAL_OP * len(BINARY)
    return check_shapes(core, directory, [random_config(i) for i in range(count)])


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        verdict = "accepted" if outcome.output else "rejected"
        counts[f"{outcome.config.op} {verdict}"] += 1
        counts["runs"] += outcome.output is not None and outcome.config.static
    minimum = {f"{op} accepted": PER_LOGICAL_OP // 2 for op in BINARY}
    minimum |= {f"{op} rejected": 1 for op in BINARY}
    minimum |= {"runs": PER_LOGICAL_OP * len(BINARY) // 3}
    assert {k: counts[k] for k, v in minimum.items() if counts[k] < v} == {}, counts


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    failing = [o for o in outcomes if o.problems]
    shown = "\n".join(f"{o.config.describe()}: {o.problems[0]}" for o in failing[:MAX_REPORTED])
    assert not failing, f"{len(failing)} of {len(outcomes)} configurations disagree:\n{shown}"


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    core = ov.Core()
    chosen = [
        (o.config, o.output)
        for o in outcomes
        if o.output is not None
        and o.config.static
        and set(o.config.types) <= set(NUMPY)
        and dict(o.config.attrs).get("auto_broadcast", "numpy").lower() != "pdpd"
        and not known_uncompiled(o.config)
    ]
    failing: list[str] = []
    for start in range(0, len(chosen), BATCH_SIZE):
        batch = chosen[start : start + BATCH_SIZE]
        path = write(tmp_path, f"run{start}", batch)
        inputs: dict[str, NDArray[Any]] = {}
        for config, _ in batch:
            shape = tuple(int(d) for d in config.shapes[0].split(",") if d)
            inputs[f"in0_{config.index}"] = operand(config.index, config.types[0], shape)
            if not config.constant:
                inputs[f"in1_{config.index}"] = second_input(config)
        ours = irpool.load(path).run(dict(inputs))
        compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
        results = compiled.create_infer_request().infer(inputs)
        theirs = {port.get_any_name(): value for port, value in results.items()}
        for config, _ in batch:
            name = f"out{config.index}"
            if not same(ours[name], theirs[name]):
                shown = f"irpool {ours[name].ravel()[:4]}, CPU {theirs[name].ravel()[:4]}"
                failing.append(f"{config.describe()}: {shown}")
    shown = "\n".join(failing[:MAX_REPORTED])
    assert not failing, f"{len(failing)} of {len(chosen)} runs differ:\n{shown}"


# --------------------------------------------------------------------------------------------
# LogicalNot and BitwiseNot
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class UnaryConfig:
    index: int
    op: str
    element_type: str
    shape: str

    def describe(self) -> str:
        return f"#{self.index} {self.op} on {self.element_type}[{self.shape}]"


def unary_config(index: int) -> UnaryConfig:
    rng = random.Random(f"{SEED}-unary-{index}")
    op = tuple(UNARY)[index % len(UNARY)]
    dims = [random_dim(rng) for _ in range(rng.choice((0, 1, 2, 3, 3, 4)))]
    kind = rng.choice(("boolean", "boolean", "f32", "f64", "f16", *INTEGERS))
    return UnaryConfig(index, op, kind, ",".join(dims))


def render_unary(
    config: UnaryConfig, output: tuple[str, list[str] | None], base: int, offset: int
) -> tuple[str, str, bytes]:
    return render_op(config, output, base, (config.op, UNARY[config.op], ""))


def write_unary(directory: Path, name: str, configs: list[tuple[Any, tuple[str, Any]]]) -> Path:
    return write_ir(directory, name, configs, render_unary)


def test_unary_ops_match_openvino(tmp_path: Path) -> None:
    core = ov.Core()
    configs = [unary_config(i) for i in range(PER_LOGICAL_OP * len(UNARY))]
    verdicts = read_model_verdicts(core, tmp_path, configs, write_unary)
    assert_shapes_agree(verdicts)
    assert sum(not v.accepted for v in verdicts) >= 1  # BitwiseNot of floats
    chosen = runnable(verdicts, NUMPY)

    def unary_input(config: UnaryConfig) -> NDArray[Any]:
        shape = tuple(int(d) for d in config.shape.split(",") if d)
        return operand(config.index, config.element_type, shape)

    def agrees(config: Any, ours: NDArray[Any], theirs: NDArray[Any], x: NDArray[Any]) -> bool:
        return same(ours, theirs)

    message = run_differences(core, tmp_path, chosen, write_unary, unary_input, agrees, BATCH_SIZE)
    assert not message, message
