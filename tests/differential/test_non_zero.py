"""Live differential test: NonZero-3 against OpenVINO (tests/differential/single_layer.py).

Configuration #n (`random_config(n)`) is a NonZero of data of rank 0 to 5 (static, dynamic,
interval dims, sometimes a dynamic rank or a Const) whose `output_type` is i64, i32, I32,
absent or a type OpenVINO refuses (u64, f32, ""). Half of the static inputs are mostly zeros
(with -0, NaN and ±inf among the rest), the others the harness's seeded values. Shapes must
equal `read_model`'s, indices the CPU plugin's bit for bit. IRPOOL_TEST_SCALE scales the number
of configurations (default 300).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from pathlib import Path

import pytest

from tests.differential.harness import PER_OP
from tests.differential.single_layer import (
    DATA_TYPES,
    Config,
    Outcome,
    Source,
    assert_covers,
    assert_runs_agree,
    assert_shapes_agree,
    outcomes_of,
    random_shape,
)

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-non-zero-3"
SPECIALS = (-0.0, float("nan"), float("inf"), -float("inf"), 1.0, -3.0, 1e-40)


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    dims = random_shape(rng, rng.choice((0, 1, 2, 3, 4, 4, 5)))
    shape = "..." if rng.random() < 0.05 else ",".join(dims)
    kind = rng.choice(DATA_TYPES)
    static = shape != "..." and all(d.isdigit() for d in dims)
    size = math.prod(int(d) for d in dims) if static else 0
    values = feed = None
    picks = SPECIALS if kind[0] == "f" else (1.0, -1.0, 7.0)
    if static and rng.random() < 0.5:
        feed = tuple(0.0 if rng.random() < 0.6 else rng.choice(picks) for _ in range(size))
    elif static and rng.random() < 0.1:
        values = tuple(float(rng.choice((0, 0, 1, -2))) for _ in range(size))
    data = Source(kind, shape, values, feed)
    output_type = rng.choice(("i64", "i32", "i64", "i32", "I32", "u64", "f32", "", None))
    attrs = () if output_type is None else (("output_type", output_type),)
    return Config(index, "NonZero", "opset3", attrs, (data,))


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    configs = [random_config(i) for i in range(PER_OP)]
    directory = tmp_path_factory.mktemp("non_zero")
    return outcomes_of(directory, configs, lambda config: [("i64", None)])


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        counts["mostly zeros"] += outcome.config.inputs[0].feed is not None
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 20, "runs": PER_OP // 4}
    assert_covers(outcomes, counts, minimum | {"mostly zeros": PER_OP // 10})


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    assert_runs_agree(outcomes, tmp_path)
