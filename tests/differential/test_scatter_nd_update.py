"""Live differential test: ScatterNDUpdate-3 (opset4) against OpenVINO
(tests/differential/single_layer.py).

Configuration #n (`random_config(n)`) updates data of rank 1 to 4 (static, dynamic or
interval dims; values with NaN, ±inf, ±0 and each integer type's extremes) at indices given
as a Const (i32 or i64, negative and repeated ones among them, depth 1 to the data's rank,
sometimes one too deep, of rank 0) with updates of the shape they need, sometimes a wrong
one. IRPOOL_TEST_SCALE scales the number of configurations (default 300).
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

SEED = "irpool-differential-scatter-nd-update-3"


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    rank = rng.choice((1, 2, 3, 3, 4))
    sizes = [rng.choice((1, 2, 3, 4)) for _ in range(rank)]
    dims = [str(s) for s in sizes] if rng.random() < 0.7 else random_shape(rng, rank)
    dims = ["1" if d == "0" else d for d in dims]  # no index fits an empty axis
    sizes = [int(d) if d.isdigit() else 1 for d in dims]
    kind = rng.choice(DATA_TYPES)
    depth = rng.randint(1, rank + (rng.random() < 0.05))
    batch = [rng.choice((1, 2, 3)) for _ in range(rng.choice((0, 1, 1, 2)))]
    count = int(np.prod(batch, dtype=np.int64))
    limits = sizes[:depth] + [1] * (depth - len(sizes[:depth]))
    values = tuple(float(rng.randint(-limit, limit - 1)) for _ in range(count) for limit in limits)
    indices_shape = ",".join(map(str, [*batch, depth]))
    if rng.random() < 0.02:
        indices_shape, values = "", values[:1] or (0.0,)
    indices = Source(rng.choice(("i32", "i64")), indices_shape, values)
    updates_dims = [*map(str, batch), *dims[depth:]]
    if rng.random() < 0.05:
        updates_dims.append("2")
    feed = None
    if all(d.isdigit() for d in updates_dims):  # the updates, fed: specials among them
        size = int(np.prod([int(d) for d in updates_dims], dtype=np.int64))
        feed = tuple(_element(rng, kind) for _ in range(size))
    updates = Source(kind, ",".join(updates_dims), None, feed)
    data = Source(kind, ",".join(dims))
    return Config(index, "ScatterNDUpdate", "opset4", (), (data, indices, updates))


def _element(rng: random.Random, kind: str) -> float:
    if kind.startswith("f") and rng.random() < 0.2:
        return rng.choice((float("nan"), float("inf"), float("-inf"), -0.0, 3e38))
    return float(rng.randint(-100, 100) if kind[0] != "u" else rng.randint(0, 200))


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    configs = [random_config(i) for i in range(PER_OP)]
    return outcomes_of(tmp_path_factory.mktemp("scatter_nd_update"), configs, data_type)


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 50, "runs": PER_OP // 3}
    assert_covers(outcomes, counts, minimum)


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    assert_runs_agree(outcomes, tmp_path)
