"""Live differential test: ReduceSum-1, ReduceMin-1, ReduceL1-4, ReduceL2-4 and
ReduceLogicalAnd-1 / ReduceLogicalOr-1 run by irpool and by OpenVINO's CPU plugin.

Configuration #n (`random_config(n)`): an op, an element type, a shape of rank 1-5 (innermost
dims long enough for the 16 SIMD lanes), axes as a scalar or 1-D Const (negative, repeated),
keep_dims, and inputs that may hold NaN and ±inf (floats), the type's extremes (integers) or
values whose f32 sums round. Compared bit for bit where irpool knows the CPU's order
(`scan_run`, docs/ops/ReduceSum.md#summation-order); elsewhere a float sum within the bound
docs/ops/ReduceSum.md states, a minimum over NaN not at all (as ReduceMax), and integers
only where every partial sum is exact in f32 and inside the type.
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

from irpool.execute.kernels.reduce_order import LANES, lanes, scan_run
from tests.differential.oracle_batch import (
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
opset4 = pytest.importorskip("openvino.opset4")

pytestmark = pytest.mark.oracle

CONFIG_COUNT = 720
SEED = "irpool-differential-reduce-sums-1"
BUILDERS = {
    "ReduceSum": opset1.reduce_sum,
    "ReduceMin": opset1.reduce_min,
    "ReduceL1": opset4.reduce_l1,
    "ReduceL2": opset4.reduce_l2,
    "ReduceLogicalAnd": opset1.reduce_logical_and,
    "ReduceLogicalOr": opset1.reduce_logical_or,
}
OPS = ("ReduceSum", "ReduceSum", "ReduceMin", "ReduceL1", "ReduceL2", "ReduceLogicalAnd",
       "ReduceLogicalOr")  # fmt: skip
ELEMENT_TYPES = {"f32": 55, "f16": 10, "f64": 5, "i32": 12, "i64": 6, "i8": 6, "u8": 6}
EXTREMES = {
    "i8": (-128, 127),
    "u8": (0, 255),
    "i32": (-(2**31), 2**31 - 1),
    "i64": (-(2**40), 2**40),
}
ULP = 2.0**-24


@dataclass(frozen=True)
class Config:
    index: int
    op: str
    element_type: str
    shape: tuple[int, ...]
    axes: tuple[int, ...]
    scalar_axes: bool
    keep_dims: bool
    specials: bool  # NaN and ±inf (floats), the type's extremes (integers)

    @property
    def reduced(self) -> tuple[int, ...]:
        return tuple(sorted({axis % len(self.shape) for axis in self.axes}))

    @property
    def order_known(self) -> bool:
        return scan_run(self.shape, self.reduced) is not None

    def describe(self) -> str:
        axes = str(self.axes[0]) if self.scalar_axes else str(list(self.axes))
        return (
            f"#{self.index} {self.op} {self.element_type} {list(self.shape)} axes={axes} "
            f"keep_dims={str(self.keep_dims).lower()}" + (" specials" if self.specials else "")
        )


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}:{index}")
    op = OPS[index % len(OPS)]
    element_type = "boolean"
    if not op.startswith("ReduceLogical"):
        element_type = rng.choices(list(ELEMENT_TYPES), list(ELEMENT_TYPES.values()))[0]
    rank = rng.choices((1, 2, 3, 4, 5), (10, 25, 25, 30, 10))[0]
    shape = tuple(rng.choice((1, 2, 3, 5)) for _ in range(rank - 1))
    shape += (rng.choice((1, 3, 8, 16, 17, 33, 70)),)
    keep_dims = rng.random() < 0.5
    count = rng.choices(range(rank + 1), [1 if keep_dims else 0] + [4] * rank)[0]
    axes = [axis - rank if rng.random() < 0.3 else axis for axis in rng.sample(range(rank), count)]
    if axes and rng.random() < 0.1:
        axes.append(axes[0])
    scalar = len(axes) == 1 and rng.random() < 0.3
    specials = rng.random() < 0.3
    return Config(index, op, element_type, shape, tuple(axes), scalar, keep_dims, specials)


def random_input(config: Config) -> NDArray[Any]:
    rng = np.random.default_rng(zlib.crc32(f"{SEED}:{config.index}".encode()))
    if config.element_type == "boolean":
        return rng.random(config.shape) < (0.9 if config.specials else 0.5)
    dtype = NUMPY_TYPES[config.element_type]
    if config.element_type in EXTREMES:
        low, high = EXTREMES[config.element_type] if config.specials else (-20, 20)
        low = max(low, 0) if config.element_type == "u8" else low
        return rng.integers(low, high, size=config.shape, endpoint=True).astype(dtype)
    values = rng.standard_normal(config.shape) * np.exp(rng.standard_normal(config.shape) * 3)
    if config.specials:
        spots = rng.random(config.shape)
        values[spots < 0.05] = np.nan
        values[(spots >= 0.05) & (spots < 0.08)] = np.inf
        values[(spots >= 0.08) & (spots < 0.11)] = -np.inf
    return values.astype(dtype)


def build(config: Config, slot: int) -> tuple[Any, list[Any]]:
    data = slot_input(list(config.shape), config.element_type, slot)
    if config.axes:
        axes = opset1.constant(np.array(config.axes[0] if config.scalar_axes else config.axes))
    else:
        axes = ov.op.Constant(ov.Type(np.int64), ov.Shape([0]), [])
    node = BUILDERS[config.op](data, axes, config.keep_dims)
    return data, [named_result(node.output(0), f"out{slot}")]


def within_sum_bound(
    config: Config, x: NDArray[Any], ours: NDArray[Any], theirs: NDArray[Any]
) -> bool:
    """Two f32 sums of the same n terms in different orders: each within (n-1)·2**-24·Σ|x|
    of the exact sum, so within twice that of each other (ReduceL2: the roots, relatively)."""
    axes = config.reduced
    count = int(np.prod([config.shape[axis] for axis in axes]))
    magnitude = np.abs(x.astype(np.float64))
    if config.op == "ReduceL2":
        magnitude = magnitude * magnitude
    total = np.sum(magnitude, axis=axes, keepdims=True).reshape(ours.shape)
    a, b = ours.astype(np.float64), theirs.astype(np.float64)
    if config.op == "ReduceL2":
        a, b, total = a * a, b * b, total * (1 + 4 * ULP)
    finite = np.isfinite(a) & np.isfinite(b)
    limit = 2 * count * ULP * total
    with np.errstate(invalid="ignore"):
        agree = np.where(finite, np.abs(a - b) <= limit, (a == b) | (np.isnan(a) & np.isnan(b)))
    return bool(np.all(agree))


def compare(config: Config, slot: int, ours: Arrays, theirs: Arrays) -> str:
    actual, expected = ours[f"out{slot}"], theirs[f"out{slot}"]
    one_value = config.op in ("ReduceMin", "ReduceLogicalAnd", "ReduceLogicalOr")
    small_integers = config.element_type in EXTREMES and not config.specials
    if config.order_known or (one_value and not config.specials) or small_integers:
        # without NaN a minimum is one value in any order; integers of ±20 sum exactly
        exact = same_values(actual, expected, None)
        return "" if exact else describe_difference(actual, expected)
    if config.op == "ReduceMin" or config.element_type not in ("f32", "f64"):
        return ""  # no bound: a NaN's place, an f16 rounding or an integer hold decides
    x = random_input(config)
    if actual.shape == expected.shape and within_sum_bound(config, x, actual, expected):
        return ""
    return describe_difference(actual, expected)


outcomes = batched_outcomes(random_config, CONFIG_COUNT, build, random_input, compare)


def test_generator_covers_the_space(outcomes: list[Outcome[Config]]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        config = outcome.config
        counts.update({config.op, config.element_type})
        counts["lanes"] += bool(scan_run(config.shape, config.reduced))
        counts["order unknown"] += not config.order_known
        counts["integer extremes"] += config.specials and config.element_type in EXTREMES
    assert all(counts[op] >= 80 for op in BUILDERS), counts
    unknown = 50 if lanes() == LANES else 0  # with AVX2 scan_run knows every order
    assert counts["lanes"] >= 70 and counts["order unknown"] >= unknown, counts
    assert counts["integer extremes"] >= 30, counts


def test_irpool_matches_the_cpu_plugin(outcomes: list[Outcome[Config]]) -> None:
    assert not failures(outcomes, ov.__version__)
