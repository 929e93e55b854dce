"""Live differential test: Range-4 against OpenVINO (tests/differential/single_layer.py).

Configuration #n (`random_config(n)`) takes start, stop and step each as a Const (then
OpenVINO folds the range by its reference rules) or a Parameter fed a value at run time (the
CPU plugin's kernel): integers, fractions, ±0, steps pointing away from stop, and now and then
a 0, ±inf, NaN (fed at run time: an infinite step only), a 1-element 1-D or boolean
input; input types f32, f16, f64 and integers, `output_type` every numeric type, boolean, or
absent. IRPOOL_TEST_SCALE scales the
number of configurations (default 300).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from tests.differential.harness import PER_OP
from tests.differential.single_layer import (
    Config,
    Outcome,
    Source,
    assert_covers,
    assert_runs_agree,
    assert_shapes_agree,
    outcomes_of,
)

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-range-4"
INPUT_TYPES = ("f32", "f32", "f16", "f64", "i32", "i64", "i64", "i8", "u8", "i16", "u32")
OUTPUT_TYPES = ("f32", "i64", "i32", "f16", "f64", "i8", "u8", "i16", "u16", "u32", "u64")


inf = float("inf")


def _limit(rng: random.Random, name: str, kind: str) -> float:
    if rng.random() < 0.04:
        return rng.choice((0.0, float("inf"), float("-inf"), float("nan")))
    if kind.startswith("f") and rng.random() < 0.5:
        return rng.choice((0.1, 0.25, 0.3, 0.5, 0.6, 1.5, 2.5, -0.7, -1.5, 3.7, -0.0))
    if name == "step":
        return float(rng.choice((1, 1, 2, 3, -1, -2, 5)))
    return float(rng.randint(-12, 12) if kind[0] != "u" else rng.randint(0, 12))


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    sources = []
    for name in ("start", "stop", "step"):
        kind = rng.choice(INPUT_TYPES) if rng.random() < 0.3 else INPUT_TYPES[index % 2 * 4]
        value = _limit(rng, name, kind)
        if kind[0] in "iu" and (value != value or abs(value) == inf):
            kind = "f32"  # only floats hold NaN and infinities
        if kind[0] in "iu":
            value = float(int(value))
        shape = "1" if rng.random() < 0.02 else ""
        if rng.random() < 0.01:
            kind, value = "boolean", 1.0
        constant = rng.random() < 0.5
        if not constant and (value != value or (name != "step" and abs(value) == inf)):
            value = 2.0  # a NaN size at run time: the CPU's answer depends on its threads
        if name == "step" and kind[0] in "iu" and value == 0 and not constant:
            value = 1.0  # an integer step of 0 at run time kills the CPU plugin (SIGFPE)
        sources.append(
            Source(kind, shape, (value,) if constant else None, None if constant else (value,))
        )
    output_type = rng.choice(OUTPUT_TYPES) if rng.random() < 0.97 else rng.choice(("boolean", None))
    attrs = () if output_type is None else (("output_type", output_type),)
    return Config(index, "Range", "opset4", attrs, tuple(sources), data_inputs=0)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    configs = [random_config(i) for i in range(PER_OP)]
    return outcomes_of(
        tmp_path_factory.mktemp("range"),
        configs,
        lambda config: [(dict(config.attrs).get("output_type", "f32"), ["-1"])],
    )


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        folded = all(s.values is not None for s in outcome.config.inputs)
        counts["folded accepted"] += folded and outcome.outputs is not None
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 20, "runs": PER_OP // 2}
    assert_covers(outcomes, counts, minimum | {"folded accepted": PER_OP // 20})


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    assert_runs_agree(outcomes, tmp_path)
