"""Live differential test: ReduceMean-1 and ReduceMax-1 run by irpool and by OpenVINO's CPU plugin.

Every configuration (op, element type, shape, axes as a scalar or 1-D i32/i64 Const with
negative and repeated axes or none, keep_dims, inputs with or without NaN and inf) is drawn
from a generator seeded with its index, so configuration #n can be rebuilt with
`random_config(n)`. `BATCH_SIZE` configurations share one model and one compile
(oracle_batch.py). Compared: ReduceMax values exactly (f64 within f32 precision: the
CPU reduces f64 in f32), ReduceMean within index.json's tolerances, integers exactly, and
NaN where the CPU has NaN.

f64 inputs hold no inf: the CPU converts f64 to f32 first, saturating inf to the largest f32
(index.json notes.f64), where irpool keeps f64.

Not compared, each with a test below that checks the difference is still real:
- integer means whose sum leaves the element type: the CPU keeps the running sum in the
  element type (i8 saturates in an order irpool does not know; i32 and i64 are summed in f32
  and divided in f32), irpool sums exactly. u8 saturates at 255, which irpool reproduces;
- ReduceMax over NaN where irpool does not know the CPU's scan order (`scan_run` is None, on
  AVX-512 only: 16 or more reduced elements with rank 5, every axis reduced, rank 4 over axes
  1-3, or a kept innermost axis of 1). Runs scanned in SIMD lanes (16 or more on AVX-512, 8 or
  more with AVX2) are compared.
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
from irpool.execute.kernels.reduce_order import AVX2_LANES, LANES, lanes, scan_run
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

pytestmark = pytest.mark.oracle

CONFIG_COUNT = 900
SEED = "irpool-differential-reductions-1"
BUILDERS = {"ReduceMean": opset1.reduce_mean, "ReduceMax": opset1.reduce_max}
ELEMENT_TYPES = {"f32": 55, "f16": 10, "f64": 5, "i32": 10, "i64": 6, "i8": 6, "u8": 8}
INTEGER_RANGES = {"i8": (-10, 10), "u8": (0, 20), "i32": (-1000, 1000), "i64": (-1000, 1000)}


@dataclass(frozen=True)
class Config:
    index: int
    op: str
    element_type: str
    shape: tuple[int, ...]
    axes: tuple[int, ...]  # as written: negative and repeated axes kept
    scalar_axes: bool
    axes_type: str
    keep_dims: bool
    specials: bool  # inputs hold NaN and +-inf

    @property
    def reduced(self) -> tuple[int, ...]:
        return tuple(sorted({axis % len(self.shape) for axis in self.axes}))

    def describe(self) -> str:
        axes = str(self.axes[0]) if self.scalar_axes else str(list(self.axes))
        return (
            f"#{self.index} {self.op} {self.element_type} {list(self.shape)} axes={axes} "
            f"({self.axes_type}) keep_dims={str(self.keep_dims).lower()}"
            + (" with NaN/inf" if self.specials else "")
        )

    def features(self) -> set[str]:
        found = {self.op, self.element_type, f"rank {len(self.shape)}"}
        found.add("keep_dims" if self.keep_dims else "no keep_dims")
        if not self.axes:
            found.add("no axes")
        if self.scalar_axes:
            found.add("scalar axes")
        if any(axis < 0 for axis in self.axes):
            found.add("negative axis")
        if len(set(self.axes)) < len(self.axes) or len(self.reduced) < len(self.axes):
            found.add("repeated axis")
        if len(self.reduced) > 1:
            found.add("several axes")
        if self.specials:
            found.add("NaN/inf")
        return found


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}:{index}")
    op = ("ReduceMean", "ReduceMax")[index % 2]
    element_type = rng.choices(list(ELEMENT_TYPES), list(ELEMENT_TYPES.values()))[0]
    rank = rng.choices((1, 2, 3, 4, 5), (10, 20, 25, 35, 10))[0]
    shape = tuple(rng.choice((1, 2, 3, 5, 7)) for _ in range(rank - 1))
    shape += (rng.choice((1, 3, 8, 17, 33)),)  # long innermost runs reach the SIMD lanes
    keep_dims = rng.random() < 0.5
    count = rng.choices(range(rank + 1), [1 if keep_dims else 0] + [4] * rank)[0]
    axes = [axis - rank if rng.random() < 0.3 else axis for axis in rng.sample(range(rank), count)]
    if axes and rng.random() < 0.15:
        repeated = rng.choice(axes)
        axes.append(repeated - rank if repeated >= 0 else repeated + rank)
    scalar = len(axes) == 1 and rng.random() < 0.4
    return Config(
        index,
        op,
        element_type,
        shape,
        tuple(axes),
        scalar,
        rng.choice(("i32", "i64")),
        keep_dims,
        element_type in ("f32", "f16") and rng.random() < 0.3,
    )


def random_input(config: Config) -> NDArray[Any]:
    rng = np.random.default_rng(zlib.crc32(f"{SEED}:{config.index}".encode()))
    dtype = NUMPY_TYPES[config.element_type]
    if config.element_type in INTEGER_RANGES:
        low, high = INTEGER_RANGES[config.element_type]
        return rng.integers(low, high + 1, size=config.shape).astype(dtype)
    values = rng.standard_normal(config.shape)
    if config.specials:
        spots = rng.random(config.shape)
        values[spots < 0.15] = np.nan
        values[(spots >= 0.15) & (spots < 0.2)] = np.inf
        values[(spots >= 0.2) & (spots < 0.25)] = -np.inf
    return values.astype(dtype)


def axes_constant(config: Config) -> Any:
    dtype = NUMPY_TYPES[config.axes_type]
    if not config.axes:
        return ov.op.Constant(ov.Type(dtype), ov.Shape([0]), [])
    values = np.array(config.axes[0] if config.scalar_axes else config.axes, dtype)
    return opset1.constant(values)


def build(config: Config, slot: int) -> tuple[Any, list[Any]]:
    data = slot_input(list(config.shape), config.element_type, slot)
    node = BUILDERS[config.op](data, axes_constant(config), config.keep_dims)
    return data, [named_result(node.output(0), f"out{slot}")]


def integer_sum_fits(config: Config) -> bool:
    """Whether no running sum can leave the element type (INT32 for i64, which the CPU narrows);
    u8 sums saturate at 255 whatever the order, which irpool reproduces."""
    if config.op != "ReduceMean" or config.element_type not in INTEGER_RANGES:
        return True
    if config.element_type == "u8":
        return True
    low, high = INTEGER_RANGES[config.element_type]
    count = int(np.prod([config.shape[axis] for axis in config.reduced]))
    info = np.iinfo("i4" if config.element_type == "i64" else NUMPY_TYPES[config.element_type])
    return count * high <= info.max and count * low >= info.min


def nan_scan_is_known(config: Config) -> bool:
    """Whether irpool knows the order the CPU scans the reduced elements in, which decides
    where a NaN wins."""
    if config.op != "ReduceMax" or not config.specials:
        return True
    return scan_run(config.shape, config.reduced) is not None


def compared(config: Config) -> bool:
    return integer_sum_fits(config) and nan_scan_is_known(config)


def tolerance(config: Config) -> str | None:
    if config.op == "ReduceMean" and config.element_type.startswith("f"):
        return config.element_type
    return "f64" if config.element_type == "f64" else None


def compare(config: Config, slot: int, ours: Arrays, theirs: Arrays) -> str:
    actual, expected = ours[f"out{slot}"], theirs[f"out{slot}"]
    if not compared(config) or same_values(actual, expected, tolerance(config)):
        return ""
    return describe_difference(actual, expected)


outcomes = batched_outcomes(random_config, CONFIG_COUNT, build, random_input, compare)


def test_generator_covers_the_space(outcomes: list[Outcome[Config]]) -> None:
    compared_configs = [o.config for o in outcomes if compared(o.config)]
    counts = Counter(feature for config in compared_configs for feature in config.features())
    assert counts["ReduceMean"] >= 300 and counts["ReduceMax"] >= 300, counts
    wanted = [
        *ELEMENT_TYPES, "rank 1", "rank 5", "keep_dims", "no keep_dims", "no axes",
        "scalar axes", "negative axis", "repeated axis", "several axes", "NaN/inf",
    ]  # fmt: skip
    assert [feature for feature in wanted if counts[feature] < 10] == [], counts


def test_irpool_matches_the_cpu_plugin(outcomes: list[Outcome[Config]]) -> None:
    assert not failures(outcomes, ov.__version__)


def run_cpu(path: Path, data: NDArray[Any]) -> NDArray[Any]:
    core = ov.Core()
    compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
    return compiled.create_infer_request().infer({"in0": data})[compiled.output(0)]


def save(config: Config, path: Path) -> Path:
    data, results = build(config, 0)
    ov.save_model(ov.Model(results, [data], "model"), path, compress_to_fp16=False)
    return path


def test_u8_mean_saturates_its_sum_at_255(tmp_path: Path) -> None:
    config = Config(0, "ReduceMean", "u8", (1, 3), (1,), False, "i64", False, False)
    data = np.array([[255, 255, 1]], np.uint8)
    path = save(config, tmp_path / "model.xml")
    assert run_cpu(path, data).tolist() == [85]
    assert irpool.load(path).run({"in0": data})["out0"].tolist() == [85]


@pytest.mark.parametrize(
    ("element_type", "values", "cpu", "exact"),
    [
        ("i8", [100, 100, 100, -1], 31, 74),  # saturates at 127 in i8
        ("i32", [2**30] * 4, -(2**29), 2**30),  # the f32 sum 2**32 becomes INT32_MIN, then / 4
    ],
)
def test_cpu_keeps_integer_sums_in_the_element_type(
    tmp_path: Path, element_type: str, values: list[int], cpu: int, exact: int
) -> None:
    config = Config(
        0, "ReduceMean", element_type, (1, len(values)), (1,), False, "i64", False, False
    )
    data = np.array([values], NUMPY_TYPES[element_type])
    path = save(config, tmp_path / "model.xml")
    assert run_cpu(path, data).tolist() == [cpu]
    assert irpool.load(path).run({"in0": data})["out0"].tolist() == [exact]


@pytest.mark.parametrize(
    ("shape", "axes", "nan_at", "cpu"),
    [
        ((1, LANES), (1,), LANES - 1, "lowest"),  # the last lane's NaN wins the lane tree, then
        # MAXPS(NaN, output) keeps the output's start value
        ((1, LANES + 1), (1,), LANES - 1, "tail"),  # the element after the lanes restarts
        ((1, LANES + 1), (1,), LANES, "nan"),  # a NaN last in the sequential tail stays
        ((1, LANES), (1,), 13, "drops 0, 1, 4, 5, 8, 9, 12"),  # lane 13 wins over lanes 0-12's
        # group pairs, then loses to lanes 2-15's pair
    ],
)
def test_cpu_scans_runs_of_16_in_vector_lanes(
    tmp_path: Path, shape: tuple[int, ...], axes: tuple[int, ...], nan_at: int, cpu: str
) -> None:
    config = Config(0, "ReduceMax", "f32", shape, axes, False, "i64", False, True)
    assert scan_run(shape, axes) == shape[-1]
    data = np.arange(shape[-1], 0, -1, dtype=np.float32).reshape(shape)  # the largest first
    data[0, nan_at] = np.nan
    path = save(config, tmp_path / "model.xml")
    theirs = run_cpu(path, data)
    ours = irpool.load(path).run({"in0": data})["out0"]
    assert np.array_equal(ours, theirs, equal_nan=True), (ours, theirs)
    expected = {
        "lowest": [np.finfo(np.float32).min], "tail": [1.0], "nan": [np.nan],
        "drops 0, 1, 4, 5, 8, 9, 12": [data[0, 2]],
    }[cpu]  # fmt: skip
    assert np.array_equal(theirs, expected, equal_nan=True), theirs


@pytest.mark.parametrize("shape", [(1, 8), (1, 8, 1)])
def test_a_row_of_8_is_scanned_in_the_lanes_of_an_avx2_vector(
    tmp_path: Path, shape: tuple[int, ...]
) -> None:
    """[8, 7, 6, 5, 4, NaN, 2, 1]: with AVX2 one vector of 8 lanes, whose tree drops lanes 0, 1,
    4 and 5 (the NaN's pair) and keeps 6, also with a kept innermost axis of 1; on AVX-512 one
    by one: the maximum after the NaN, 2."""
    config = Config(0, "ReduceMax", "f32", shape, (1,), False, "i64", False, True)
    data = np.array([8, 7, 6, 5, 4, np.nan, 2, 1], np.float32).reshape(shape)
    path = save(config, tmp_path / "model.xml")
    theirs = run_cpu(path, data)
    assert theirs.ravel().tolist() == ([6.0] if lanes() == AVX2_LANES else [2.0])
    assert irpool.load(path).run({"in0": data})["out0"].tolist() == theirs.tolist()


def test_cpu_scans_every_axis_of_rank_3_in_an_order_irpool_knows_with_avx2(tmp_path: Path) -> None:
    """On AVX-512, a recorded difference: with every axis of a rank-3 tensor reduced, the CPU
    neither scans sequentially nor in the lanes of one run (measured on random rows: about half
    agree). With AVX2 it scans the runs of the last two axes (3 x 40) in 8 lanes, which irpool
    reproduces (measured 2026-12-07, docs/reductions.md)."""
    shape = (4, 3, 40)
    avx2 = lanes() == AVX2_LANES
    assert scan_run(shape, (0, 1, 2)) == (120 if avx2 else None)
    config = Config(0, "ReduceMax", "f32", shape, (0, 1, 2), False, "i64", False, True)
    path = save(config, tmp_path / "model.xml")
    model = irpool.load(path)
    rng = np.random.default_rng(0)
    differ = 0
    for _ in range(20):
        data = rng.standard_normal(shape).astype(np.float32)
        data[rng.random(shape) < 0.05] = np.nan
        theirs = run_cpu(path, data)
        ours = model.run({"in0": data})["out0"]
        differ += not np.array_equal(ours, theirs, equal_nan=True)
    assert differ == 0 if avx2 else differ > 0
