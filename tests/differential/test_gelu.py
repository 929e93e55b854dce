"""Live differential test: Gelu-7 and Gelu-2 against OpenVINO.

Configuration #n (rebuilt alone with `random_config(n)`) is a Gelu (opset7 mostly, opset2 a
fifth of the time, which has no attribute and reads none) of one input, of a float
type mostly (sometimes integer, boolean or bf16), with dims static, dynamic or intervals, and
`approximation_mode` ERF, TANH, their other spellings, absent, or a value OpenVINO refuses.

Shapes (every configuration): OpenVINO's `read_model` is the oracle (as in
tests/differential/test_activations.py). Run (accepted configurations with static shapes):
batches compiled once on the CPU plugin (f32 inference precision) and run on seeded inputs
holding NaN, ±inf, ±0, huge values and ranges where the CPU's polynomial is least accurate;
NaN and ±inf must be where the CPU has them and the other values within the measured bound
(docs/ops/Gelu.md): 2 * 2**-24 * |x| (f32 bit for bit: tests/differential/test_gelu_polynomials.py)
or one ulp of the output type (f16 rounds both).

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

from tests import ir
from tests.differential.harness import NUMPY, PER_OP, random_dim, random_input
from tests.differential.harness import write as write_ir
from tests.differential.single_input import (
    Outcome,
    assert_covers,
    assert_shapes_agree,
    read_model_verdicts,
    render_op,
    run_differences,
    runnable,
)

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-gelu-1"
TYPES = ("f32", "f32", "f32", "f32", "f16", "f64", "bf16", "i32", "boolean")
MODES = ("ERF", "ERF", "TANH", "TANH", "erf", "Tanh", "", "none")  # "": no attribute
BATCH_SIZE = 60
BOUND = {"ERF": 2 * 2.0**-24, "TANH": 2 * 2.0**-24}  # of |x|: f16 and bf16 round both


@dataclass(frozen=True)
class Config:
    index: int
    element_type: str
    shape: str
    mode: str
    version: str

    def describe(self) -> str:
        mode = self.mode or "(no mode)"
        return f"#{self.index} Gelu ({self.version}) {mode} on {self.element_type}[{self.shape}]"

    @property
    def approximation(self) -> str:
        """The mode the runtime computes: Gelu-2 always ERF."""
        return self.mode.upper() if self.mode and self.version == "opset7" else "ERF"


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    dims = [random_dim(rng) for _ in range(rng.choice((0, 1, 2, 3, 3, 4)))]
    shape = "..." if rng.random() < 0.03 else ",".join(dims)
    version = "opset2" if rng.random() < 0.2 else "opset7"
    return Config(index, rng.choice(TYPES), shape, rng.choice(MODES), version)


def render_layers(
    config: Config, output: tuple[str, list[str] | None], base: int, offset: int
) -> tuple[str, str, bytes]:
    data = ir.data([("approximation_mode", config.mode)]) if config.mode else ""
    return render_op(config, output, base, ("Gelu", config.version, data))


def write(directory: Path, name: str, configs: list[tuple[Config, tuple[str, Any]]]) -> Path:
    return write_ir(directory, name, configs, render_layers)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    core = ov.Core()
    directory = tmp_path_factory.mktemp("gelu")
    return read_model_verdicts(core, directory, [random_config(i) for i in range(PER_OP)], write)


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        verdict = "accepted" if outcome.accepted else "rejected"
        counts[f"{outcome.config.mode.upper() or 'ERF'} {verdict}"] += 1
        counts[f"{outcome.config.version} {verdict}"] += 1
    minimum = {"ERF accepted": PER_OP // 4, "TANH accepted": PER_OP // 5}
    minimum |= {"rejected": PER_OP // 10, "NONE rejected": 1, "runs": PER_OP // 4}
    minimum |= {"opset2 accepted": PER_OP // 20}
    assert_covers(outcomes, counts, minimum)


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def gelu_input(config: Config) -> NDArray[Any]:
    """random_input's values, a quarter of them moved to -6..-2, where the CPU's polynomial is
    least accurate and results are tiny."""
    shape = tuple(int(d) for d in config.shape.split(",") if d)
    values = random_input(config.index, config.element_type, shape)
    rng = np.random.default_rng(config.index)
    tail = rng.uniform(-6, -2, shape).astype(values.dtype)
    return np.where(rng.random(shape) < 0.25, tail, values)


def within_bound(config: Config, ours: NDArray[Any], theirs: NDArray[Any], x: NDArray[Any]) -> bool:
    if ours.shape != theirs.shape or ours.dtype != theirs.dtype:
        return False
    for where in (np.isnan, np.isposinf, np.isneginf):
        if not np.array_equal(where(ours), where(theirs)):
            return False
    finite = np.isfinite(theirs)
    mode = config.approximation
    with np.errstate(all="ignore"):
        wide = np.abs(x.astype(np.float64))
        allowed = np.maximum(BOUND[mode] * wide, np.abs(np.spacing(theirs)).astype(np.float64))
        gap = np.abs(ours.astype(np.float64) - theirs.astype(np.float64))
    return bool(np.all((gap <= allowed)[finite]))


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    core = ov.Core()
    configs = runnable(outcomes, NUMPY)
    message = run_differences(core, tmp_path, configs, write, gelu_input, within_bound, BATCH_SIZE)
    assert not message, message
