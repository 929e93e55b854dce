"""Live differential test: Concat-1 against OpenVINO (tests/differential/single_layer.py).

Configuration #n (`random_config(n)`) joins 1 to 4 inputs of rank 0 to 4 (static, dynamic,
interval dims, sometimes a dynamic rank, a Const, a mismatched dim or element type) along an
axis in and out of [-rank, rank-1], written or absent (0). IRPOOL_TEST_SCALE scales the
number of configurations (default 300).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import numpy as np
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
    data_type,
    outcomes_of,
    random_shape,
)

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-concat-1"


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    kind = rng.choice(DATA_TYPES)
    rank = rng.choice((0, 1, 1, 2, 3, 3, 4, 4))
    axis = rng.randint(-rank, rank - 1) if rank and rng.random() < 0.93 else rng.randint(-5, 5)
    common = random_shape(rng, rank)
    inputs = []
    for _ in range(rng.choice((1, 2, 2, 3, 3, 4))):
        dims = list(common)
        if rank:
            dims[axis % rank] = rng.choice((str(rng.randint(0, 4)), rng.choice(common) or "2"))
        if rng.random() < 0.06:
            dims = random_shape(rng, rank)  # mostly inconsistent
        shape = "..." if rng.random() < 0.04 else ",".join(dims)
        element = kind if rng.random() < 0.97 else rng.choice(DATA_TYPES)
        values = None
        if shape != "..." and all(d.isdigit() for d in dims) and rng.random() < 0.15:
            count = int(np.prod([int(d) for d in dims], dtype=np.int64))
            values = tuple(float(rng.randint(-9, 9)) for _ in range(count))
        inputs.append(Source(element, shape, values))
    attrs = () if rng.random() < 0.1 else (("axis", str(axis)),)
    return Config(index, "Concat", "opset1", attrs, tuple(inputs), data_inputs=len(inputs))


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    configs = [random_config(i) for i in range(PER_OP)]
    return outcomes_of(tmp_path_factory.mktemp("concat"), configs, data_type)


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        counts["dynamic output"] += outcome.outputs is not None and "-1" in str(outcome.outputs)
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 20, "runs": PER_OP // 4}
    assert_covers(outcomes, counts, minimum | {"dynamic output": PER_OP // 5})


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    assert_runs_agree(outcomes, tmp_path)
