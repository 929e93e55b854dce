"""Live differential test: Add, Subtract, Multiply, Divide, Mod, FloorMod, Power, Minimum,
Maximum, SquaredDifference and the comparisons (Greater, GreaterEqual, Less, LessEqual, Equal,
NotEqual) against OpenVINO.

Configuration #n (rebuilt alone with `random_config(n)`) is one op on two inputs of one
element type (sometimes two types, or boolean); the second input's dims are mostly the first's
broadcast partners (equal, 1, missing, other), static, dynamic or intervals, with every
`auto_broadcast` (numpy, none, pdpd, explicit, upper case, absent) and, for Divide,
`m_pythondiv` true, false or absent. The second input is a Parameter, or a Const.

Shapes (every configuration): OpenVINO's `read_model` is the oracle. When it accepts the file,
the declared output is rewritten to what it inferred and irpool must infer the same intervals
and report no error but strictness rules; when it rejects the file, irpool must report an
error of a rule whose runtime "rejects".

Run (accepted configurations with static shapes): batches compiled once on the CPU plugin
(f32 inference precision) and run on seeded inputs holding NaN, ±inf, ±0, huge values, each
integer type's extremes, zeros (division by zero) and negatives; outputs must be equal bit
for bit (NaN where the CPU has NaN); Power within 1 f32 ulp (the CPU's pow is not always the
nearest f32), before integer results are truncated.

IRPOOL_TEST_SCALE scales the number of configurations per op (default 300).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from tests.differential.arithmetic_cases import (
    OPS,
    Config,
    Outcome,
    check_shapes,
    known_uncompiled,
    random_config,
    same,
    second_input,
    write,
)
from tests.differential.harness import (
    CPU_CONFIG,
    MAX_REPORTED,
    NUMPY,
    PER_OP,
    random_input,
    split_compiles,
)

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

BATCH_SIZE = 60


# --------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    core = ov.Core()
    directory = tmp_path_factory.mktemp("arithmetic")
    return check_shapes(core, directory, [random_config(i) for i in range(PER_OP * len(OPS))])


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        verdict = "accepted" if outcome.output else "rejected"
        counts[f"{outcome.config.op} {verdict}"] += 1
        mode = dict(outcome.config.attrs).get("auto_broadcast", "numpy").lower()
        counts[f"{mode} {verdict}"] += 1
        counts["runs"] += outcome.output is not None and outcome.config.static
        counts["non-static output"] += outcome.output is not None and "-1" in (
            outcome.output[1] or ["-1"]
        )
    minimum = {f"{op} accepted": PER_OP // 2 for op in OPS}
    minimum |= {f"{op} rejected": PER_OP // 20 for op in OPS}
    minimum |= {f"{mode} accepted": PER_OP // 20 for mode in ("none", "pdpd")}
    minimum |= {"runs": PER_OP * len(OPS) // 3, "non-static output": PER_OP // 2}
    assert {k: counts[k] for k, v in minimum.items() if counts[k] < v} == {}, counts


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    failing = [o for o in outcomes if o.problems]
    shown = "\n".join(f"{o.config.describe()}: {o.problems[0]}" for o in failing[:MAX_REPORTED])
    assert not failing, f"{len(failing)} of {len(outcomes)} configurations disagree:\n{shown}"


# --------------------------------------------------------------------------------------------
# Run
# --------------------------------------------------------------------------------------------


def is_pdpd(config: Config) -> bool:
    return dict(config.attrs).get("auto_broadcast", "").lower() == "pdpd"


def by_constant(config: Config) -> bool:
    """A known difference: the CPU divides f16 by a Const as x * f16(1 / y), the reciprocal
    folded in f16 (f64 by a Const another way, measured within 1 f32 ulp of irpool's);
    irpool, whose ops cannot tell a Const divisor from another, uses the f32 reciprocal of y,
    within 1 ulp of it (of f16, or of f32 for f64 outputs)."""
    return config.op == "Divide" and config.types[0] in ("f16", "f64") and config.constant


def division_problems(
    config: Config, inputs: dict[str, NDArray[Any]], ours: NDArray[Any], theirs: NDArray[Any]
) -> list[str]:
    x = inputs[f"in0_{config.index}"]
    problems = []
    if x.dtype == np.float16:
        with np.errstate(all="ignore"):
            folded = (np.float32(1) / second_input(config).astype(np.float32)).astype(np.float16)
            measured = (x.astype(np.float32) * folded.astype(np.float32)).astype(np.float16)
        if not same(measured, theirs):
            problems.append(f"{config.describe()}: the CPU no longer divides by f16(1 / y)")
    held = theirs.astype(np.float16 if x.dtype == np.float16 else np.float32)
    with np.errstate(all="ignore"):  # the spacing of inf is NaN, inf - inf too
        step = np.abs(np.spacing(held)).astype(np.float64)
        gap = np.abs(ours.astype(np.float64) - theirs.astype(np.float64))
    if not np.array_equal(np.isnan(ours), np.isnan(theirs)) or np.any(
        (ours != theirs) & ~np.isnan(theirs) & ~(gap <= step)
    ):
        problems.append(f"{config.describe()}: irpool is over 1 ulp from the CPU")
    return problems


def by_negated_constant(config: Config) -> bool:
    """A known difference: the CPU subtracts an i64 Const c as x + (-c), the negation folded
    in i64 and then saturated to int32 as it holds every i64 constant; irpool, whose ops
    cannot tell a Const from another input, subtracts the saturated c. The two differ by one
    where c is outside int32 (c = 2**40: the CPU adds INT32_MIN, irpool subtracts INT32_MAX)."""
    return config.op == "Subtract" and config.constant and config.types[1] == "i64"


def negated_constant_problems(
    config: Config, inputs: dict[str, NDArray[Any]], ours: NDArray[Any], theirs: NDArray[Any]
) -> list[str]:
    x = inputs[f"in0_{config.index}"].astype(np.int32)  # wrapped, as the CPU takes i64
    c = second_input(config)
    bound = np.iinfo(np.int32)
    negated = np.clip(-c, bound.min, bound.max).astype(np.int32)
    measured = (x + negated).astype(theirs.dtype)
    inside = np.broadcast_to((c >= bound.min) & (c <= bound.max), theirs.shape)
    problems = []
    if not np.array_equal(measured, theirs):
        problems.append(f"{config.describe()}: the CPU no longer adds the saturated -c")
    if not np.array_equal(ours[inside], theirs[inside]):
        problems.append(f"{config.describe()}: irpool differs where c is an int32")
    return problems


def power_problems(config: Config, ours: NDArray[Any], theirs: NDArray[Any]) -> list[str]:
    """Power's values are within 1 f32 ulp of the CPU's (of the f32 result, before an integer
    one is truncated), NaN and the integer overflow value (INT32_MIN) at the same places."""
    if ours.shape != theirs.shape or ours.dtype != theirs.dtype:
        return [f"{config.describe()}: irpool {ours.dtype}{ours.shape}, CPU {theirs.dtype}"]
    with np.errstate(all="ignore"):  # the spacing of inf is NaN, inf - inf too
        wide = np.abs(theirs.astype(np.float64))
        step = np.abs(np.spacing(wide.astype(np.float32))).astype(np.float64)
        gap = np.abs(ours.astype(np.float64) - theirs.astype(np.float64))
    if theirs.dtype.kind == "f":
        apart = not np.array_equal(np.isnan(ours), np.isnan(theirs)) or np.any(
            (ours != theirs) & ~np.isnan(theirs) & ~(gap <= step)
        )
    else:  # a truncated value is at most 1 away where the spacing is under 1
        overflow = np.iinfo(np.int32).min
        apart = not np.array_equal(ours == overflow, theirs == overflow) or np.any(
            gap > np.maximum(step, 1)
        )
    return [f"{config.describe()}: irpool is over 1 ulp from the CPU"] if apart else []


def run_batch(
    core: Any, directory: Path, name: str, batch: list[tuple[Config, Any]]
) -> tuple[list[str], list[Config]]:
    """Problems of a batch, and the configurations the CPU plugin cannot compile alone
    (`split_compiles`: a batch it cannot compile is split in halves, each run as a batch)."""

    def compile_batch(part: list[tuple[Config, Any]]) -> tuple[Path, Any]:
        path = write(directory, f"{name}_{part[0][0].index}_{len(part)}", part)
        return path, core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)

    failing: list[str] = []
    uncompiled: list[Config] = []
    for part, compiled in split_compiles(batch, compile_batch):
        if isinstance(compiled, RuntimeError):
            uncompiled.append(part[0][0])
        else:
            failing += batch_problems(*compiled, part)
    return failing, uncompiled


def batch_problems(path: Path, compiled: Any, batch: list[tuple[Config, Any]]) -> list[str]:
    """How irpool's run of the batch in `path` differs from the CPU's `compiled` one."""
    inputs: dict[str, NDArray[Any]] = {}
    for config, _ in batch:
        shape = tuple(int(d) for d in config.shapes[0].split(",") if d)
        inputs[f"in0_{config.index}"] = random_input(config.index, config.types[0], shape)
        if not config.constant:
            inputs[f"in1_{config.index}"] = second_input(config)
    ours = irpool.load(path).run(dict(inputs))
    results = compiled.create_infer_request().infer(inputs)
    theirs = {port.get_any_name(): value for port, value in results.items()}
    failing = []
    for config, _ in batch:
        name = f"out{config.index}"
        if by_constant(config):
            failing += division_problems(config, inputs, ours[name], theirs[name])
        elif by_negated_constant(config):
            failing += negated_constant_problems(config, inputs, ours[name], theirs[name])
        elif config.op == "Power":
            failing += power_problems(config, ours[name], theirs[name])
        elif not same(ours[name], theirs[name]):
            wrong = ours[name] != theirs[name]
            if theirs[name].dtype.kind == "f":
                wrong &= ~(np.isnan(ours[name]) & np.isnan(theirs[name]))
            a = np.broadcast_to(inputs[f"in0_{config.index}"], wrong.shape)[wrong][:4]
            failing.append(
                f"{config.describe()}: irpool {ours[name][wrong][:4]}, "
                f"CPU {theirs[name][wrong][:4]} for a = {a}"
            )
    return failing


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    """Batches of configurations; `pdpd` ones are checked for shapes only: the CPU plugin
    cannot compile some of them and runs others another way (docs/elementwise.md#gaps).
    Those of the known gap (`known_uncompiled`) go alone, so that they split no batch."""
    core = ov.Core()
    runnable = [
        (o.config, o.output)
        for o in outcomes
        if o.output is not None
        and o.config.static
        and set(o.config.types) <= set(NUMPY)
        and not is_pdpd(o.config)
    ]
    failing: list[str] = []
    uncompiled: list[Config] = []
    batches = [[item] for item in runnable if known_uncompiled(item[0])]
    rest = [item for item in runnable if not known_uncompiled(item[0])]
    batches += [rest[start : start + BATCH_SIZE] for start in range(0, len(rest), BATCH_SIZE)]
    for number, batch in enumerate(batches):
        more, refused = run_batch(core, tmp_path, f"run{number}", batch)
        failing += more
        uncompiled += refused
    shown = "\n".join(failing[:MAX_REPORTED])
    assert not failing, f"{len(failing)} of {len(runnable)} runs differ:\n{shown}"
    unknown = [c.describe() for c in uncompiled if not known_uncompiled(c)]
    assert not unknown, f"the CPU plugin cannot compile: {unknown[:MAX_REPORTED]}"


@pytest.mark.parametrize("op", OPS)
def test_large_integer_constants_fold_as_openvino(op: str, tmp_path: Path) -> None:
    """Constants too large to fold at check time fold when a run is planned, with OpenVINO's
    reference arithmetic (Divide floors with m_pythondiv, no int32 wrap), not the kernel."""
    from openvino import opset13

    rng = np.random.default_rng(5)
    a = rng.integers(-(2**40), 2**40, 5000, dtype=np.int64)
    b = rng.integers(-9, 9, 5000, dtype=np.int64)
    b[b == 0] = 7
    build = {
        "Divide": opset13.divide,
        "Mod": opset13.mod,
        "FloorMod": opset13.floor_mod,
        "Power": opset13.power,
        "Add": opset13.add,
        "Subtract": opset13.subtract,
        "Multiply": opset13.multiply,
        "Greater": opset13.greater,
        "Equal": opset13.equal,
        "NotEqual": opset13.not_equal,
        "GreaterEqual": opset13.greater_equal,
        "Less": opset13.less,
        "LessEqual": opset13.less_equal,
        "Minimum": opset13.minimum,
        "Maximum": opset13.maximum,
        "SquaredDifference": opset13.squared_difference,
    }[op]
    parameter = opset13.parameter([1], np.int64)
    node = build(opset13.constant(a), opset13.constant(b))
    result = opset13.add(opset13.convert(node, "i64"), parameter)  # a run reads the fold
    model = ov.Model([result], [parameter])
    path = tmp_path / "fold.xml"
    ov.save_model(model, path, compress_to_fp16=False)
    inputs = {model.input(0).get_any_name(): np.zeros(1, np.int64)}
    (ours,) = irpool.load(path).run(inputs).values()
    theirs = ov.Core().compile_model(path, "CPU", CPU_CONFIG)(inputs)[0]
    np.testing.assert_array_equal(ours, theirs)
