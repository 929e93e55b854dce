"""Live differential test: VariadicSplit-1 against OpenVINO (tests/differential/single_layer.py).

Configuration #n (`random_config(n)`) cuts data of rank 0 to 4 (static, dynamic, interval
dims, sometimes a dynamic rank) along an axis Const (scalar or [1], integer or float, in and
out of range) into lengths that mostly sum to the axis, with at most one -1, sometimes two,
a -2, a 0, a wrong sum, or lengths known only at run time. IRPOOL_TEST_SCALE scales the
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

SEED = "irpool-differential-variadic-split-1"


def random_lengths(rng: random.Random, total: int) -> list[int]:
    lengths = []
    left = total
    while left > 0 and len(lengths) < 3:
        piece = rng.randint(0, left)
        lengths.append(piece)
        left -= piece
    lengths.append(left)
    if rng.random() < 0.4:
        lengths[rng.randrange(len(lengths))] = -1
    roll = rng.random()
    if roll < 0.05:
        lengths.append(-1)
    elif roll < 0.08:
        lengths[0] = -2
    elif roll < 0.14:
        lengths[-1] += rng.choice((-1, 1, 2))
    return lengths


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    rank = rng.choice((0, 1, 2, 3, 3, 4))
    dims = random_shape(rng, rank)
    axis = rng.randint(-rank, rank - 1) if rank and rng.random() < 0.95 else rng.randint(-4, 4)
    chosen = dims[axis % rank] if rank else "4"
    total = int(chosen) if chosen.isdigit() else rng.randint(0, 6)
    lengths = random_lengths(rng, total)
    data = Source(rng.choice(DATA_TYPES), "..." if rng.random() < 0.04 else ",".join(dims))
    axis_type = rng.choice(("i64", "i32", "i64", "i32", "f32" if rng.random() < 0.2 else "i64"))
    axis_source = Source(axis_type, rng.choice(("", "", "1")), (float(axis),))
    kind = rng.choice(("i64", "i32"))
    if rng.random() < 0.06:  # known at run time: run when the lengths fit
        written = sum(v for v in lengths if v != -1)
        fits = lengths.count(-1) <= 1 and min(lengths) >= -1 and chosen.isdigit()
        fits = fits and (written == total or (-1 in lengths and written <= total))
        feed = tuple(map(float, lengths)) if fits else None
        pieces = Source(kind, str(len(lengths)), feed=feed)
    else:
        pieces = Source(kind, str(len(lengths)), tuple(map(float, lengths)))
    return Config(index, "VariadicSplit", "opset1", (), (data, axis_source, pieces))


def pieces(config: Config) -> Outputs:
    """One output per split length."""
    return [(config.inputs[0].type, None)] * int(config.inputs[2].shape)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    configs = [random_config(i) for i in range(PER_OP)]
    return outcomes_of(tmp_path_factory.mktemp("variadic_split"), configs, pieces)


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        lengths = outcome.config.inputs[2].values or ()
        counts["-1 accepted"] += outcome.outputs is not None and -1 in lengths
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 20, "runs": PER_OP // 4}
    assert_covers(outcomes, counts, minimum | {"-1 accepted": PER_OP // 10})


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    assert_runs_agree(outcomes, tmp_path)
