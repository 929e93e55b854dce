"""Live differential test: TopK-1, TopK-3 and TopK-11 against OpenVINO's CPU plugin.

Configuration #n (`random_config(n)`): a version, mode max or min, sort value, index or none,
an index type, a k Const in [1, axis], data of a random type and shape (ranks 1-4, axes up to
100 long, every axis). Both outputs must equal the CPU's bit for bit. The values along each
axis are distinct (floats of random magnitude, permuted integers, ±inf and ±0 included), but
for TopK-11 with `stable` and sort value, whose ties the CPU keeps in index order, and along
the last axis, where irpool replays the CPU's kernels (docs/ops/TopK.md#the-cpus-kernels):
there they hold many ties. Along another axis the CPU's tie order and its NaN order depend on
the kernel the shape selects (docs/ops/TopK.md#known-differences); the last tests record NaN.
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
from tests.differential.harness import NUMPY
from tests.differential.oracle_batch import (
    CPU_CONFIG,
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
opset3 = pytest.importorskip("openvino.opset3")
opset11 = pytest.importorskip("openvino.opset11")

pytestmark = pytest.mark.oracle

CONFIG_COUNT = 600
SEED = "irpool-differential-topk-1"
VERSIONS = {1: opset1, 3: opset3, 11: opset11}
TYPES = ("f32", "f32", "f32", "f16", "f64", "i32", "i64", "i8", "u8")


@dataclass(frozen=True)
class Config:
    index: int
    version: int
    element_type: str
    shape: tuple[int, ...]
    axis: int
    k: int
    mode: str
    sort: str
    index_type: str
    stable: bool

    @property
    def ties(self) -> bool:
        last_axis = self.axis % len(self.shape) == len(self.shape) - 1
        return (self.stable and self.sort == "value") or last_axis

    def describe(self) -> str:
        return (
            f"#{self.index} TopK-{self.version} {self.element_type} {list(self.shape)} axis "
            f"{self.axis} k {self.k} {self.mode} sort {self.sort} {self.index_type}"
            + (" stable" if self.stable else "")
        )


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}:{index}")
    version = rng.choice((1, 3, 11, 11))
    rank = rng.randint(1, 4)
    shape = tuple(rng.choice((1, 2, 3, 5, 8, 17, 40, 100)) for _ in range(rank))
    axis = rng.randint(-rank, rank - 1)
    k = rng.randint(1, shape[axis])
    sort = rng.choice(("value", "index", "none"))
    index_type = rng.choice(("i32", "i64")) if version > 1 else "i32"
    stable = version == 11 and sort != "none" and rng.random() < 0.8
    mode = rng.choice(("max", "min"))
    return Config(index, version, rng.choice(TYPES), shape, axis, k, mode, sort, index_type, stable)


def random_input(config: Config) -> NDArray[Any]:
    rng = np.random.default_rng(zlib.crc32(f"{SEED}:{config.index}".encode()))
    dtype = np.dtype(NUMPY[config.element_type])
    shape, axis = config.shape, config.axis % len(config.shape)
    if config.ties:
        return rng.integers(0, 4, size=shape).astype(dtype)
    length = shape[axis]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        low = max(int(info.min), -(2**31))
        pool = np.linspace(
            low, min(int(info.max), 2**31 - 1), num=min(length * 7, 255), dtype=np.int64
        )
        picks = np.argsort(rng.random((*shape[:axis], *shape[axis + 1 :], len(pool))), axis=-1)
        values = pool[picks[..., :length]]
        return np.moveaxis(values, -1, axis).astype(dtype)
    ranks = np.argsort(rng.random((*shape[:axis], *shape[axis + 1 :], length)), axis=-1)
    specials = np.array([-np.inf, -0.0, np.inf])
    scale = 10 ** rng.uniform(-2, 2.5)  # one scale: distinct after any rounding, no zero
    values = np.where(
        ranks < 3, specials[np.minimum(ranks, 2)], (ranks - length / 2 + 0.25) * scale
    )
    return np.moveaxis(values, -1, axis).astype(dtype)


def build(config: Config, slot: int) -> tuple[Any, list[Any]]:
    data = slot_input(list(config.shape), config.element_type, slot)
    k = opset1.constant(np.array(config.k, np.int64))
    arguments: list[Any] = [data, k, config.axis, config.mode, config.sort]
    if config.version > 1:
        arguments.append(config.index_type)
    if config.version == 11:
        arguments.append(config.stable)
    node = VERSIONS[config.version].topk(*arguments)
    assert node.get_type_name() == "TopK"
    names = (f"out{slot}", f"idx{slot}")
    return data, [named_result(node.output(port), name) for port, name in enumerate(names)]


def compare(config: Config, slot: int, ours: Arrays, theirs: Arrays) -> str:
    for name in (f"out{slot}", f"idx{slot}"):
        if not same_values(ours[name], theirs[name], None):
            return f"{name}: {describe_difference(ours[name], theirs[name])}"
    return ""


outcomes = batched_outcomes(random_config, CONFIG_COUNT, build, random_input, compare)


def test_generator_covers_the_space(outcomes: list[Outcome[Config]]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        config = outcome.config
        counts.update({f"TopK-{config.version}", config.sort, config.mode, config.element_type})
        counts["ties"] += config.ties
        counts["k of 16 or more"] += config.k >= 16
    assert all(counts[f"TopK-{v}"] >= 100 for v in VERSIONS), counts
    assert counts["ties"] >= 80 and counts["k of 16 or more"] >= 80, counts


def test_irpool_matches_the_cpu_plugin(outcomes: list[Outcome[Config]]) -> None:
    assert not failures(outcomes, ov.__version__)


def _save(tmp_path: Path, data_shape: list[int], k: Any, inputs: list[Any], **kwargs: Any) -> Path:
    data = inputs[0]
    node = opset11.topk(data, k, 1, kwargs.get("mode", "max"), kwargs.get("sort", "value"))
    node.output(0).set_names({"values"})
    node.output(1).set_names({"indices"})
    path = tmp_path / "topk.xml"
    ov.save_model(
        ov.Model([opset1.result(node.output(0)), opset1.result(node.output(1))], inputs), path
    )
    return path


@pytest.mark.parametrize("k", [1, 3, 5])
def test_k_given_at_run_time(tmp_path: Path, k: int) -> None:
    data = opset1.parameter([2, 5], np.float32, name="data")
    count = opset1.parameter([], np.int64, name="k")
    path = _save(tmp_path, [2, 5], count, [data, count])
    inputs = {"data": np.array([[1, 5, 3, 2, 4], [0, -1, 7, 7.5, 2]], np.float32), "k": np.array(k)}
    core = ov.Core()
    compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
    theirs = compiled.create_infer_request().infer(inputs)
    ours = irpool.load(path).run(inputs)
    for name in ("values", "indices"):
        assert np.array_equal(ours[name], theirs[compiled.output(name)]), name


@pytest.mark.parametrize(
    ("mode", "k", "indices"),
    [("min", 4, [9, 1, 7, 4]), ("max", 8, [7, 8, 9, 5, 0, 2, 3, 6]), ("max", 1, [8])],
)
def test_nan_order_along_the_last_axis_is_the_cpus_kernels(
    tmp_path: Path, mode: str, k: int, indices: list[int]
) -> None:
    """Along the last axis NaN goes where the CPU's kernels put it: min's bubble lets NaN
    displace every value, max's heap ranks NaN first (docs/ops/TopK.md#the-cpus-kernels)."""
    data = opset1.parameter([1, 10], np.float32, name="data")
    path = _save(tmp_path, [1, 10], opset1.constant(np.array(k, np.int64)), [data], mode=mode)
    x = np.array([[3, 1, 3, 2, 1, 3, 2, np.nan, 5, np.nan]], np.float32)
    core = ov.Core()
    compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
    theirs = compiled.create_infer_request().infer({"data": x})[compiled.output("indices")]
    assert theirs.tolist() == [indices]
    assert irpool.load(path).run({"data": x})["indices"].tolist() == [indices]
