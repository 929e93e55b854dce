"""Live differential test: Einsum-7 against OpenVINO's CPU plugin.

Configuration #n (`random_config(n)`): an equation transformer exporters write (attention
scores and context, batched matmuls, projections, outer products, transposes, traces, sums,
ellipses; broadcast dims of 1 too) on random shapes, f32, f16, f64 or i32 inputs. Floats are
compared within the bound docs/ops/Einsum.md states (the CPU sums in its BLAS order:
2·n·2**-24·Σ|products|, n the products summed; f16 and the rounding of its result added),
integers exactly. A second test checks shapes with dynamic dims and intervals against
`read_model`.
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
    Arrays,
    Outcome,
    batched_outcomes,
    describe_difference,
    failures,
    named_result,
    slot_input,
)

ov = pytest.importorskip("openvino")
opset1 = pytest.importorskip("openvino.opset1")
opset7 = pytest.importorskip("openvino.opset7")

pytestmark = pytest.mark.oracle

CONFIG_COUNT = 360
SEED = "irpool-differential-einsum-1"
BATCH_SIZE = 30
EQUATIONS = (
    "bhqd,bhkd->bhqk", "bhqk,bhkd->bhqd", "bij,bjk->bik", "bld,dk->blk", "ij,jk->ik",
    "i,j->ij", "ij->ji", "ii->i", "ij->", "ij,j->i", "bi,bi->b", "...ij,...jk->...ik",
    "abc->cab", "ij,jk", "bnd,nd->bn",
)  # fmt: skip
TYPES = ("f32", "f32", "f32", "f16", "f64", "i32")


@dataclass(frozen=True)
class Config:
    index: int
    equation: str
    element_type: str
    shapes: tuple[tuple[int, ...], ...]

    def describe(self) -> str:
        return f"#{self.index} Einsum {self.equation!r} {self.element_type} {list(self.shapes)}"


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}:{index}")
    equation = EQUATIONS[index % len(EQUATIONS)]
    sizes = {label: rng.choice((1, 2, 3, 5, 8, 17, 64)) for label in "abcdhijklnq"}
    lhs = equation.split("->")[0]
    ellipsis = tuple(rng.randint(1, 4) for _ in range(rng.randint(0, 2)))
    shapes = []
    for subscript in lhs.split(","):
        shape: list[int] = []
        for part in subscript.split("..."):
            shape += [sizes[label] for label in part]
            shape += list(ellipsis) if part != subscript.split("...")[-1] else []
        if rng.random() < 0.1 and shape and len(set(subscript)) == len(subscript):  # from 1
            shape[rng.randrange(len(shape))] = 1
        shapes.append(tuple(shape))
    return Config(index, equation, rng.choice(TYPES), tuple(shapes))


def _inputs(config: Config) -> list[NDArray[Any]]:
    rng = np.random.default_rng(zlib.crc32(f"{SEED}:{config.index}".encode()))
    dtype = NUMPY[config.element_type]
    if config.element_type == "i32":
        return [rng.integers(-100, 100, size=shape).astype(dtype) for shape in config.shapes]
    return [(rng.standard_normal(shape) * 3).astype(dtype) for shape in config.shapes]


def random_input(config: Config) -> NDArray[Any]:
    return _inputs(config)[0]


def build(config: Config, slot: int) -> tuple[Any, list[Any]]:
    first = slot_input(list(config.shapes[0]), config.element_type, slot)
    rest = [opset1.constant(x) for x in _inputs(config)[1:]]
    node = opset7.einsum([first, *rest], config.equation)
    assert node.get_type_name() == "Einsum"
    return first, [named_result(node.output(0), f"out{slot}")]


def within_bound(config: Config, ours: NDArray[Any], theirs: NDArray[Any]) -> bool:
    inputs = [np.abs(x.astype(np.float64)) for x in _inputs(config)]
    magnitude = np.einsum(config.equation, *inputs)
    exact = np.einsum(config.equation, *[np.ones_like(x) for x in inputs])  # products summed
    f16 = config.element_type == "f16"
    unit = 2.0**-11 if f16 else 2.0**-24
    limit = 2 * exact * 2.0**-24 * magnitude + unit * np.abs(theirs.astype(np.float64))
    return bool(np.all(np.abs(ours.astype(np.float64) - theirs.astype(np.float64)) <= limit))


def compare(config: Config, slot: int, ours: Arrays, theirs: Arrays) -> str:
    actual, expected = ours[f"out{slot}"], theirs[f"out{slot}"]
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return f"irpool {actual.shape} {actual.dtype}, cpu {expected.shape} {expected.dtype}"
    exact = config.element_type == "i32"
    good = np.array_equal(actual, expected) if exact else within_bound(config, actual, expected)
    return "" if good else describe_difference(actual, expected)


outcomes = batched_outcomes(random_config, CONFIG_COUNT, build, random_input, compare, BATCH_SIZE)


def test_generator_covers_the_space(outcomes: list[Outcome[Config]]) -> None:
    counts: Counter[str] = Counter(outcome.config.equation for outcome in outcomes)
    assert all(counts[equation] >= 20 for equation in EQUATIONS), counts


def test_irpool_matches_the_cpu_plugin(outcomes: list[Outcome[Config]]) -> None:
    assert not failures(outcomes, ov.__version__)


@pytest.mark.parametrize(
    ("equation", "shapes"),
    [
        ("bhqd,bhkd->bhqk", ["?,4,5,8", "?,4,?,8"]),
        ("ij,jk->ik", ["?,3", "3,2..5"]),
        ("bij,bjk->bik", ["1,2,3", "4,3,5"]),
        ("...ij,...jk->...ik", ["5,2,3", "1,3,4"]),
        ("ij,j->i", ["2,3", "1"]),
        ("...ij->ij", ["5,2,3"]),
        ("iJ->Ji", ["2,3"]),
    ],
)
def test_shapes_match_openvino(tmp_path: Path, equation: str, shapes: list[str]) -> None:
    from openvino import Dimension, PartialShape

    def partial(text: str) -> Any:
        dims = []
        for item in text.split(","):
            low, dots, high = item.partition("..")
            dims.append(
                -1 if item == "?" else Dimension(int(low), int(high)) if dots else int(item)
            )
        return PartialShape(dims)

    inputs = [opset1.parameter(partial(s), np.float32, name=f"x{i}") for i, s in enumerate(shapes)]
    node = opset7.einsum(inputs, equation)
    node.output(0).set_names({"out"})
    path = tmp_path / "einsum.xml"
    ov.save_model(ov.Model([opset1.result(node)], inputs), path)
    theirs = str(ov.Core().read_model(path).output(0).get_partial_shape())
    loaded = irpool.load(path)
    layer = next(layer.id for layer in loaded.graph.layers.values() if layer.type == "Einsum")
    assert str(loaded.checked.outputs[layer][0].shape) == theirs
