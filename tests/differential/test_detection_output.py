"""Live differential test: DetectionOutput-1 and -8 against OpenVINO
(tests/differential/single_layer.py).

Configuration #n (`random_config(n)`) post-processes 1 to 10 priors of 1 to 5 classes for 1 to
3 images (priors shared or per image), f32 mostly, f16 sometimes, with 3 inputs or the ARM's
5: priors on a coarse grid so that boxes overlap, normalized or in pixels (image ids, some
ending at a -1), variances in the proposals or encoded in the target; offsets small, some NaN
or ±inf; scores on a coarse grid so that priors tie (a prior's classes never do: the CPU
breaks such ties at the keep_top_k cut unpredictably), some NaN, ±inf or -0. Every attribute
varies: code_type CORNER or CENTER_SIZE, share_location, top_k and keep_top_k (-1, 0, small),
thresholds, clipping before and after NMS, decrease_label_id (MXNet's style, sometimes with a
background other than 0: the CPU refuses it, IR641), background_label_id -1, 0, 1 or beyond
the classes. keep_top_k 0 never meets a top_k within the priors (the CPU leaves rows
uninitialized) and meets one beyond them only as IR642. A few configurations have dynamic or
interval dims, counts that do not divide or a wrong code_type. Shapes: `read_model` is the
oracle; runs on the CPU plugin bit for bit. IRPOOL_TEST_SCALE scales the number of
configurations (default 300).
"""

from __future__ import annotations

import math
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

SEED = "irpool-differential-detection-output-1"
CODES = ("caffe.PriorBoxParameter.CORNER", "caffe.PriorBoxParameter.CENTER_SIZE")
SPECIALS = (float("nan"), float("inf"), float("-inf"))


def _offsets(rng: random.Random, count: int, _: int) -> tuple[float, ...]:
    values = [rng.choice((0.0, 0.1, -0.2, 0.25, rng.gauss(0, 0.5))) for _ in range(count)]
    for _ in range(rng.choice((0, 0, 1, 2))):
        values[rng.randrange(count)] = rng.choice(SPECIALS)
    return tuple(values)


def _scores(rng: random.Random, count: int, classes: int) -> tuple[float, ...]:
    """Scores on a coarse grid: ties across priors, none within a prior's classes
    (docs/ops/DetectionOutput.md#known-differences)."""
    values: list[float] = []
    while len(values) < count:
        values += [v / 10 for v in rng.sample(range(11), classes)]
    del values[count:]
    for _ in range(rng.choice((0, 0, 1, 2))):
        at = rng.randrange(count)
        special = rng.choice((*SPECIALS, -0.0, 1.5))
        group = values[at - at % classes : at - at % classes + classes]
        if not any(v == special or (v != v and special != special) for v in group):
            values[at] = special
    return tuple(values)


def _priors(rng: random.Random, priors: int, normalized: bool, width: int) -> list[float]:
    """One row of priors: [xmin, ymin, xmax, ymax] on a grid, [image, ...] in pixels."""
    row: list[float] = []
    scale = 1.0 if normalized else float(width)
    for _ in range(priors):
        x, y = rng.randint(0, 6) / 8, rng.randint(0, 6) / 8
        w, h = rng.randint(1, 4) / 8, rng.randint(1, 4) / 8
        box = [x * scale, y * scale, (x + w) * scale, (y + h) * scale]
        row += box if normalized else [0.0, *box]
    if not normalized and priors > 1 and rng.random() < 0.3:  # the priors end early
        row[rng.randrange(1, priors) * 5] = -1.0
    return row


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    version = rng.choice(("opset1", "opset8"))
    images, priors, classes = rng.randint(1, 3), rng.randint(1, 10), rng.randint(1, 5)
    kind = rng.choice(("f32", "f32", "f32", "f16"))
    shared = rng.random() < 0.6
    normalized = rng.random() < 0.7
    encoded = rng.random() < 0.2
    five = rng.random() < 0.2
    per_image = images > 1 and rng.random() < 0.3
    width = rng.choice((300, 512))
    locations = 1 if shared else classes
    size = 4 if normalized else 5
    proposals: list[float] = []
    for _ in range(images if per_image else 1):
        proposals += _priors(rng, priors, normalized, width)
        if not encoded:
            proposals += [rng.choice((0.1, 0.2, 1.0)) for _ in range(priors * size)]
    shapes = [
        [str(images), str(priors * locations * 4)],
        [str(images), str(priors * classes)],
        [str(images if per_image else 1), "1" if encoded else "2", str(priors * size)],
    ]
    if five:
        shapes += [[str(images), str(priors * 2)], list(shapes[0])]
    if rng.random() < 0.08:  # dynamic or interval dims: shapes only
        dims = rng.choice(shapes)
        dims[rng.randrange(len(dims))] = rng.choice(("?", "1..3", "2.."))
    if rng.random() < 0.04:  # a count that does not divide
        shapes[rng.randrange(3)][-1] = str(priors * 4 + 1)
    makers = (_offsets, _scores, _offsets, _scores, _offsets)
    groups = (1, classes, 1, 2, 1)  # the values of one prior
    feeds: list[tuple[float, ...] | None] = []
    for position, dims in enumerate(shapes):
        if not all(dim.isdigit() for dim in dims):
            feeds.append(None)  # dynamic: not run
            continue
        count = math.prod(int(dim) for dim in dims)
        if position == 2:
            feeds.append(tuple(proposals) if len(proposals) == count else (0.5,) * count)
        else:
            feeds.append(makers[position](rng, count, groups[position]))
    sources = tuple(
        Source(kind, ",".join(dims), feed=feed) for dims, feed in zip(shapes, feeds, strict=True)
    )
    decrease = rng.random() < 0.2
    keep, top_k = rng.choice((-1, -1, 0, 1, 3, 8, 50)), rng.choice((-1, -1, 1, 2, 4, 100))
    if keep == 0 and 0 < top_k < priors:  # rows left uninitialized by the CPU
        top_k = rng.choice((-1, 100))  # 100: IR642
    code = rng.choice(CODES) if rng.random() < 0.97 else "caffe.PriorBoxParameter.CORNER_SIZE"
    background = 0 if decrease and rng.random() < 0.9 else rng.choice((-1, 0, 0, 1, 9))
    attrs = [
        ("code_type", code),
        ("share_location", str(shared).lower()),
        ("normalized", str(normalized).lower()),
        ("variance_encoded_in_target", str(encoded).lower()),
        ("keep_top_k", str(keep)),
        ("top_k", str(top_k)),
        ("nms_threshold", str(rng.choice((0.0, 0.3, 0.45, 0.7, 1.0)))),
        ("confidence_threshold", str(rng.choice((0.0, 0.0, 0.01, 0.3, 0.5, -2.0)))),
        ("clip_before_nms", str(rng.random() < 0.3).lower()),
        ("clip_after_nms", str(rng.random() < 0.3).lower()),
        ("decrease_label_id", str(decrease).lower()),
        ("background_label_id", str(background)),
        ("objectness_score", str(rng.choice((0.0, 0.3, 0.5)))),
    ]  # fmt: skip
    if not normalized:
        attrs += [("input_width", str(width)), ("input_height", str(rng.choice((300, width))))]
    if version == "opset1":
        attrs.append(("num_classes", str(classes if rng.random() < 0.95 else classes + 1)))
    rng.shuffle(attrs)
    return Config(index, "DetectionOutput", version, tuple(attrs), sources, len(sources))


def outputs(config: Config) -> Outputs:
    return [(config.inputs[0].type, None)]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    configs = [random_config(i) for i in range(PER_OP)]
    return outcomes_of(tmp_path_factory.mktemp("detection_output"), configs, outputs)


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        if outcome.outputs is None or not outcome.config.static:
            continue
        attrs = dict(outcome.config.attrs)
        counts["mxnet"] += attrs["decrease_label_id"] == "true"
        counts["five inputs"] += len(outcome.config.inputs) == 5
        counts["per-class locations"] += attrs["share_location"] == "false"
        counts["center size"] += attrs["code_type"] == CODES[1]
        counts["opset1"] += outcome.config.version == "opset1"
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 40, "runs": PER_OP // 2}
    minimum |= {"mxnet": PER_OP // 10, "five inputs": PER_OP // 10}
    minimum |= {"per-class locations": PER_OP // 5, "center size": PER_OP // 4}
    minimum |= {"opset1": PER_OP // 4}
    assert_covers(outcomes, counts, minimum)


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    assert_runs_agree(outcomes, tmp_path)
