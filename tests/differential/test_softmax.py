"""Live differential test: SoftMax-8 and SoftMax-1 against OpenVINO.

Configuration #n (rebuilt alone with `random_config(n)`) is a SoftMax (opset8 mostly, opset1
a quarter of the time) of one input, of a float
type mostly (integers and booleans too), with dims static, dynamic or intervals (rows of up to
200 sometimes, where the CPU's scan runs in SIMD lanes), and an `axis` in range, out of range,
negative, absent or written unusually.

Shapes (every configuration): OpenVINO's `read_model` is the oracle (as in
tests/differential/test_activations.py). Run (accepted configurations with static shapes):
batches compiled once on the CPU plugin (f32 inference precision) and run on seeded inputs
holding NaN, ±inf, ±0 and huge values. In rows without NaN, zeros, NaN and ±inf must be where
the CPU has them and the other values within 4 * 2**-24 (or one ulp of f16), integers and
booleans equal; in rows holding NaN, where the CPU places further NaN by its SIMD scan, both
must give NaN at each NaN and only NaN or 0 elsewhere (docs/ops/SoftMax.md).

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
from tests.differential.harness import NUMPY, PER_OP, random_dim
from tests.differential.harness import write as write_ir
from tests.differential.single_input import (
    Outcome,
    assert_covers,
    assert_shapes_agree,
    read_model_verdicts,
    render_op,
    run_differences,
    runnable,
    seeded_input,
)

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-softmax-1"
TYPES = ("f32", "f32", "f32", "f32", "f16", "f64", "i32", "u8", "boolean")
BATCH_SIZE = 40
BOUND = 4 * 2.0**-24  # measured on 100,000 rows without NaN


@dataclass(frozen=True)
class Config:
    index: int
    element_type: str
    shape: str
    axis: str  # as written; "" for none
    version: str

    def describe(self) -> str:
        return (
            f"#{self.index} SoftMax ({self.version}) axis={self.axis!r} on "
            f"{self.element_type}[{self.shape}]"
        )

    @property
    def axis_value(self) -> int:
        """The axis the runtime reads (the version's default when absent)."""
        return int(float(self.axis)) if self.axis else (1 if self.version == "opset8" else 0)


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    dims = [random_dim(rng) for _ in range(rng.choice((0, 1, 2, 3, 3, 4)))]
    if dims and rng.random() < 0.2:
        dims[rng.randrange(len(dims))] = str(rng.choice((8, 16, 17, 49, 197)))
    shape = "..." if rng.random() < 0.03 else ",".join(dims)
    rank = max(len(dims), 1)
    axis = str(rng.randint(-rank, rank - 1)) if rng.random() < 0.85 else str(rng.randint(-6, 6))
    if rng.random() < 0.08:
        axis = rng.choice(("", f"{axis}.0", f" {axis}"))
    version = "opset1" if rng.random() < 0.25 else "opset8"
    return Config(index, rng.choice(TYPES), shape, axis, version)


def render_layers(
    config: Config, output: tuple[str, list[str] | None], base: int, offset: int
) -> tuple[str, str, bytes]:
    data = ir.data([("axis", config.axis)]) if config.axis else ""
    return render_op(config, output, base, ("SoftMax", config.version, data))


def write(directory: Path, name: str, configs: list[tuple[Config, tuple[str, Any]]]) -> Path:
    return write_ir(directory, name, configs, render_layers)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    core = ov.Core()
    directory = tmp_path_factory.mktemp("softmax")
    return read_model_verdicts(core, directory, [random_config(i) for i in range(PER_OP)], write)


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        counts["negative axis"] += outcome.accepted and outcome.config.axis.startswith("-")
        counts[f"{outcome.config.version} accepted"] += outcome.accepted
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 30, "runs": PER_OP // 4}
    minimum |= {"negative axis": PER_OP // 10, "opset1 accepted": PER_OP // 20}
    assert_covers(outcomes, counts, minimum)


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def softmax_input(config: Config) -> NDArray[Any]:
    values = seeded_input(config)
    if config.index % 3 == 0 and values.dtype.kind == "f":  # a third without NaN
        values = np.where(np.isnan(values), values.dtype.type(0), values)
    return values


def agrees(config: Config, ours: NDArray[Any], theirs: NDArray[Any], x: NDArray[Any]) -> bool:
    if ours.shape != theirs.shape or ours.dtype != theirs.dtype:
        return False
    if theirs.dtype.kind != "f":
        return bool(np.array_equal(ours, theirs))
    if x.ndim == 0:
        return bool(np.array_equal(ours, theirs, equal_nan=True))
    axis = config.axis_value
    nan = np.isnan(x.astype(np.float32))
    row_nan = np.broadcast_to(np.any(nan, axis=axis, keepdims=True), x.shape)
    for output in (ours, theirs):  # rows with NaN: NaN at each NaN, else NaN or 0
        if not np.all(np.isnan(output[nan])):
            return False
        if not np.all(np.isnan(output[row_nan]) | (output[row_nan] == 0)):
            return False
    clean = ~row_nan
    for where in (np.isnan, np.isposinf, np.isneginf, lambda a: a == 0):
        if not np.array_equal(where(ours[clean]), where(theirs[clean])):
            return False
    finite = clean & np.isfinite(theirs)
    with np.errstate(all="ignore"):
        allowed = np.maximum(BOUND, np.abs(np.spacing(theirs[finite])).astype(np.float64))
        gap = np.abs(ours[finite].astype(np.float64) - theirs[finite].astype(np.float64))
    return bool(np.all(gap <= allowed))


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    core = ov.Core()
    configs = runnable(outcomes, {*NUMPY, "boolean"})
    message = run_differences(core, tmp_path, configs, write, softmax_input, agrees, BATCH_SIZE)
    assert not message, message
