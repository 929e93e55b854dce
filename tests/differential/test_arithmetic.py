"""Live differential test: Add, Subtract, Multiply, Divide, Mod, FloorMod, Power, Greater, Equal
and NotEqual against OpenVINO.

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

import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from tests.differential.test_activations import (
    CPU_CONFIG,
    MAX_REPORTED,
    NUMPY,
    PER_OP,
    declared,
    port,
    random_dim,
    random_input,
    shape_problems,
)
from tests.differential.test_activations import write as write_ir

ov = pytest.importorskip("openvino")

pytestmark = pytest.mark.oracle

SEED = "irpool-differential-arithmetic-1"
OPS = (
    "Add", "Subtract", "Multiply", "Divide", "Mod", "FloorMod", "Power", "Greater", "Equal",
    "NotEqual",
)  # fmt: skip
COMPARISONS = ("Greater", "Equal", "NotEqual")
TYPES = ("f32", "f32", "f32", "i32", "i32", "i64", "f16", "f64", "i8", "u8", "i16", "u16", "u32")
BATCH_SIZE = 60
ELEMENT_NAMES = {
    "f32": "f32", "f16": "f16", "bf16": "bf16", "f64": "f64", "i8": "i8", "i16": "i16",
    "i32": "i32", "i64": "i64", "u8": "u8", "u16": "u16", "u32": "u32", "u64": "u64",
    "boolean": "boolean",
}  # fmt: skip


@dataclass(frozen=True)
class Config:
    index: int
    op: str
    types: tuple[str, str]
    shapes: tuple[str, str]  # Parameter shape attributes: "2,?,1..4", "" (scalar) or "..."
    constant: bool  # the second input is a Const (static shape)
    attrs: tuple[tuple[str, str], ...]

    def describe(self) -> str:
        second = "Const" if self.constant else "Parameter"
        return (
            f"#{self.index} {self.op} {dict(self.attrs)} on {self.types[0]}[{self.shapes[0]}]"
            f" and {second} {self.types[1]}[{self.shapes[1]}]"
        )

    @property
    def static(self) -> bool:
        return all(d.isdigit() or d == "" for shape in self.shapes for d in shape.split(","))


def partner(rng: random.Random, dims: list[str]) -> list[str]:
    """A second input's dims for `dims`: mostly broadcast partners."""
    if rng.random() < 0.1:
        return [random_dim(rng) for _ in range(rng.randint(0, 4))]
    chosen = [rng.choice((d, d, "1", random_dim(rng))) if rng.random() < 0.5 else d for d in dims]
    if chosen and rng.random() < 0.3:
        chosen = chosen[rng.randint(1, len(chosen)) :]  # a lower rank
    if rng.random() < 0.1:
        chosen = [str(rng.randint(1, 3)), *chosen]  # a higher rank
    return chosen


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    op = OPS[index % len(OPS)]
    first = rng.choice(TYPES)
    second = first if rng.random() < 0.95 else rng.choice((*TYPES, "boolean"))
    if rng.random() < 0.03:
        first = second = "boolean"
    dims = [random_dim(rng) for _ in range(rng.choice((0, 1, 2, 3, 3, 4)))]
    other = partner(rng, dims)
    if rng.random() < 0.05:
        swapped = ",".join(dims)
        dims = other
        other = swapped.split(",") if swapped else []
    shapes = ("..." if rng.random() < 0.03 else ",".join(dims), ",".join(other))
    mode = rng.choice(("numpy",) * 12 + ("none", "none", "pdpd", "pdpd", "explicit", "NUMPY"))
    attrs: tuple[tuple[str, str], ...] = () if rng.random() < 0.15 else (("auto_broadcast", mode),)
    if op == "Divide" and rng.random() < 0.85:
        attrs += (("m_pythondiv", rng.choice(("true", "false"))),)
    constant = all(d.isdigit() for d in other) and rng.random() < 0.25
    return Config(index, op, (first, second), shapes, constant, attrs)


# --------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------


def second_input(config: Config) -> NDArray[Any]:
    shape = tuple(int(d) for d in config.shapes[1].split(",") if d)
    return random_input(config.index + 1_000_000, config.types[1], shape)


def render_layers(
    config: Config, output: tuple[str, list[str] | None], base: int, offset: int
) -> tuple[str, str, bytes]:
    n, op = config.index, base + 2
    layers, inputs, edges, blob = [], [], [], b""
    for position, (kind, shape) in enumerate(zip(config.types, config.shapes, strict=True)):
        dims = declared(shape)
        if position == 1 and config.constant:
            value = second_input(config)
            blob = value.astype(value.dtype.newbyteorder("<")).tobytes()
            layers.append(
                f'<layer id="{base + 1}" name="c{n}" type="Const" version="opset1">'
                f'<data element_type="{kind}" shape="{shape}" offset="{offset}" '
                f'size="{len(blob)}"/><output>{port(0, kind, dims)}</output></layer>'
            )
        else:
            layers.append(
                f'<layer id="{base + position}" name="in{position}_{n}" type="Parameter" '
                f'version="opset1"><data shape="{shape}" element_type="{kind}"/>'
                f"<output>{port(0, kind, dims, f'in{position}_{n}')}</output></layer>"
            )
        inputs.append(port(position, kind, dims))
        edges.append(
            f'<edge from-layer="{base + position}" from-port="0" to-layer="{op}" '
            f'to-port="{position}"/>'
        )
    data = "".join(f' {name}="{value}"' for name, value in config.attrs)
    out_type, out_dims = output
    layers.append(
        f'<layer id="{op}" name="op{n}" type="{config.op}" version="opset1"><data{data}/>'
        f"<input>{''.join(inputs)}</input>"
        f"<output>{port(2, out_type, out_dims, f'out{n}')}</output></layer>"
        f'<layer id="{base + 3}" name="out{n}" type="Result" version="opset1">'
        f"<input>{port(0, out_type, out_dims)}</input></layer>"
    )
    edges.append(f'<edge from-layer="{op}" from-port="2" to-layer="{base + 3}" to-port="0"/>')
    return "".join(layers), "".join(edges), blob


def write(directory: Path, name: str, configs: list[tuple[Config, tuple[str, Any]]]) -> Path:
    return write_ir(directory, name, configs, render_layers)


def openvino_output(model: Any) -> tuple[str, list[str] | None]:
    output = model.output(0)
    shape = output.get_partial_shape()
    dims = (
        None
        if shape.rank.is_dynamic
        else [str(d.get_length()) if d.is_static else "-1" for d in shape]
    )
    return ELEMENT_NAMES[output.get_element_type().get_type_name()], dims


# --------------------------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    config: Config
    output: tuple[str, list[str] | None] | None  # OpenVINO's, when it accepts the file
    problems: list[str]


def check_shapes(core: Any, directory: Path, config: Config) -> Outcome:
    naive = ("boolean" if config.op in COMPARISONS else config.types[0], None)
    path = write(directory, f"shape{config.index}", [(config, naive)])
    try:
        model = core.read_model(path)
    except Exception:  # read_model raises plain RuntimeErrors: any failure is a rejection
        model = None
    output = None if model is None else openvino_output(model)
    if output is not None:
        path = write(directory, f"shape{config.index}", [(config, output)])
    return Outcome(config, output, shape_problems(path, model))


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    core = ov.Core()
    directory = tmp_path_factory.mktemp("arithmetic")
    return [check_shapes(core, directory, random_config(i)) for i in range(PER_OP * len(OPS))]


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


def same(actual: NDArray[Any], expected: NDArray[Any]) -> bool:
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return False
    if expected.dtype.kind != "f":
        return bool(np.array_equal(actual, expected))
    found = ~np.isnan(expected)
    if not np.array_equal(np.isnan(actual), ~found):
        return False
    return actual[found].tobytes() == expected[found].tobytes()  # -0 is not 0


def is_pdpd(config: Config) -> bool:
    return dict(config.attrs).get("auto_broadcast", "").lower() == "pdpd"


def known_uncompiled(config: Config) -> bool:
    """The gap irpool leaves: the CPU plugin cannot compile a `none` or `explicit` op whose
    inputs are a scalar and a scalar Const (it makes the Const [1]); irpool runs it."""
    mode = dict(config.attrs).get("auto_broadcast", "numpy").lower()
    return mode in ("none", "explicit") and config.constant and config.shapes == ("", "")


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
    core: Any, path: Path, batch: list[tuple[Config, Any]]
) -> tuple[list[str], list[Config]]:
    """Problems of a batch, and the configurations the CPU plugin cannot compile (each
    then run alone)."""
    inputs: dict[str, NDArray[Any]] = {}
    for config, _ in batch:
        shape = tuple(int(d) for d in config.shapes[0].split(",") if d)
        inputs[f"in0_{config.index}"] = random_input(config.index, config.types[0], shape)
        if not config.constant:
            inputs[f"in1_{config.index}"] = second_input(config)
    try:
        compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
    except RuntimeError:
        if len(batch) == 1:
            return [], [batch[0][0]]
        failing, uncompiled = [], []
        for position, item in enumerate(batch):
            alone = write(path.parent, f"{path.stem}_{position}", [item])
            more, refused = run_batch(core, alone, [item])
            failing += more
            uncompiled += refused
        return failing, uncompiled
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
    return failing, []


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    """Batches of configurations; `pdpd` ones are checked for shapes only: the CPU plugin
    cannot compile some of them and runs others another way (docs/semantics.md)."""
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
    for start in range(0, len(runnable), BATCH_SIZE):
        batch = runnable[start : start + BATCH_SIZE]
        more, refused = run_batch(core, write(tmp_path, f"run{start}", batch), batch)
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
