"""Live differential test: Elu-1, PReLU-1 and Round-5 against OpenVINO.

Elu configuration #n (`elu_config(n)`) is an Elu of one input of a drawn element type (float
mostly, integers and boolean too), dims static, dynamic or intervals, `alpha` drawn from
spellings OpenVINO reads (absent: 0). PReLU configuration #n (`prelu_config(n)`) is a PReLU of
static data of rank 0 to 4 and a slope Parameter of one of the shapes the CPU applies (one
value, one per channel of axis 1, a trailing broadcast) or does not (IR632).

Shapes: `read_model` is the oracle, and the CPU's compile (a slope it cannot apply must be
IR632). Runs: batches on the CPU plugin (f32 inference precision) on seeded inputs holding NaN,
±inf, ±0, huge values and each integer type's extremes. Elu within 4 * 2**-24 * |alpha| of the
CPU (its exp against f64's, before the subtraction of 1 cancels: docs/ops/Elu.md), f16 within
one f16 ulp, integers within 1; PReLU bit for bit.

Round configuration #n (`round_config(n)`) is a Round-5 (sometimes opset16, or opset4, which
has none) of one input of a drawn type with `mode` absent, either mode in any case, or a
spelling OpenVINO refuses; its values must equal the CPU's bit for bit.

IRPOOL_TEST_SCALE scales the number of configurations (default 300 each).
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
from tests.differential.arithmetic_cases import operand, same
from tests.differential.harness import CPU_CONFIG, NUMPY, PER_OP, parameter, random_dim
from tests.differential.harness import write as write_ir
from tests.differential.single_input import (
    assert_shapes_agree,
    compile_verdicts_of,
    render_op,
    run_differences,
    runnable,
)

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-elu-prelu-1"
TYPES = ("f32", "f32", "f32", "f16", "f64", "i32", "i64", "i8", "u8", "boolean")
ALPHAS = ("1", "0.5", "2", "0", "-1", "1.6732632", "0.001", "", "1e-3")  # "": absent
ELU_BOUND = 4 * 2.0**-24  # of |alpha|, measured
BATCH_SIZE = 60


@dataclass(frozen=True)
class EluConfig:
    index: int
    element_type: str
    shape: str
    alpha: str

    def describe(self) -> str:
        return f"#{self.index} Elu alpha={self.alpha!r} on {self.element_type}[{self.shape}]"


def elu_config(index: int) -> EluConfig:
    rng = random.Random(f"{SEED}-elu-{index}")
    dims = [random_dim(rng) for _ in range(rng.choice((0, 1, 2, 3, 3, 4)))]
    return EluConfig(index, rng.choice(TYPES), ",".join(dims), rng.choice(ALPHAS))


def render_elu(
    config: EluConfig, output: tuple[str, list[str] | None], base: int, offset: int
) -> tuple[str, str, bytes]:
    data = ir.data([("alpha", config.alpha)]) if config.alpha else ""
    return render_op(config, output, base, ("Elu", "opset1", data))


def write_elu(directory: Path, name: str, configs: list[tuple[Any, tuple[str, Any]]]) -> Path:
    return write_ir(directory, name, configs, render_elu)


def elu_agrees(config: EluConfig, ours: NDArray[Any], theirs: NDArray[Any], x: Any) -> bool:
    if ours.shape != theirs.shape or ours.dtype != theirs.dtype:
        return False
    if theirs.dtype.kind != "f":
        return bool(np.all(np.abs(ours.astype(np.int64) - theirs.astype(np.int64)) <= 1))
    for where in (np.isnan, np.isposinf, np.isneginf):
        if not np.array_equal(where(ours), where(theirs)):
            return False
    finite = np.isfinite(theirs)
    alpha = abs(float(config.alpha or 0))
    gap = np.abs(ours.astype(np.float64) - theirs.astype(np.float64))
    allowed = ELU_BOUND * alpha
    if theirs.dtype == np.float16:
        allowed = np.maximum(allowed, np.abs(np.spacing(theirs)).astype(np.float64))
    return bool(np.all((gap <= allowed)[finite]))


def elu_input(config: EluConfig) -> NDArray[Any]:
    shape = tuple(int(d) for d in config.shape.split(",") if d)
    return operand(config.index, config.element_type, shape)


def test_elu_matches_openvino(tmp_path: Path) -> None:
    core = ov.Core()
    configs = [elu_config(i) for i in range(PER_OP)]
    verdicts = compile_verdicts_of(core, tmp_path, configs, write_elu, set(NUMPY))
    assert_shapes_agree(verdicts)
    chosen = runnable(verdicts, NUMPY)
    assert len(chosen) >= PER_OP // 4
    message = run_differences(core, tmp_path, chosen, write_elu, elu_input, elu_agrees, BATCH_SIZE)
    assert not message, message


# --------------------------------------------------------------------------------------------
# PReLU
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PReluConfig:
    index: int
    element_type: str
    shape: str  # the data's, static
    slope: str  # the slope's, static

    def describe(self) -> str:
        return f"#{self.index} PReLU on {self.element_type}[{self.shape}] slope [{self.slope}]"


def prelu_config(index: int) -> PReluConfig:
    rng = random.Random(f"{SEED}-prelu-{index}")
    dims = [rng.randint(1, 5) for _ in range(rng.choice((0, 1, 2, 3, 4, 4)))]
    choices = [[1], [], [rng.randint(1, 6)], dims[-rng.randint(1, len(dims)) :] if dims else [1]]
    if len(dims) >= 2:
        choices += [[dims[1]], [dims[1]], [1, dims[1], *([1] * (len(dims) - 2))]]
    slope = rng.choice(choices)
    join = ",".join
    return PReluConfig(index, rng.choice(TYPES), join(map(str, dims)), join(map(str, slope)))


def render_prelu(
    config: PReluConfig, output: tuple[str, list[str] | None], base: int, offset: int
) -> tuple[str, str, bytes]:
    n, op = config.index, base + 2
    kind = config.element_type
    dims = [d for d in config.shape.split(",") if d]
    slope = [d for d in config.slope.split(",") if d]
    out_type, out_dims = output
    layers = [
        parameter(base, f"in{n}", kind, config.shape),
        parameter(base + 1, f"slope{n}", kind, config.slope),
        ir.layer(
            op, f"op{n}", "PReLU", "opset1", "",
            [ir.typed_port(0, kind, dims), ir.typed_port(1, kind, slope)],
            [ir.typed_port(2, out_type, out_dims, f"out{n}")],
        ),
        ir.result(base + 3, f"out{n}", out_dims, ir.precision(out_type)),
    ]  # fmt: skip
    edges = ir.edge(base, 0, op, 0) + ir.edge(base + 1, 0, op, 1) + ir.edge(op, 2, base + 3, 0)
    return "".join(layers), edges, b""


def write_prelu(directory: Path, name: str, configs: list[tuple[Any, tuple[str, Any]]]) -> Path:
    return write_ir(directory, name, configs, render_prelu)


def test_prelu_matches_openvino(tmp_path: Path) -> None:
    core = ov.Core()
    configs = [prelu_config(i) for i in range(PER_OP)]
    verdicts = compile_verdicts_of(core, tmp_path, configs, write_prelu, set(NUMPY))
    assert_shapes_agree(verdicts)
    counts = Counter("runs" if v.accepted else "refused" for v in verdicts)
    assert counts["runs"] >= PER_OP // 2 and counts["refused"] >= PER_OP // 30, counts
    chosen = [v.config for v in verdicts if v.accepted and v.config.element_type in NUMPY]
    failing: list[str] = []
    for start in range(0, len(chosen), BATCH_SIZE):
        batch = chosen[start : start + BATCH_SIZE]
        outputs = [(c, (c.element_type, [d for d in c.shape.split(",") if d])) for c in batch]
        path = write_prelu(tmp_path, f"run{start}", outputs)
        inputs: dict[str, NDArray[Any]] = {}
        for config in batch:
            for name, shape, seed in (("in", config.shape, 0), ("slope", config.slope, 7)):
                dims = tuple(int(d) for d in shape.split(",") if d)
                kind = config.element_type
                inputs[f"{name}{config.index}"] = operand(config.index + seed, kind, dims)
        ours = irpool.load(path).run(dict(inputs))
        compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
        results = compiled.create_infer_request().infer(inputs)
        theirs = {port.get_any_name(): value for port, value in results.items()}
        failing += [
            c.describe() for c in batch if not same(ours[f"out{c.index}"], theirs[f"out{c.index}"])
        ]
    assert not failing, f"{len(failing)} of {len(chosen)} runs differ: {failing[:12]}"


# --------------------------------------------------------------------------------------------
# Round
# --------------------------------------------------------------------------------------------

MODES = ("half_to_even", "half_away_from_zero", "HALF_AWAY_FROM_ZERO", "", "half_up")


@dataclass(frozen=True)
class RoundConfig:
    index: int
    element_type: str
    shape: str
    mode: str
    version: str

    def describe(self) -> str:
        kind = f"{self.element_type}[{self.shape}]"
        return f"#{self.index} Round ({self.version}) mode={self.mode!r} on {kind}"


def round_config(index: int) -> RoundConfig:
    rng = random.Random(f"{SEED}-round-{index}")
    dims = [random_dim(rng) for _ in range(rng.choice((0, 1, 2, 3, 3, 4)))]
    version = rng.choice(("opset5",) * 8 + ("opset16", "opset4"))
    return RoundConfig(index, rng.choice(TYPES), ",".join(dims), rng.choice(MODES), version)


def render_round(
    config: RoundConfig, output: tuple[str, list[str] | None], base: int, offset: int
) -> tuple[str, str, bytes]:
    data = ir.data([("mode", config.mode)]) if config.mode else ""
    return render_op(config, output, base, ("Round", config.version, data))


def write_round(directory: Path, name: str, configs: list[tuple[Any, tuple[str, Any]]]) -> Path:
    return write_ir(directory, name, configs, render_round)


def round_input(config: RoundConfig) -> NDArray[Any]:
    """`operand`'s values, a third of them moved to halves and the f32 just below 0.5."""
    shape = tuple(int(d) for d in config.shape.split(",") if d)
    values = operand(config.index, config.element_type, shape)
    if values.dtype.kind != "f":
        return values
    rng = np.random.default_rng(config.index)
    halves = rng.choice([0.5, -0.5, 1.5, 2.5, -2.5, 0.49999997, 8388609.0, -0.0], shape)
    with np.errstate(over="ignore"):  # f16: 8388609 is inf, as f16 holds it
        return np.where(rng.random(shape) < 0.33, halves, values).astype(values.dtype)


def test_round_matches_openvino(tmp_path: Path) -> None:
    core = ov.Core()
    configs = [round_config(i) for i in range(PER_OP)]
    verdicts = compile_verdicts_of(core, tmp_path, configs, write_round, set(NUMPY))
    assert_shapes_agree(verdicts)
    assert sum(not v.accepted for v in verdicts) >= PER_OP // 20
    chosen = runnable(verdicts, NUMPY, clean=True)

    def agrees(config: Any, ours: NDArray[Any], theirs: NDArray[Any], x: NDArray[Any]) -> bool:
        return same(ours, theirs)

    message = run_differences(core, tmp_path, chosen, write_round, round_input, agrees, BATCH_SIZE)
    assert not message, message
