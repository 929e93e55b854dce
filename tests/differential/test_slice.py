"""Live differential test: Slice-8 against OpenVINO (tests/differential/single_layer.py).

Configuration #n (`random_config(n)`) slices data of rank 1 to 4 (static, dynamic, interval
dims, sometimes a scalar or a dynamic rank) by `start`, `stop`, `step` and (mostly) `axes`
Consts: i64 or i32 (sometimes u8 or f32), 1-D of one length mostly (sometimes of different
lengths, 2-D, longer than the rank), bounds from small to the int64 extremes (INT64_MIN and
2**62: the test writes values through float64), steps negative and positive (sometimes 0),
axes negative, repeated, out of range; sometimes the bounds are Parameters fed at run time.
IRPOOL_TEST_SCALE scales the number of configurations (default 300).
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

SEED = "irpool-differential-slice-1"
EXTREMES = (2**62, -(2**63), 2**31 - 1, -(2**31))


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    rank = rng.choice((1, 2, 3, 3, 4)) if rng.random() < 0.97 else 0
    dims = random_shape(rng, rank)
    count = rng.choice((1, 1, 2, 3)) if rng.random() < 0.95 else rank + 1

    def a_bound() -> int:
        return rng.choice(
            (rng.randint(-7, 7), rng.randint(-7, 7), rng.randint(-99, 99), rng.choice(EXTREMES))
        )

    def a_step() -> int:
        # not a type's minimum: the CPU then reads anywhere (a gap, docs/ops/Slice.md)
        huge = rng.choice((2**62, 2**31 - 1, -(2**31) + 1))
        step = rng.choice((1, 1, -1, 2, -2, 3, -3, rng.randint(-99, 99), huge))
        return step if rng.random() < 0.97 else 0

    bounds = [[a_bound() for _ in range(count)] for _ in range(2)]
    bounds.append([a_step() for _ in range(count)])
    if rng.random() < 0.8:
        axes = rng.sample(range(-rank, rank), min(count, 2 * rank)) if rank else [0]
        if rng.random() < 0.05:
            axes[0] = rng.choice((rank, -rank - 1, axes[-1]))
        bounds.append(axes)
    if rng.random() < 0.04:
        shortened = bounds[rng.randrange(len(bounds))]
        del shortened[len(shortened) > 1 :][:1]
    kind = rng.choice(("i64", "i64", "i32"))
    kinds = [
        kind if rng.random() < 0.95 else rng.choice(("u8", "f32", "i64", "i32")) for _ in bounds
    ]
    # known at run time where the CPU can run them (i64: no value wraps to a step 0; within
    # int32: the CPU reads run-time bounds as int32, a gap, docs/ops/Slice.md)
    fed = rng.random() < 0.1 and _valid(bounds, rank) and set(kinds) == {"i64"}
    fed = fed and all(abs(v) < 2**31 for values in bounds for v in values)
    sources = []
    for values, kind_here in zip(bounds, kinds, strict=True):
        shape = str(len(values)) if rng.random() < 0.97 else f"1,{len(values)}"
        numbers = tuple(map(float, values))
        source = (
            Source(kind_here, shape, feed=numbers) if fed else Source(kind_here, shape, numbers)
        )
        sources.append(source)
    data = Source(rng.choice(DATA_TYPES), "..." if rng.random() < 0.04 else ",".join(dims))
    return Config(index, "Slice", "opset8", (), (data, *sources))


def _valid(bounds: list[list[int]], rank: int) -> bool:
    axes = bounds[3] if len(bounds) > 3 else list(range(len(bounds[0])))
    normalized = {a % rank for a in axes if -rank <= a < rank} if rank else set()
    same_lengths = len({len(b) for b in bounds}) == 1
    return same_lengths and len(normalized) == len(axes) and 0 not in bounds[2]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    configs = [random_config(i) for i in range(PER_OP)]
    return outcomes_of(tmp_path_factory.mktemp("slice"), configs, data_type)


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        accepted = outcome.outputs is not None
        steps = outcome.config.inputs[3]
        counts["negative step"] += accepted and min(steps.values or steps.feed or (0,)) < 0
        counts["intervals"] += accepted and ".." in outcome.config.inputs[0].shape
        counts["fed"] += accepted and steps.feed is not None
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 20, "runs": PER_OP // 4}
    minimum |= {"negative step": PER_OP // 10, "intervals": PER_OP // 20, "fed": PER_OP // 50}
    assert_covers(outcomes, counts, minimum)


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    assert_runs_agree(outcomes, tmp_path)
