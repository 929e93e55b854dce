"""Live differential test: Pad-12 against OpenVINO (tests/differential/single_layer.py).

Configuration #n (`random_config(n)`) pads data of rank 1 to 4 (static, dynamic, interval
dims, sometimes a dynamic rank) in each `pad_mode` (sometimes misspelt or absent) by
`pads_begin` and `pads_end` Consts (i64 or i32, sometimes u8 or f32; one per axis mostly,
negative often, beyond what reflect and symmetric allow sometimes) and, in half of them, a
scalar `pad_value` of the data's type (NaN, ±inf, extremes). IRPOOL_TEST_SCALE scales
the number of configurations (default 300).
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

SEED = "irpool-differential-pad-1"
MODES = ("constant", "edge", "reflect", "symmetric")
FILLS = (0.0, 1.5, -7.0, float("nan"), float("inf"), float("-inf"), 1e30, 127.0, -128.0)


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    rank = rng.choice((1, 2, 3, 3, 4))
    dims = random_shape(rng, rank)
    mode = rng.choice(MODES) if rng.random() < 0.97 else rng.choice(("Reflect", "wrap"))

    def a_pad(dim: str) -> int:
        size = int(dim) if dim.isdigit() else 3
        return rng.choice((0, 0, 1, 2, -1, -2, rng.randint(-size - 1, size + 1)))

    pads = [[a_pad(d) for d in dims] for _ in range(2)]
    if rng.random() < 0.04:
        pads[rng.randrange(2)].append(1)
    kind = rng.choice(("i64", "i64", "i32"))
    kinds = [kind if rng.random() < 0.96 else rng.choice(("u8", "f32")) for _ in pads]
    sources = [
        Source(k, str(len(p)), tuple(map(float, p))) for k, p in zip(kinds, pads, strict=True)
    ]
    element = rng.choice(DATA_TYPES)
    data = Source(element, "..." if rng.random() < 0.04 else ",".join(dims))
    if rng.random() < 0.5:
        fills = FILLS if element.startswith("f") else (0.0, 1.0, -7.0, 127.0, 255.0, 2.0**31)
        sources.append(Source(element, "", (rng.choice(fills),)))
    attrs = () if rng.random() < 0.02 else (("pad_mode", mode),)
    return Config(index, "Pad", "opset12", attrs, (data, *sources))


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    configs = [random_config(i) for i in range(PER_OP)]
    return outcomes_of(tmp_path_factory.mktemp("pad"), configs, data_type)


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        accepted = outcome.outputs is not None and outcome.config.static
        mode = dict(outcome.config.attrs).get("pad_mode", "")
        counts[f"runs {mode}"] += accepted
        pads = outcome.config.inputs[1].values or ()
        counts["negative"] += accepted and min(pads, default=0) < 0
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 20, "runs": PER_OP // 4}
    minimum |= {f"runs {mode}": PER_OP // 20 for mode in MODES} | {"negative": PER_OP // 10}
    assert_covers(outcomes, counts, minimum)


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    assert_runs_agree(outcomes, tmp_path)
