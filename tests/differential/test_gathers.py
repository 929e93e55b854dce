"""Live differential test: GatherElements-6, GatherND-5 and GatherND-8 against OpenVINO.

Runs: configuration #n (`random_config(n)`) is one of the ops on data of a random type and
shape (ranks 1-4) with indices (i32 or i64, negative ones too, always in range: out of range
the CPU fails or reads other memory, and GatherND tuples of at least one index: of none the
CPU returns memory it never wrote, docs/ops/GatherND.md), batch_dims or axis; irpool's
output must equal the CPU plugin's bit for bit. Shapes: dynamic dims, intervals and dynamic
ranks built with OpenVINO's Python API, whose inferred shape irpool must infer from the saved
file.
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
from tests.differential.harness import random_input as seeded_values
from tests.differential.oracle_batch import (
    Outcome,
    batched_outcomes,
    failures,
    named_result,
    slot_input,
)

ov = pytest.importorskip("openvino")
opset1 = pytest.importorskip("openvino.opset1")
opset5 = pytest.importorskip("openvino.opset5")
opset6 = pytest.importorskip("openvino.opset6")
opset8 = pytest.importorskip("openvino.opset8")

pytestmark = pytest.mark.oracle

CONFIG_COUNT = 480
SEED = "irpool-differential-gathers-1"
OPS = ("GatherElements", "GatherND", "GatherND-5")
TYPES = ("f32", "f32", "f16", "f64", "i32", "i64", "i8", "u8", "boolean")


@dataclass(frozen=True)
class Config:
    index: int
    op: str
    element_type: str
    shape: tuple[int, ...]
    indices_shape: tuple[int, ...]
    indices_type: str
    attribute: int  # axis or batch_dims

    def describe(self) -> str:
        return (
            f"#{self.index} {self.op} {self.element_type} {list(self.shape)} indices "
            f"{self.indices_type} {list(self.indices_shape)} attribute {self.attribute}"
        )


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}:{index}")
    op = OPS[index % len(OPS)]
    rank = rng.randint(1, 4)
    shape = tuple(rng.randint(1, 5) for _ in range(rank))
    kind = rng.choice(("i32", "i64"))
    element_type = rng.choice(TYPES)
    if op == "GatherElements":
        axis = rng.randint(-rank, rank - 1)
        indices = tuple(rng.randint(1, 6) if a == axis % rank else d for a, d in enumerate(shape))
        return Config(index, op, element_type, shape, indices, kind, axis)
    batch_dims = rng.randint(0, rank - 1)
    depth = rng.randint(1, rank - batch_dims)  # no index: the CPU returns unwritten memory
    middle = tuple(rng.randint(1, 4) for _ in range(rng.randint(0, 2)))
    indices = (*shape[:batch_dims], *middle, depth)
    return Config(index, op, element_type, shape, indices, kind, batch_dims)


def _indices(config: Config) -> NDArray[Any]:
    rng = np.random.default_rng(zlib.crc32(f"{SEED}:{config.index}".encode()))
    if config.op == "GatherElements":
        length = config.shape[config.attribute % len(config.shape)]
        picks = rng.integers(-length, length, size=config.indices_shape)
    else:
        depth = config.indices_shape[-1]
        spans = np.array(config.shape[config.attribute : config.attribute + depth])
        unit = rng.random(config.indices_shape)
        picks = (
            np.floor(unit * 2 * spans - spans).astype(np.int64) if depth else unit.astype(np.int64)
        )
    return picks.astype(NUMPY[config.indices_type])


def random_input(config: Config) -> NDArray[Any]:
    if config.element_type == "boolean":
        return np.random.default_rng(config.index).random(config.shape) < 0.5
    return seeded_values(config.index, config.element_type, config.shape)


def build(config: Config, slot: int) -> tuple[Any, list[Any]]:
    data = slot_input(list(config.shape), config.element_type, slot)
    picks = _indices(config)
    indices = ov.op.Constant(
        ov.Type(picks.dtype), ov.Shape(list(picks.shape)), picks.ravel().tolist()
    )
    if config.op == "GatherElements":
        node = opset6.gather_elements(data, indices, config.attribute)
    elif config.op == "GatherND":
        node = opset8.gather_nd(data, indices, config.attribute)
    else:
        node = opset5.gather_nd(data, indices, config.attribute)
    return data, [named_result(node.output(0), f"out{slot}")]


outcomes = batched_outcomes(random_config, CONFIG_COUNT, build, random_input)


def test_generator_covers_the_space(outcomes: list[Outcome[Config]]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        config = outcome.config
        counts.update({config.op, config.element_type})
        counts["batch_dims"] += config.op != "GatherElements" and config.attribute > 0
        counts["whole tuples"] += (
            config.op != "GatherElements"
            and config.indices_shape[-1] == len(config.shape) - config.attribute
        )
    assert all(counts[op] >= 150 for op in OPS) and counts["batch_dims"] >= 100, counts
    assert counts["whole tuples"] >= 50, counts


def test_irpool_matches_the_cpu_plugin(outcomes: list[Outcome[Config]]) -> None:
    assert not failures(outcomes, ov.__version__)


def _dims(text: str) -> Any:
    from openvino import Dimension, PartialShape

    if text == "...":
        return PartialShape.dynamic()
    dims = []
    for item in text.split(","):
        low, dots, high = item.partition("..")
        dims.append(Dimension(int(low or 0), int(high) if high else -1) if dots else int(item))
    return PartialShape(dims)


@pytest.mark.parametrize(
    ("op", "data", "indices", "attribute"),
    [
        ("GatherND", "-1,3,4", "2,-1", 0),
        ("GatherND", "1..3,3,4", "2,5,1", 1),
        ("GatherND", "2,3,4", "-1,5,1", 1),
        ("GatherND", "...", "2,1", 0),
        ("GatherND", "2,3,4", "5,0", 0),
        ("GatherND-5", "2,3,4", "2,3,5,1", 2),
        ("GatherND-5", "2..4,3,4", "-1,3,5,1", 2),
        ("GatherElements", "-1,3", "2,-1", 1),
        ("GatherElements", "1..4,3", "3..6,2", 1),
        ("GatherElements", "...", "2,3", 1),
        ("GatherElements", "2,3", "...", 0),
    ],
)
def test_shapes_match_openvino(
    tmp_path: Path, op: str, data: str, indices: str, attribute: int
) -> None:
    source = opset1.parameter(_dims(data), np.float32, name="data")
    picks = opset1.parameter(_dims(indices), np.int64, name="indices")
    if op == "GatherElements":
        node = opset6.gather_elements(source, picks, attribute)
    else:
        node = (opset8 if op == "GatherND" else opset5).gather_nd(source, picks, attribute)
    node.output(0).set_names({"out"})
    path = tmp_path / "gather.xml"
    ov.save_model(ov.Model([opset1.result(node)], [source, picks]), path)
    theirs = str(ov.Core().read_model(path).output(0).get_partial_shape())
    loaded = irpool.load(path)
    layer = next(
        layer.id for layer in loaded.graph.layers.values() if layer.type.startswith("Gather")
    )
    assert str(loaded.checked.outputs[layer][0].shape) == theirs
