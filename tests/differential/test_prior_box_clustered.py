"""Live differential test: PriorBoxClustered-1 against OpenVINO
(tests/differential/single_layer.py).

Configuration #n (`random_config(n)`) asks for the priors of a feature map of 1 to 6 by 1 to
6 (`output_size` and `image_size` both i64, i32 or u8; sometimes three elements, a float type
or 2-D) over an image of 8 to 320 (Consts mostly, which OpenVINO folds; Parameters fed at run
time too, which the CPU plugin computes), with 0 to 4 width/height pairs (sometimes of
different counts), `clip` true, false or absent, steps absent, one, both or all three,
`offset` 0, 0.5 or other, 0, 1 or 4 variances. Shapes: `read_model` is the oracle; runs bit
for bit. IRPOOL_TEST_SCALE scales the number of configurations (default 300).
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

SEED = "irpool-differential-prior-box-clustered-1"


def _floats(rng: random.Random, count: int, low: float, high: float) -> str:
    return ",".join(f"{rng.uniform(low, high):.3g}" for _ in range(count))


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    size = [float(rng.randint(1, 6)), float(rng.randint(1, 6))]
    image = [float(rng.choice((8, 16, 32, 300, 320, rng.randint(8, 320)))) for _ in range(2)]
    if rng.random() < 0.03:
        size.append(2.0)
    # one type for both: the constant folding reads the image's values as the output size's
    # type, and fails on another (docs/ops/PriorBoxClustered.md#known-differences)
    kinds = [rng.choice(("i64", "i64", "i32", "u8"))] * 2
    if rng.random() < 0.03:
        kinds[rng.randrange(2)] = "f32"
    fed = rng.random() < 0.25 and "f32" not in kinds and len(size) == 2
    sources = []
    for values, kind in ((size, kinds[0]), (image, kinds[1])):
        shape = str(len(values)) if rng.random() < 0.98 else f"1,{len(values)}"
        sources.append(
            Source(kind, shape, feed=tuple(values)) if fed else Source(kind, shape, tuple(values))
        )
    pairs = rng.choice((0, 1, 2, 3, 4))
    attrs = [("width", _floats(rng, pairs, 0.5, 200)), ("height", _floats(rng, pairs, 0.5, 200))]
    if rng.random() < 0.04:
        attrs[1] = ("height", _floats(rng, pairs + 1, 0.5, 200))
    if rng.random() < 0.8:
        attrs.append(("clip", rng.choice(("true", "false"))))
    for name in ("step", "step_w", "step_h"):
        if rng.random() < 0.4:
            attrs.append((name, rng.choice(("0", "8", "16", f"{rng.uniform(1, 40):.4g}"))))
    attrs.append(("offset", rng.choice(("0.5", "0.5", "0", f"{rng.uniform(0, 1):.3g}"))))
    variances = rng.choice((0, 1, 4, 4))
    if variances or rng.random() < 0.5:
        attrs.append(("variance", _floats(rng, variances, 0.05, 0.3)))
    rng.shuffle(attrs)
    return Config(index, "PriorBoxClustered", "opset1", tuple(attrs), tuple(sources), 0)


def outputs(config: Config) -> Outputs:
    return [("f32", None)]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    configs = [random_config(i) for i in range(PER_OP)]
    return outcomes_of(tmp_path_factory.mktemp("prior_box_clustered"), configs, outputs)


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        accepted = outcome.outputs is not None
        counts["fed"] += accepted and outcome.config.inputs[0].feed is not None
        counts["clip"] += accepted and ("clip", "false") not in outcome.config.attrs
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 40, "runs": PER_OP // 2}
    minimum |= {"fed": PER_OP // 8, "clip": PER_OP // 4}
    assert_covers(outcomes, counts, minimum)


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    assert_runs_agree(outcomes, tmp_path)
