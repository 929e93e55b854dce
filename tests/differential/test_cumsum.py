"""Live differential test: CumSum-3 run by irpool and by OpenVINO's CPU plugin.

Configuration #n (`random_config(n)`): an element type (floats, integers of every width,
boolean), a shape of rank 0-4, a scalar i32 or i64 axis Const (negative too), `exclusive`
and `reverse`, inputs holding NaN, ±inf, ±0, huge values and each integer type's extremes
(sums that wrap). Every output equal bit for bit. A second test checks the axes the CPU
refuses to compile are the ones irpool reports (IR636).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from irpool.rules import CPU_CUMSUM_AXIS
from tests.differential.harness import NUMPY
from tests.differential.harness import random_input as seeded_values
from tests.differential.oracle_batch import (
    CPU_CONFIG,
    Outcome,
    batched_outcomes,
    failures,
    named_result,
    slot_input,
)

ov = pytest.importorskip("openvino")
opset1 = pytest.importorskip("openvino.opset1")
opset3 = pytest.importorskip("openvino.opset3")

pytestmark = pytest.mark.oracle

CONFIG_COUNT = 480
SEED = "irpool-differential-cumsum-1"
ELEMENT_TYPES = {"f32": 40, "f16": 10, "f64": 6, "i32": 10, "i64": 8, "i8": 8, "u8": 6,
                 "i16": 4, "u16": 3, "u32": 3, "boolean": 4}  # fmt: skip


@dataclass(frozen=True)
class Config:
    index: int
    element_type: str
    shape: tuple[int, ...]
    axis: int
    axis_type: str
    exclusive: bool
    reverse: bool

    def describe(self) -> str:
        return (
            f"#{self.index} CumSum {self.element_type} {list(self.shape)} axis={self.axis} "
            f"({self.axis_type}) exclusive={self.exclusive} reverse={self.reverse}"
        )


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}:{index}")
    element_type = rng.choices(list(ELEMENT_TYPES), list(ELEMENT_TYPES.values()))[0]
    rank = rng.choices((0, 1, 2, 3, 4), (5, 20, 30, 30, 15))[0]
    shape = tuple(rng.choice((1, 2, 3, 5, 8, 17, 40)) for _ in range(rank))
    span = max(rank, 1)
    axis = rng.randint(-span, span - 1)
    flags = rng.random() < 0.5, rng.random() < 0.5
    return Config(index, element_type, shape, axis, rng.choice(("i32", "i64")), *flags)


def random_input(config: Config) -> NDArray[Any]:
    if config.element_type == "boolean":
        return np.random.default_rng(config.index).random(config.shape) < 0.7
    return seeded_values(config.index, config.element_type, config.shape)


def build(config: Config, slot: int) -> tuple[Any, list[Any]]:
    data = slot_input(list(config.shape), config.element_type, slot)
    axis = opset1.constant(np.array(config.axis, NUMPY[config.axis_type]))
    node = opset3.cumsum(data, axis, config.exclusive, config.reverse)
    assert node.get_type_name() == "CumSum"
    return data, [named_result(node.output(0), f"out{slot}")]


outcomes = batched_outcomes(random_config, CONFIG_COUNT, build, random_input)


def test_generator_covers_the_space(outcomes: list[Outcome[Config]]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        config = outcome.config
        counts.update({config.element_type, f"rank {len(config.shape)}"})
        counts["exclusive reverse"] += config.exclusive and config.reverse
        counts["negative axis"] += config.axis < 0
    assert all(counts[kind] >= 10 for kind in ELEMENT_TYPES), counts
    assert counts["rank 0"] >= 10 and counts["exclusive reverse"] >= 80, counts
    assert counts["negative axis"] >= 80, counts


def test_irpool_matches_the_cpu_plugin(outcomes: list[Outcome[Config]]) -> None:
    assert not failures(outcomes, ov.__version__)


@pytest.mark.parametrize(
    ("axis", "refused"),
    [([1], "compile"), ([[1]], "compile"), (2, "infer"), (5, "infer"), (-3, "infer"), (-1, None)],
)
def test_axes_the_cpu_refuses_are_reported(tmp_path: Path, axis: Any, refused: str | None) -> None:
    """IR636: a non-scalar axis fails to compile; one out of range fails at inference on two
    threads and gives memory never written on one."""
    data = opset1.parameter([2, 3], np.float32, name="in0")
    node = opset3.cumsum(data, opset1.constant(np.array(axis, np.int64)))
    path = tmp_path / "cumsum.xml"
    ov.save_model(ov.Model([opset1.result(node)], [data]), path)
    codes = {d.code for d in irpool.load(path).validate()}
    assert codes == ({CPU_CUMSUM_AXIS} if refused else set())
    core = ov.Core()
    model = core.read_model(path)
    if refused == "compile":
        with pytest.raises(RuntimeError, match="non scalar rank"):
            core.compile_model(model, "CPU", CPU_CONFIG)
        return
    ones = np.ones((2, 3), np.float32)
    for threads in (1, 2):
        compiled = core.compile_model(model, "CPU", CPU_CONFIG | {"INFERENCE_NUM_THREADS": threads})
        try:
            (out,) = compiled.create_infer_request().infer({"in0": ones}).values()
        except RuntimeError:
            assert refused == "infer" and threads == 2
            continue
        assert (refused is None) == np.array_equal(out, np.cumsum(ones, axis=-1)), (threads, out)
