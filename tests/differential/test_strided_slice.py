"""Live differential test: StridedSlice-1 against OpenVINO (tests/differential/single_layer.py).

Configuration #n (`random_config(n)`) slices data of rank 1 to 4 (static, dynamic, interval
dims, sometimes a dynamic rank) by `begin`, `end` and (mostly) `strides` Consts: i64 or i32
(sometimes f32), 1-D of one length mostly (sometimes of different lengths, 2-D, longer than
the rank), bounds from small to the int64 extremes, strides negative and positive (sometimes
0), with every mask: begin_mask and end_mask, new axes, shrunk axes (their begin in range,
sometimes out of it), an ellipsis (sometimes two), masks shorter or longer than the bounds,
sometimes a value other than 0 and 1; sometimes the bounds are Parameters fed at run time.
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

SEED = "irpool-differential-strided-slice-1"
EXTREMES = (2**62, -(2**63), 2**31 - 1, -(2**31))
MASKS = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    rank = rng.choice((1, 2, 3, 3, 4))
    dims = random_shape(rng, rank)
    count = rng.randint(1, rank) if rng.random() < 0.9 else rank + rng.randint(1, 2)

    def a_bound() -> int:
        return rng.choice(
            (rng.randint(-5, 5), rng.randint(-5, 5), rng.randint(-99, 99), rng.choice(EXTREMES))
        )

    def a_stride() -> int:
        stride = rng.choice((1, 1, 1, -1, 2, -2, 3, -3, rng.randint(-99, 99)))
        return stride if rng.random() < 0.97 else 0

    def a_mask(chance: float) -> list[int]:
        return [int(rng.random() < chance) for _ in range(count)]

    masks = {
        "begin_mask": a_mask(0.3),
        "end_mask": a_mask(0.3),
        "new_axis_mask": a_mask(0.2) if rng.random() < 0.5 else [],
        "shrink_axis_mask": a_mask(0.25) if rng.random() < 0.4 else [],
        "ellipsis_mask": [],
    }
    begin = [a_bound() for _ in range(count)]
    if masks["shrink_axis_mask"] and rng.random() < 0.9:  # mostly an index within the axis
        begin = [rng.randint(-3, 2) if s else b for s, b in
                 zip(masks["shrink_axis_mask"], begin, strict=True)]  # fmt: skip
    if rng.random() < 0.25:
        masks["ellipsis_mask"] = [0] * count
        for position in rng.sample(range(count), min(count, 2 if rng.random() < 0.05 else 1)):
            masks["ellipsis_mask"][position] = 1
    if rng.random() < 0.05:  # a mask of another length
        name = rng.choice(MASKS)
        masks[name] = [*masks[name], 1] if rng.random() < 0.5 else masks[name][1:]
    if rng.random() < 0.02:
        masks["begin_mask"] = [2, *masks["begin_mask"][1:]]
    bounds = [begin, [a_bound() for _ in range(count)]]
    if rng.random() < 0.85:
        bounds.append([a_stride() for _ in range(count)])
    if rng.random() < 0.04:
        shortened = bounds[rng.randrange(len(bounds))]
        del shortened[len(shortened) > 1 :][:1]
    kind = rng.choice(("i64", "i64", "i32"))
    kinds = [kind if rng.random() < 0.97 else rng.choice(("f32", "i64", "i32")) for _ in bounds]
    # known at run time where the CPU runs them as OpenVINO's shape inference says: no new,
    # shrunk or ellipsis axis (docs/ops/StridedSlice.md#known-differences)
    plain = not any(1 in masks[name] for name in MASKS[2:])
    fed = rng.random() < 0.3 and set(kinds) == {"i64"} and plain
    fed = fed and all(abs(v) < 2**31 for values in bounds for v in values)
    sources = []
    for position, (values, kind_here) in enumerate(zip(bounds, kinds, strict=True)):
        shape = str(len(values)) if rng.random() < 0.98 else f"1,{len(values)}"
        numbers = tuple(map(float, values))
        feed = fed and position < 2  # strides stay Consts: OpenVINO reads only their values
        source = (
            Source(kind_here, shape, feed=numbers) if feed else Source(kind_here, shape, numbers)
        )
        sources.append(source)
    data = Source(rng.choice(DATA_TYPES), "..." if rng.random() < 0.03 else ",".join(dims))
    attrs = tuple((name, ",".join(map(str, masks[name]))) for name in MASKS)
    return Config(index, "StridedSlice", "opset1", attrs, (data, *sources))


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    configs = [random_config(i) for i in range(PER_OP)]
    return outcomes_of(tmp_path_factory.mktemp("strided_slice"), configs, data_type)


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        accepted = outcome.outputs is not None
        attrs = dict(outcome.config.attrs)
        for name in MASKS:
            counts[name] += accepted and "1" in attrs[name]
        strides = outcome.config.inputs[3] if len(outcome.config.inputs) > 3 else None
        counts["negative stride"] += (
            accepted and strides is not None and min(strides.values or (0,)) < 0
        )
        counts["intervals"] += accepted and ".." in outcome.config.inputs[0].shape
        counts["fed"] += accepted and outcome.config.inputs[1].feed is not None
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 20, "runs": PER_OP // 4}
    minimum |= {name: PER_OP // 10 for name in MASKS}
    minimum |= {"negative stride": PER_OP // 10, "intervals": PER_OP // 20, "fed": PER_OP // 50}
    assert_covers(outcomes, counts, minimum)


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    assert_runs_agree(outcomes, tmp_path)
