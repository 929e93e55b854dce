"""Live differential test: the unary math family (irpool/ops/unary_math.py) against OpenVINO.

Configuration #n (rebuilt alone with `random_config(n)`) is one op of `UNARY_MATH` (its own
opset mostly, sometimes a later one or one before the op exists) on one input of a drawn
element type (float mostly; integers, boolean and bf16 too), dims static, dynamic or intervals.

Shapes (every configuration): `read_model` is the oracle; the CPU's compile too for static
ones (Negative of unsigned integers does not compile). Run (accepted configurations with static
shapes): batches compiled once on the CPU plugin (f32 inference precision) and run on seeded
inputs holding NaN, ±inf, ±0, huge values, each integer type's extremes, values in [-1.2, 1.2]
(the inverse functions' domains) and around Exp's thresholds. NaN and ±inf must be where the
CPU has them; other values within each op's measured bound (docs/elementwise.md#unary-math):
`ulps` of the f32 result (0: bit for bit, -0 included), SoftPlus within 2**-17 + 2**-21 *
|y| and Mish within 3 * 2**-24 * max(|x|, 1); an f16 result within one f16 ulp where the op's
bound is not 0 (it rounds both); an integer result within 1 where it is not 0 (the rounding of
a value within the bound).

IRPOOL_TEST_SCALE scales the number of configurations per op (default 300 / 4).
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

from irpool.execute.kernels.unary_math import MISH_BOUND, NUMERICS, SOFTPLUS_BOUND
from irpool.ops.unary_math import UNARY_MATH
from tests.differential.harness import NUMPY, PER_OP, random_dim, random_input
from tests.differential.harness import write as write_ir
from tests.differential.single_input import (
    Outcome,
    assert_covers,
    assert_shapes_agree,
    compile_verdicts,
    render_op,
    run_differences,
    runnable,
)

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-unary-math-1"
VERSIONS = {row.type_name: row.version for row in UNARY_MATH}
OPS = (
    "Abs", "Sqrt", "Exp", "Log", "Sin", "Cos", "Tan", "Tanh", "Asin", "Acos", "Atan", "Asinh",
    "Acosh", "Atanh", "Sinh", "Cosh", "Ceiling", "Negative", "Sign", "SoftPlus", "SoftSign",
    "Mish",
)  # fmt: skip
FLOAT_ONLY = {row.type_name for row in UNARY_MATH if row.float_only}
PER_MATH_OP = max(1, PER_OP // 4)
TYPES = ("f32",) * 6 + ("f16", "f64", "i32", "i64", "i8", "u8", "i16", "u16", "u32")
OTHER_TYPES = ("boolean", "bf16", "u64")
BATCH_SIZE = 60


@dataclass(frozen=True)
class Config:
    index: int
    op: str
    element_type: str
    shape: str
    version: str

    def describe(self) -> str:
        return f"#{self.index} {self.op} ({self.version}) on {self.element_type}[{self.shape}]"


def test_every_op_of_the_family_is_drawn() -> None:
    assert tuple(VERSIONS) == OPS


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    op = OPS[index % len(OPS)]
    dims = [random_dim(rng) for _ in range(rng.choice((0, 1, 2, 3, 3, 4)))]
    shape = "..." if rng.random() < 0.03 else ",".join(dims)
    element_type = rng.choice(TYPES if rng.random() < 0.93 else OTHER_TYPES)
    if op in FLOAT_ONLY and rng.random() < 0.6:
        element_type = rng.choice(("f32", "f32", "f16", "f64"))
    first = VERSIONS[op]
    version = rng.choice((first,) * 8 + (16, rng.randint(first, 16), max(1, first - 1)))
    return Config(index, op, element_type, shape, f"opset{version}")


def render_layers(
    config: Config, output: tuple[str, list[str] | None], base: int, offset: int
) -> tuple[str, str, bytes]:
    return render_op(config, output, base, (config.op, config.version, ""))


def write(directory: Path, name: str, configs: list[tuple[Config, tuple[str, Any]]]) -> Path:
    return write_ir(directory, name, configs, render_layers)


outcomes = compile_verdicts(random_config, PER_MATH_OP * len(OPS), write, set(NUMPY))


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        counts[f"{outcome.config.op} {'accepted' if outcome.accepted else 'rejected'}"] += 1
    minimum = {f"{op} accepted": PER_MATH_OP // 2 for op in OPS}
    minimum |= {"rejected": PER_MATH_OP, "runs": PER_MATH_OP * len(OPS) // 3}
    assert_covers(outcomes, counts, minimum)


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def math_input(config: Config) -> NDArray[Any]:
    """random_input's values, a quarter moved into [-1.2, 1.2] and a tenth around Exp's
    thresholds (floats only)."""
    shape = tuple(int(d) for d in config.shape.split(",") if d)
    values = random_input(config.index, config.element_type, shape)
    if values.dtype.kind != "f":
        return values
    rng = np.random.default_rng(config.index)
    near = rng.uniform(-1.2, 1.2, shape)
    edges = rng.choice([88.37626, 88.37627, -87.33655, -87.336555, 89.4, -89.4], shape)
    roll = rng.random(shape)
    with np.errstate(over="ignore"):
        mixed = np.where(roll < 0.25, near, np.where(roll < 0.35, edges, values))
        return mixed.astype(values.dtype)


def ulps(actual: NDArray[Any], expected: NDArray[Any]) -> NDArray[np.int64]:
    """The distance of values held in f32, in f32 ulps (±0 are 0 apart)."""

    def ordered(values: NDArray[Any]) -> NDArray[np.int64]:
        bits = values.astype(np.float32).view(np.int32).astype(np.int64)
        return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)

    return np.abs(ordered(actual) - ordered(expected))


def within_bound(config: Config, ours: NDArray[Any], theirs: NDArray[Any], x: NDArray[Any]) -> bool:
    if ours.shape != theirs.shape or ours.dtype != theirs.dtype:
        return False
    bound = NUMERICS[config.op].ulps
    exact = bound == 0 and config.op not in ("SoftPlus", "Mish")
    if theirs.dtype.kind != "f":
        gap = np.abs(ours.astype(np.int64) - theirs.astype(np.int64))
        return bool(np.all(gap <= (0 if exact else 1)))
    for where in (np.isnan, np.isposinf, np.isneginf):
        if not np.array_equal(where(ours), where(theirs)):
            return False
    finite = np.isfinite(theirs)
    if exact:
        return ours[finite].tobytes() == theirs[finite].tobytes()  # -0 is not 0
    wide, found = ours.astype(np.float64), theirs.astype(np.float64)
    gap = np.abs(wide - found)
    if config.op == "SoftPlus":
        close = gap <= SOFTPLUS_BOUND[0] + SOFTPLUS_BOUND[1] * np.abs(wide)
    elif config.op == "Mish":
        close = gap <= MISH_BOUND * np.maximum(np.abs(x.astype(np.float64)), 1)
    else:
        close = ulps(ours, theirs) <= bound
    if theirs.dtype == np.float16:  # both round a close f32 value to f16
        close |= gap <= np.abs(np.spacing(theirs)).astype(np.float64)
    return bool(np.all(close[finite]))


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    core = ov.Core()
    configs = runnable(outcomes, NUMPY)
    message = run_differences(core, tmp_path, configs, write, math_input, within_bound, BATCH_SIZE)
    assert not message, message
