"""Live differential test: ScatterElementsUpdate-3 and -12 run by irpool and by OpenVINO's
CPU plugin.

Configuration #n (`random_config(n)`): a version, a reduction (none, sum, prod, min, max,
mean) and `use_init_val` (-12), data of a random type and shape (ranks 1-3) fed at run time,
indices (i32 or i64, negative ones and many duplicates, always in range: out of range the CPU
fails) and updates as Consts, a scalar axis. The output must equal the CPU's bit for bit:
duplicates as the CPU orders them, sums and products in its order.
"""

from __future__ import annotations

import random
import zlib
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from tests.differential.harness import NUMPY
from tests.differential.oracle_batch import (
    Outcome,
    batched_outcomes,
    failures,
    named_result,
    slot_input,
)

ov = pytest.importorskip("openvino")
opset1 = pytest.importorskip("openvino.opset1")
opset3 = pytest.importorskip("openvino.opset3")
opset12 = pytest.importorskip("openvino.opset12")

pytestmark = pytest.mark.oracle

CONFIG_COUNT = 600
SEED = "irpool-differential-scatter-elements-1"
REDUCTIONS = ("none", "sum", "prod", "min", "max", "mean")
TYPES = ("f32", "f32", "f32", "f16", "f64", "i32", "i64", "i8", "u8")


@dataclass(frozen=True)
class Config:
    index: int
    version: int
    element_type: str
    shape: tuple[int, ...]
    indices_shape: tuple[int, ...]
    indices_type: str
    axis: int
    reduction: str
    use_init_val: bool

    def describe(self) -> str:
        return (
            f"#{self.index} ScatterElementsUpdate-{self.version} {self.element_type} "
            f"{list(self.shape)} indices {self.indices_type} {list(self.indices_shape)} axis "
            f"{self.axis} {self.reduction} use_init_val={self.use_init_val}"
        )


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}:{index}")
    version = rng.choice((3, 12, 12, 12))
    rank = rng.randint(1, 3)
    shape = tuple(rng.choice((1, 2, 3, 5, 8)) for _ in range(rank))
    axis = rng.randint(-rank, rank - 1)
    indices_shape = tuple(
        rng.randint(1, 12) if a == axis % rank else rng.randint(1, d) for a, d in enumerate(shape)
    )
    reduction = rng.choice(REDUCTIONS) if version == 12 else "none"
    init = rng.random() < 0.5 or version == 3
    kind = rng.choice(("i32", "i64"))
    return Config(
        index, version, rng.choice(TYPES), shape, indices_shape, kind, axis, reduction, init
    )


def _rng(config: Config, salt: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(f"{SEED}:{config.index}:{salt}".encode()))


def _values(config: Config, shape: tuple[int, ...], salt: str) -> NDArray[Any]:
    rng = _rng(config, salt)
    dtype = np.dtype(NUMPY[config.element_type])
    if dtype.kind in "iu":
        low, high = (0, 4) if config.reduction == "prod" else (-50, 50)
        low = max(low, 0) if dtype.kind == "u" else low
        return rng.integers(low, high, size=shape).astype(dtype)
    values = rng.standard_normal(shape) * np.exp(rng.standard_normal(shape) * 2)
    spots = rng.random(shape)
    values[spots < 0.03] = np.nan
    values[(spots >= 0.03) & (spots < 0.06)] = np.inf
    values[(spots >= 0.06) & (spots < 0.08)] = -0.0
    return values.astype(dtype)


def random_input(config: Config) -> NDArray[Any]:
    return _values(config, config.shape, "data")


def build(config: Config, slot: int) -> tuple[Any, list[Any]]:
    data = slot_input(list(config.shape), config.element_type, slot)
    length = config.shape[config.axis]
    picks = _rng(config, "indices").integers(-length, length, size=config.indices_shape)
    indices = opset1.constant(picks.astype(NUMPY[config.indices_type]))
    updates = opset1.constant(_values(config, config.indices_shape, "updates"))
    axis = opset1.constant(np.array(config.axis, np.int64))
    if config.version == 3:
        node = opset3.scatter_elements_update(data, indices, updates, axis)
    else:
        node = opset12.scatter_elements_update(
            data, indices, updates, axis, config.reduction, config.use_init_val
        )
    assert node.get_type_name() == "ScatterElementsUpdate"
    return data, [named_result(node.output(0), f"out{slot}")]


outcomes = batched_outcomes(random_config, CONFIG_COUNT, build, random_input)


def test_generator_covers_the_space(outcomes: list[Outcome[Config]]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        config = outcome.config
        counts.update({config.reduction, config.element_type, f"v{config.version}"})
        counts["duplicates"] += config.indices_shape[config.axis] > config.shape[config.axis]
        counts["no init"] += not config.use_init_val
    assert all(counts[r] >= 50 for r in REDUCTIONS) and counts["v3"] >= 100, counts
    assert counts["duplicates"] >= 200 and counts["no init"] >= 100, counts


def test_irpool_matches_the_cpu_plugin(outcomes: list[Outcome[Config]]) -> None:
    assert not failures(outcomes, ov.__version__)
