"""Live differential test: NonMaxSuppression-5 and -9 against OpenVINO
(tests/differential/single_layer.py).

Configuration #n (`random_config(n)`) selects among 1 to 12 boxes of 1 or 2 batches and 1 to 3
classes (dims sometimes dynamic or intervals, ranks sometimes wrong), boxes on a small grid so
that many overlap, in corner (sometimes with swapped corners) or center encoding, scores on a
coarse grid so that ties occur; `max_output_boxes_per_class` from 0 to beyond the box count,
-1, absent or given at run time, `iou_threshold` and `score_threshold` Consts, `soft_nms_sigma`
0 mostly, sometimes 0.3 to 2; every attribute (box_encoding, sort_result_descending,
output_type, absent), f32 and f16 inputs. Shapes: `read_model` is the oracle. Runs (batches
on the CPU plugin): the selected indices bit for bit, their number of rows the CPU's, the
scores bit for bit under hard suppression and within 4 f32 steps under soft suppression (the
plugin's vector exp), the count where a box is selected (with none, the CPU's count is
uninitialized memory); a negative `max_output_boxes_per_class` is not run (the CPU's outputs
are then empty and its count uninitialized: docs/ops/NonMaxSuppression.md#known-differences).
IRPOOL_TEST_SCALE scales the number of configurations (default 300).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from tests.differential.harness import CPU_CONFIG, MAX_REPORTED, PER_OP
from tests.differential.single_layer import (
    BATCH_SIZE,
    Config,
    Outcome,
    Outputs,
    Source,
    assert_covers,
    assert_shapes_agree,
    data_input,
    outcomes_of,
    same,
    write,
)

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-non-max-suppression-1"
# Measured: docs/ops/NonMaxSuppression.md#values (soft scores, relative)
SOFT_BOUND = 1e-6


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    version = rng.choice(("opset5", "opset9"))
    batches, classes, count = rng.randint(1, 2), rng.randint(1, 3), rng.randint(1, 12)
    kind = rng.choice(("f32", "f32", "f32", "f16"))
    center = rng.random() < 0.3
    boxes: list[float] = []
    for _ in range(batches * count):
        y, x = rng.randint(0, 6) / 2, rng.randint(0, 6) / 2
        h, w = rng.randint(1, 6) / 2, rng.randint(1, 6) / 2
        if center:
            boxes += [x, y, w, h]
        elif rng.random() < 0.15:
            boxes += [y + h, x + w, y, x]  # swapped corners
        else:
            boxes += [y, x, y + h, x + w]
    scores = [rng.randint(0, 20) / 20 for _ in range(batches * classes * count)]
    box_dims = [str(batches), str(count), "4"]
    score_dims = [str(batches), str(classes), str(count)]
    if rng.random() < 0.1:  # dynamic or interval dims: shapes only
        box_dims[rng.randrange(2)] = rng.choice(("?", "1..3", "2.."))
    if rng.random() < 0.04:  # wrong ranks or counts
        rng.choice((box_dims, score_dims)).append("1")
    if rng.random() < 0.04:
        box_dims[2] = "5"
    sources = [
        Source(kind, ",".join(box_dims), feed=tuple(boxes)),
        Source(kind, ",".join(score_dims), feed=tuple(scores)),
    ]
    inputs = rng.choice((0, 1, 3, 4, 4, 4, 4))
    maximum = rng.choice((0, 1, 2, 3, count, count + 2, -1, rng.randint(1, 5)))
    scalar = "" if rng.random() < 0.7 else "1"
    if inputs >= 1:
        kind_max = rng.choice(("i64", "i64", "i32"))
        fed = rng.random() < 0.1 and maximum >= 0
        sources.append(
            Source(kind_max, scalar, feed=(float(maximum),))
            if fed
            else Source(kind_max, scalar, (float(maximum),))
        )
    thresholds = [rng.choice((0.0, 0.3, 0.5, 0.5, 0.7, 1.0)), rng.choice((0.0, 0.0, 0.2, 0.5))]
    sigma = rng.choice((0.0,) * 6 + (0.3, 0.5, 2.0))
    for value in [*thresholds, sigma][: max(0, inputs - 1)]:
        sources.append(Source(kind if rng.random() < 0.8 else "f32", scalar, (value,)))
    attrs = []
    for name, choices in (
        ("box_encoding", ("center",) if center else ("corner",)),
        ("sort_result_descending", ("true", "false")),
        ("output_type", ("i64", "i32")),
    ):
        if rng.random() < 0.85 or (name == "box_encoding" and center):
            attrs.append((name, rng.choice(choices)))
    return Config(index, "NonMaxSuppression", version, tuple(attrs), tuple(sources), 2)


def outputs(config: Config) -> Outputs:
    index_type = dict(config.attrs).get("output_type", "i64")
    return [(index_type, None), ("f32", None), (index_type, None)]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    configs = [random_config(i) for i in range(PER_OP)]
    return outcomes_of(tmp_path_factory.mktemp("non_max_suppression"), configs, outputs)


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        accepted = outcome.outputs is not None
        inputs = outcome.config.inputs
        counts["soft"] += accepted and len(inputs) > 5 and inputs[5].values != (0.0,)
        counts["center"] += accepted and ("box_encoding", "center") in outcome.config.attrs
        counts[outcome.config.version] += accepted
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 40, "runs": PER_OP // 2}
    minimum |= {"soft": PER_OP // 20, "center": PER_OP // 10}
    minimum |= {"opset5": PER_OP // 4, "opset9": PER_OP // 4}
    assert_covers(outcomes, counts, minimum)


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def runnable(outcome: Outcome) -> bool:
    inputs = outcome.config.inputs
    maximum = inputs[2].values or inputs[2].feed if len(inputs) > 2 else None
    negative = maximum is None or maximum[0] <= 0
    return (
        outcome.outputs is not None
        and not outcome.strict
        and outcome.config.static
        and not negative
    )


def agrees(config: Config, ours: list[NDArray[Any]], theirs: list[NDArray[Any]]) -> bool:
    """Indices bit for bit, scores within SOFT_BOUND of the CPU's under soft suppression, the
    count where a box is selected."""
    if not same(ours[0], theirs[0]) or ours[1].shape != theirs[1].shape:
        return False
    soft = len(config.inputs) > 5 and config.inputs[5].values != (0.0,)
    if soft:
        close = np.abs(ours[1] - theirs[1]) <= SOFT_BOUND * np.abs(theirs[1])
        if not close.all():
            return False
    elif not same(ours[1], theirs[1]):
        return False
    return len(ours[0]) == 0 or same(ours[2], theirs[2])


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    core = ov.Core()
    runs = [o for o in outcomes if runnable(o)]
    failing: list[str] = []
    for start in range(0, len(runs), BATCH_SIZE):
        batch = [(o.config, o.outputs) for o in runs[start : start + BATCH_SIZE]]
        path = write(tmp_path, f"run{start}", batch)  # type: ignore[arg-type]
        inputs = {
            f"in{position}_{config.index}": data_input(config, position)
            for config, _ in batch
            for position, source in enumerate(config.inputs)
            if source.values is None
        }
        compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
        results = compiled.create_infer_request().infer(inputs)
        theirs = {port.get_any_name(): value for port, value in results.items()}
        ours = irpool.load(path).run(dict(inputs))
        for config, _ in batch:
            names = [f"out{k}_{config.index}" for k in range(3)]
            if not agrees(config, [ours[n] for n in names], [theirs[n] for n in names]):
                failing.append(
                    f"{config.describe()}: irpool {ours[names[0]].tolist()[:4]} "
                    f"{ours[names[1]][:, 2].tolist()[:4]}, CPU {theirs[names[0]].tolist()[:4]} "
                    f"{theirs[names[1]][:, 2].tolist()[:4]}"
                )
    shown = "\n".join(failing[:MAX_REPORTED])
    assert not failing, f"{len(failing)} of {len(runs)} runs differ:\n{shown}"
