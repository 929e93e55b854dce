"""Live differential test: ShapeOf-1 and ShapeOf-3 against OpenVINO
(tests/differential/single_layer.py).

Configuration #n (`random_config(n)`) takes the shape of data of rank 0 to 5 (static,
dynamic, interval dims, sometimes a dynamic rank or a Const) with ShapeOf-1, or ShapeOf-3
whose `output_type` is i32, i64, I64, u64, f32, empty or absent. IRPOOL_TEST_SCALE
scales the number of configurations (default 300).
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
    outcomes_of,
    random_shape,
)

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-shape-of-1"


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    dims = random_shape(rng, rng.choice((0, 1, 2, 3, 4, 4, 5)))
    shape = "..." if rng.random() < 0.05 else ",".join(dims)
    values = None
    if shape != "..." and all(d.isdigit() for d in dims) and rng.random() < 0.1:
        size = int(np.prod([int(d) for d in dims], dtype=np.int64))
        values = tuple(float(rng.randint(-9, 9)) for _ in range(size))
    data = Source(rng.choice(DATA_TYPES), shape, values)
    if rng.random() < 0.2:
        return Config(index, "ShapeOf", "opset1", (), (data,))
    output_type = rng.choice(("i64", "i32", "i64", "i32", "I64", "u64", "f32", "", None))
    attrs = () if output_type is None else (("output_type", output_type),)
    return Config(index, "ShapeOf", "opset3", attrs, (data,))


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    configs = [random_config(i) for i in range(PER_OP)]
    return outcomes_of(tmp_path_factory.mktemp("shape_of"), configs, lambda config: [("i64", None)])


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        counts[f"{outcome.config.version} accepted"] += outcome.outputs is not None
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 20, "runs": PER_OP // 4}
    assert_covers(outcomes, counts, minimum | {"opset1 accepted": PER_OP // 10})


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    assert_runs_agree(outcomes, tmp_path)
