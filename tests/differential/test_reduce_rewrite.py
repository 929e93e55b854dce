"""IR309 against the CPU plugin: a Reduce after an Unsqueeze or a Reshape that inserts 1s.

Each case draws an input shape, where the 1s go, the reduce axes (some negative), keep_dims,
ReduceMean or ReduceMax and Unsqueeze or Reshape; OpenVINO compiles it (f32) and runs it, and
irpool must report IR309 exactly when the CPU fails to compile it or returns another shape or
other values than NumPy, and say which of the two. CASES runs by default; more with

    IRPOOL_TEST_SCALE=13 python -m pytest tests/differential/test_reduce_rewrite.py
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irpool
from irpool.cpu.pull_through_reduce import pulled_through_reduce
from tests.scale import examples

ov = pytest.importorskip("openvino")
o1 = ov.opset1

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

CASES = examples(150)


def draw(seed: int) -> tuple[list[int], list[int], list[int], bool, str, str]:
    rnd = random.Random(seed)
    shape = [rnd.choice([2, 3, 4, 5]) for _ in range(rnd.randint(1, 4))]
    full_rank = len(shape) + rnd.randint(1, 2)
    ones = sorted(rnd.sample(range(full_rank), full_rank - len(shape)))
    axes = sorted(rnd.sample(range(full_rank), rnd.randint(1, min(3, full_rank))))
    axes = [a - full_rank if rnd.random() < 0.5 else a for a in axes]
    keep = rnd.random() < 0.5
    return (
        shape,
        ones,
        axes,
        keep,
        rnd.choice(["mean", "max"]),
        rnd.choice(["unsqueeze", "reshape"]),
    )


def with_ones(shape: list[int], ones: list[int]) -> list[int]:
    full = list(shape)
    for position in ones:
        full.insert(position, 1)
    return full


@pytest.fixture(scope="module")
def core() -> Iterator[Any]:
    yield ov.Core()


def cpu_outcome(core: Any, model: object, x: np.ndarray, expected: np.ndarray) -> str | None:
    try:
        compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    except RuntimeError as error:
        assert "out of the tensor rank range" in str(error)
        return "compile"
    got = compiled(x)[0]
    same = got.shape == expected.shape and np.allclose(got, expected, rtol=1e-5, atol=1e-6)
    return None if same else "wrong"


@pytest.mark.parametrize("seed", range(CASES))
def test_ir309_is_reported_exactly_where_the_cpu_goes_wrong(
    seed: int, core: Any, tmp_path: Path
) -> None:
    shape, ones, axes, keep, kind, via = draw(seed)
    full = with_ones(shape, ones)
    data = o1.parameter(shape, np.float32, name="x")
    if via == "unsqueeze":
        inserted = o1.unsqueeze(data, o1.constant(np.array(ones, np.int64)))
    else:
        inserted = o1.reshape(data, o1.constant(np.array(full, np.int64)), special_zero=False)
    reduce = o1.reduce_mean if kind == "mean" else o1.reduce_max
    model = ov.Model([reduce(inserted, o1.constant(np.array(axes, np.int64)), keep)], [data], "m")
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    numpy_reduce = np.mean if kind == "mean" else np.max
    reduced = tuple(sorted({a % len(full) for a in axes}))
    expected = numpy_reduce(x.reshape(full), axis=reduced, keepdims=keep)
    outcome = cpu_outcome(core, model, x, expected)

    path = tmp_path / "model.xml"
    ov.save_model(model, path)
    found = [d for d in irpool.load(path).validate() if d.code == "IR309"]
    assert len(found) == (outcome is not None), (shape, ones, axes, keep, via, outcome, found)
    if found:
        assert ("fails to compile" in found[0].message) == (outcome == "compile")


@pytest.mark.parametrize(
    ("shape", "ones", "axes", "keep", "outcome"),
    [
        ([2, 3], [2], [-2], False, "wrong"),  # axis 1 as written, axis 0 on the CPU
        ([2, 3], [1], [-3], True, "compile"),  # -3 on the rank-2 input
        ([2, 3], [2], [1], False, None),  # a non-negative axis is renumbered right
        ([2, 3], [0], [-1], False, None),  # the reduced axis after every inserted 1
        ([2, 3], [1], [-2], False, None),  # reduces the inserted 1: no rewrite
        ([2, 3, 4], [2], [0], True, "wrong"),  # keep_dims: the 1s come back elsewhere
        ([2, 3, 4], [1], [0], True, None),  # ... unless they are next to each other
    ],
)
def test_the_replayed_rewrite_on_measured_cases(
    shape: list[int], ones: list[int], axes: list[int], keep: bool, outcome: str | None
) -> None:
    assert pulled_through_reduce(shape, ones, axes, keep) == outcome
