"""Live differential test: AdaptiveMaxPool-8 run by irpool and by OpenVINO's CPU plugin.

Every configuration (element type, rank 3-5 with batch and channels up to 3, output_size as
an i32 or i64 Const, smaller or larger than the input, inputs with many ties or with NaN and
+-inf) is drawn from a generator seeded with its index, so configuration #n can be rebuilt
with `random_config(n)`. `BATCH_SIZE` configurations share one model and one compile
(oracle_batch.py). The indices are i32: the CPU plugin cannot compile i64 ones (irpool
reports IR605). Values are compared exactly (f64 within f32 precision: the CPU pools f64 in
f32), indices exactly, NaN where the CPU has NaN.

Most configurations return both outputs, which makes the CPU run OpenVINO's reference kernel.
Some return only the values: the CPU then runs a global AdaptiveMaxPool as a ReduceMax, and
so does irpool (the last test). Not compared: such a reduction over NaN when a plane of 16 or
more elements is scanned in SIMD lanes (`scanned_in_lanes`, recorded in
tests/differential/test_reduce.py).
"""

from __future__ import annotations

import random
import zlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from irpool.execute.kernels.reduce_order import LANES
from tests.differential.oracle_batch import (
    CPU_CONFIG,
    NUMPY_TYPES,
    Arrays,
    Outcome,
    batched_outcomes,
    describe_difference,
    failures,
    named_result,
    same_values,
    slot_input,
)

ov = pytest.importorskip("openvino")
opset1 = pytest.importorskip("openvino.opset1")
opset8 = pytest.importorskip("openvino.opset8")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

CONFIG_COUNT = 1200
SEED = "irpool-differential-adaptive-max-pool-1"
ELEMENT_TYPES = {"f32": 60, "f16": 10, "f64": 5, "i32": 8, "i64": 5, "i8": 5, "u8": 7}
MAX_SPATIAL = {3: 12, 4: 8, 5: 5}


@dataclass(frozen=True)
class Config:
    index: int
    element_type: str
    shape: tuple[int, ...]
    output_size: tuple[int, ...]
    size_type: str
    inputs: str  # "random", "ties" or "specials" (NaN and +-inf)
    with_indices: bool

    def describe(self) -> str:
        return (
            f"#{self.index} AdaptiveMaxPool-8 {self.element_type} {list(self.shape)} "
            f"output_size={list(self.output_size)} ({self.size_type}) inputs={self.inputs}"
            + ("" if self.with_indices else " values only")
        )

    def features(self) -> set[str]:
        found = {self.element_type, f"rank {len(self.shape)}", self.inputs}
        if self.shape[0] > 1:
            found.add("batch > 1")
        if any(o > d for o, d in zip(self.output_size, self.shape[2:], strict=True)):
            found.add("upsampling")
        if all(o == 1 for o in self.output_size):
            found.add("global")
        found.add("indices" if self.with_indices else "values only")
        return found


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}:{index}")
    element_type = rng.choices(list(ELEMENT_TYPES), list(ELEMENT_TYPES.values()))[0]
    rank = rng.choice((3, 4, 5))
    spatial = tuple(rng.randint(1, MAX_SPATIAL[rank]) for _ in range(rank - 2))
    shape = (rng.choice((1, 1, 2, 3)), rng.choice((1, 2, 3)), *spatial)
    if rng.random() < 0.15:
        output_size = (1,) * len(spatial)
    else:
        output_size = tuple(rng.randint(1, d + 3) for d in spatial)
    kinds = ["random", "ties"] + (["specials"] if element_type in ("f32", "f16") else [])
    return Config(
        index,
        element_type,
        shape,
        output_size,
        rng.choice(("i32", "i64")),
        rng.choice(kinds),
        rng.random() < 0.85,
    )


def random_input(config: Config) -> NDArray[Any]:
    rng = np.random.default_rng(zlib.crc32(f"{SEED}:{config.index}".encode()))
    dtype = NUMPY_TYPES[config.element_type]
    if config.element_type not in ("f32", "f16", "f64"):
        low = 0 if config.element_type == "u8" else -10
        span = 3 if config.inputs == "ties" else 20
        return rng.integers(low, low + span + 1, size=config.shape).astype(dtype)
    values = rng.standard_normal(config.shape)
    if config.inputs == "ties":
        values = np.round(values)
    elif config.inputs == "specials":
        spots = rng.random(config.shape)
        values[spots < 0.15] = np.nan
        values[(spots >= 0.15) & (spots < 0.2)] = np.inf
        values[(spots >= 0.2) & (spots < 0.25)] = -np.inf
    return values.astype(dtype)


def build(config: Config, slot: int) -> tuple[Any, list[Any]]:
    data = slot_input(list(config.shape), config.element_type, slot)
    size = opset1.constant(np.array(config.output_size, NUMPY_TYPES[config.size_type]))
    pool = opset8.adaptive_max_pool(data, size, index_element_type="i32", name=f"pool{slot}")
    results = [named_result(pool.output(0), f"values{slot}")]
    if config.with_indices:
        results.append(named_result(pool.output(1), f"indices{slot}"))
    return data, results


def scanned_in_lanes(config: Config) -> bool:
    """A values-only global pool over NaN, run as ReduceMax over a plane of LANES or more."""
    if config.with_indices or config.inputs != "specials" or set(config.output_size) != {1}:
        return False
    return int(np.prod(config.shape[2:])) >= LANES


def compare(config: Config, slot: int, ours: Arrays, theirs: Arrays) -> str:
    if scanned_in_lanes(config):
        return ""
    tolerance = "f64" if config.element_type == "f64" else None
    problems = []
    names = [f"values{slot}"] + ([f"indices{slot}"] if config.with_indices else [])
    for name in names:
        exact = tolerance if name.startswith("values") else None
        if not same_values(ours[name], theirs[name], exact):
            problems.append(f"{name}: {describe_difference(ours[name], theirs[name])}")
    return "; ".join(problems)


outcomes = batched_outcomes(random_config, CONFIG_COUNT, build, random_input, compare)


def test_generator_covers_the_space(outcomes: list[Outcome[Config]]) -> None:
    counts = Counter(feature for o in outcomes for feature in o.config.features())
    assert len(outcomes) >= 1000
    wanted = [
        *ELEMENT_TYPES, "rank 3", "rank 4", "rank 5", "batch > 1", "upsampling", "global",
        "random", "ties", "specials", "indices", "values only",
    ]  # fmt: skip
    assert [feature for feature in wanted if counts[feature] < 20] == [], counts


def test_irpool_matches_the_cpu_plugin(outcomes: list[Outcome[Config]]) -> None:
    assert not failures(outcomes, ov.__version__)


def test_values_only_global_pooling_scans_like_reduce_max(tmp_path: Path) -> None:
    """Measured: with the indices unused, a global AdaptiveMaxPool scans like ReduceMax, so a
    NaN first in the bin is replaced and -inf becomes FLT_LOWEST; irpool does the same. With
    the indices used, the bin scan keeps the NaN and the -inf."""
    data = np.array([[[np.nan, 1, 2], [-np.inf] * 3]], np.float32)
    lowest = float(np.finfo(np.float32).min)
    core = ov.Core()
    for with_indices, expected in ((False, [2, lowest]), (True, [np.nan, -np.inf])):
        config = Config(0, "f32", (1, 2, 3), (1,), "i32", "specials", with_indices)
        param, results = build(config, 0)
        path = tmp_path / f"model{with_indices}.xml"
        ov.save_model(ov.Model(results, [param], "model"), path, compress_to_fp16=False)
        compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
        cpu = compiled.create_infer_request().infer({"in0": data})[compiled.output(0)]
        ours = irpool.load(path).run({"in0": data})["values0"]
        np.testing.assert_array_equal(cpu.ravel(), expected)
        np.testing.assert_array_equal(ours, cpu)
