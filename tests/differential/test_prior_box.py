"""Live differential test: PriorBox-1 and PriorBox-8 against OpenVINO
(tests/differential/single_layer.py).

Configuration #n (`random_config(n)`) asks for the priors of a feature map of 1 to 5 by 1 to
5 over an image of 8 to 320 (`output_size` and `image_size` of one integer type; Consts mostly,
which OpenVINO folds, Parameters fed at run time to PriorBox-1 without fixed sizes too), as
SSD heads write them: 1 or 2
min_size with or without max_size, aspect ratios (repeated sometimes) with and without
`flip`, `clip`, `step` 0, a size or -1, `offset`, `scale_all_sizes` false (mxnet-like)
sometimes, 0, 1 or 4 variances; sometimes fixed sizes with densities instead; on
PriorBox-8 `min_max_aspect_ratios_order` either way. Shapes: `read_model` is the oracle; runs
bit for bit. IRPOOL_TEST_SCALE scales the number of configurations (default 300).
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
    Outputs,
    Source,
    assert_covers,
    assert_runs_agree,
    assert_shapes_agree,
    outcomes_of,
)

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-prior-box-1"


def _listed(values: list[float]) -> str:
    return ",".join(f"{v:.4g}" for v in values)


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    version = rng.choice(("opset1", "opset8"))
    size = (float(rng.randint(1, 5)), float(rng.randint(1, 5)))
    image = tuple(float(rng.choice((8, 32, 300, 320, rng.randint(8, 320)))) for _ in range(2))
    kind = rng.choice(("i64", "i64", "i32"))
    fed = rng.random() < 0.2
    scale_all = rng.random() < 0.8
    mins = [rng.uniform(4, 120) if scale_all else rng.uniform(0.05, 0.6)
            for _ in range(rng.choice((1, 1, 2)))]  # fmt: skip
    attrs = [
        ("min_size", _listed(mins)),
        ("aspect_ratio", _listed(rng.sample([2.0, 3.0, 0.5, 2.0, 1.0], rng.randint(0, 3)))),
        ("flip", rng.choice(("true", "false"))),
        ("clip", rng.choice(("true", "false"))),
        ("step", rng.choice(("0", "8", "16", "-1" if not scale_all else "0"))),
        ("offset", rng.choice(("0.5", "0.5", "0"))),
        ("scale_all_sizes", "true" if scale_all else "false"),
    ]
    if scale_all and rng.random() < 0.6:
        attrs.append(("max_size", _listed([m + rng.uniform(1, 60) for m in mins])))
    variances = rng.choice((0, 1, 4, 4))
    attrs.append(("variance", _listed([rng.uniform(0.05, 0.3) for _ in range(variances)])))
    if rng.random() < 0.15:  # fixed sizes with densities, instead of min sizes (with them
        # OpenVINO writes more boxes than it counts: docs/ops/PriorBox.md#known-differences)
        count = rng.randint(1, 2)
        attrs = [(name, value) for name, value in attrs if name not in ("min_size", "max_size")]
        attrs.append(("fixed_size", _listed([float(rng.randint(8, 64)) for _ in range(count)])))
        attrs.append(("density", _listed([float(rng.randint(1, 3)) for _ in range(count)])))
    if version == "opset8" and rng.random() < 0.8:
        attrs.append(("min_max_aspect_ratios_order", rng.choice(("true", "false"))))
    # given at run time the CPU node computes it: PriorBox-8 does not compile so, and fixed
    # sizes come out otherwise (docs/ops/PriorBox.md#known-differences)
    fed = fed and version == "opset1" and all(name != "fixed_size" for name, _ in attrs)
    sources = tuple(
        Source(kind, "2", feed=values) if fed else Source(kind, "2", values)
        for values in (size, image)
    )
    rng.shuffle(attrs)
    return Config(index, "PriorBox", version, tuple(attrs), sources, 0)


def outputs(config: Config) -> Outputs:
    return [("f32", None)]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    configs = [random_config(i) for i in range(PER_OP)]
    return outcomes_of(tmp_path_factory.mktemp("prior_box"), configs, outputs)


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        accepted = outcome.outputs is not None
        attrs = dict(outcome.config.attrs)
        counts[outcome.config.version] += accepted
        counts["fixed"] += accepted and "fixed_size" in attrs
        counts["mxnet"] += accepted and attrs["scale_all_sizes"] == "false"
    minimum = {"accepted": PER_OP // 2, "runs": PER_OP // 2, "fixed": PER_OP // 20}
    minimum |= {"opset1": PER_OP // 4, "opset8": PER_OP // 4, "mxnet": PER_OP // 10}
    assert_covers(outcomes, counts, minimum)


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    assert_runs_agree(outcomes, tmp_path)
