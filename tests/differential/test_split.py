"""Live differential test: Split-1 against OpenVINO (tests/differential/single_layer.py).

Configuration #n (`random_config(n)`) cuts data of rank 0 to 4 (static, dynamic, interval
dims, sometimes a dynamic rank) along an axis Const (a scalar mostly, sometimes [1]; integer
types, sometimes f32; in and out of range) into `num_splits` pieces (mostly dividing the
axis; sometimes not, 0, negative, or not a number). IRPOOL_TEST_SCALE scales the
number of configurations (default 300).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from tests.differential.harness import PER_OP
from tests.differential.single_layer import (
    DATA_TYPES,
    Config,
    Outcome,
    Outputs,
    Source,
    assert_covers,
    assert_runs_agree,
    assert_shapes_agree,
    outcomes_of,
    random_shape,
)

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-split-1"


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    rank = rng.choice((0, 1, 2, 3, 3, 4))
    dims = random_shape(rng, rank)
    axis = rng.randint(-rank, rank - 1) if rank and rng.random() < 0.95 else rng.randint(-4, 4)
    chosen = dims[axis % rank] if rank else "4"
    total = int(chosen) if chosen.isdigit() else rng.randint(1, 6)
    divisors = [d for d in range(1, 7) if total % d == 0] or [1]
    count = str(rng.choice(divisors) if rng.random() < 0.85 else rng.randint(1, 7))
    if rng.random() < 0.05:
        count = rng.choice(("0", "-2", "x", "2.5", " 2", ""))
    data = Source(rng.choice(DATA_TYPES), "..." if rng.random() < 0.04 else ",".join(dims))
    axis_type = rng.choice(("i64", "i32", "i64", "u8" if rng.random() < 0.3 else "i32"))
    axis_type = axis_type if rng.random() < 0.95 else "f32"
    axis_source = Source(axis_type, "" if rng.random() < 0.93 else "1", (float(axis),))
    attrs = () if rng.random() < 0.02 else (("num_splits", count),)
    return Config(index, "Split", "opset1", attrs, (data, axis_source))


def pieces(config: Config) -> Outputs:
    """One output per piece (one when num_splits is not a count)."""
    written = dict(config.attrs).get("num_splits", "")
    count = int(written) if written.strip().isdigit() and int(written) > 0 else 1
    return [(config.inputs[0].type, None)] * count


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    configs = [random_config(i) for i in range(PER_OP)]
    return outcomes_of(tmp_path_factory.mktemp("split"), configs, pieces)


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        accepted = outcome.outputs is not None
        counts["intervals"] += accepted and ".." in outcome.config.inputs[0].shape
        counts["several"] += accepted and len(outcome.outputs or ()) > 1
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 20, "runs": PER_OP // 4}
    assert_covers(outcomes, counts, minimum | {"intervals": PER_OP // 20, "several": PER_OP // 5})


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    assert_runs_agree(outcomes, tmp_path)
