"""Live differential test: bounds of shape arithmetic reaching Pad and Slice, against OpenVINO.

Graph #n (`build(n)`) is what torch's converter writes for swin_t's window padding and its
crops: a Parameter of rank 1 to 4 (static, dynamic and interval dims), its ShapeOf (i64 or
i32), dims picked by Gather and moved by FloorMod and Subtract (by Consts, negative ones
too, or by other dims: `(w - h % w) % w`, `h - 3`, `h % d`), joined by Concat with Consts into
the pads of a Pad of the Parameter and into the start and stop of a Slice of it. OpenVINO
evaluates the arithmetic's bounds at their corners
(docs/shape-values.md#bounds-of-floormod-and-subtract-the-corners), so the Pad and the
Slice keep the dims those bounds say.

Shapes: `read_model` of the saved graph is the oracle; irpool must infer every layer's output as
OpenVINO does and report no error. Runs: at a concrete input shape within the Parameter's dims,
irpool's outputs must equal the CPU plugin's bit for bit. IRPOOL_TEST_SCALE scales
the number of graphs (default 300).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from lxml import etree

import irpool
from tests.differential.shape_graphs import (
    Case,
    Dim,
    assert_shapes_match,
    cpu_runs,
    describe,
    random_dim,
)
from tests.scale import examples

ov = pytest.importorskip("openvino")
from openvino import opset1, opset3, opset8, opset12  # noqa: E402

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-shape-bounds-1"
COUNT = examples(300)


@dataclass
class Graph:
    """The pieces built over the input dims, in one integer type."""

    rng: random.Random
    dims: list[Dim]
    kind: str
    tags: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        shape = ov.PartialShape([d.openvino() for d in self.dims])
        self.parameter = opset1.parameter(shape, np.float32)
        self.shape = opset3.shape_of(self.parameter, self.kind)

    def const(self, values: list[int]) -> Any:
        return opset1.constant(np.array(values, {"i64": np.int64, "i32": np.int32}[self.kind]))

    def dim(self) -> Any:
        picked = self.rng.randrange(len(self.dims))
        return opset8.gather(self.shape, self.const([picked]), opset1.constant(np.int64(0)))

    def window(self) -> Any:
        """swin_t's pad: (w - h % w) % w, never negative."""
        w = self.const([self.rng.choice((2, 3, 4, 7))])
        self.tags.append("window")
        return opset1.floor_mod(opset1.subtract(w, opset1.floor_mod(self.dim(), w)), w)

    def moved(self, depth: int = 0) -> Any:
        """A dim moved by FloorMod or Subtract, any sign."""
        rng = self.rng
        if depth > 2 or rng.random() < 0.25:
            return self.dim()
        operand = self.moved(depth + 1)
        roll = rng.random()
        if roll < 0.15:
            self.tags.append("by a dim")
            other = self.dim()
            op = opset1.floor_mod if rng.random() < 0.5 else opset1.subtract
            return op(operand, other) if rng.random() < 0.5 else op(other, operand)
        constant = self.const([rng.choice((1, 2, 3, 5, 7, -2, -3))])
        if roll < 0.55:
            self.tags.append("floormod")
            if rng.random() < 0.3:
                return opset1.floor_mod(constant, operand)
            return opset1.floor_mod(operand, constant)
        self.tags.append("subtract")
        if rng.random() < 0.5:
            return opset1.subtract(constant, operand)
        return opset1.subtract(operand, constant)

    def pads(self) -> Any:
        pieces = []
        for _ in self.dims:
            roll = self.rng.random()
            pieces.append(self.const([0]) if roll < 0.4 else self.window())
        return opset1.concat(pieces, 0)

    def ends(self) -> Any:
        pieces = []
        for _ in self.dims:
            roll = self.rng.random()
            if roll < 0.3:
                pieces.append(self.const([self.rng.choice((0, 1, -1, -2, 3))]))
            else:
                pieces.append(self.moved())
        return opset1.concat(pieces, 0)

    def build(self) -> list[Any]:
        pad = opset12.pad(self.parameter, self.pads(), self.pads(), "constant")
        steps = [self.rng.choice((1, 1, 1, 2, -1)) for _ in self.dims]
        sliced = opset8.slice(self.parameter, self.ends(), self.ends(), self.const(steps))
        return [pad, sliced]


def build(index: int, directory: Path) -> Case:
    rng = random.Random(f"{SEED}-{index}")
    dims = [random_dim(rng) for _ in range(rng.randint(1, 4))]
    graph = Graph(rng, dims, rng.choice(("i64", "i64", "i32")))
    outputs = graph.build()
    model = ov.Model(outputs, [graph.parameter])
    for position, op in enumerate(model.get_ordered_ops()):
        op.set_friendly_name(f"n{position}")
    path = directory / f"graph{index}.xml"
    ov.save_model(model, path, compress_to_fp16=False)
    return Case(index, dims, path, [*graph.tags, graph.kind])


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> list[Case]:
    directory = tmp_path_factory.mktemp("shape_bounds")
    return [build(i, directory) for i in range(COUNT)]


def test_generator_covers_the_space(cases: list[Case]) -> None:
    counts: Counter[str] = Counter(tag for case in cases for tag in set(case.tags))
    counts["dynamic"] = sum(any(d.low != d.high for d in case.dims) for case in cases)
    minimum = {"dynamic": COUNT // 2, "i32": COUNT // 6, "by a dim": COUNT // 10}
    minimum |= {tag: COUNT // 2 for tag in ("window", "floormod", "subtract")}
    assert {k: counts[k] for k, v in minimum.items() if counts[k] < v} == {}, counts


def test_shapes_match_openvino(cases: list[Case]) -> None:
    assert_shapes_match(cases)


def divisors(path: Path) -> list[str]:
    """The tensors (as `run` names its intermediates: layer name, output index) that FloorMods
    divide by."""
    layers = {layer.get("id"): layer for layer in etree.parse(str(path)).getroot().iter("layer")}
    found = []
    for edge in etree.parse(str(path)).getroot().iter("edge"):
        if layers[edge.get("to-layer")].get("type") == "FloorMod" and edge.get("to-port") == "1":
            source = layers[edge.get("from-layer")]
            ports = [port.get("id") for port in source.iterfind("output/port")]
            found.append(f"{source.get('name')}:{ports.index(edge.get('from-port'))}")
    return found


BATCH_SIZE = 16  # the CPU compiles these dynamic graphs fastest some 16 to a model


def test_runs_match_openvino(cases: list[Case]) -> None:
    """irpool first: a run whose shapes leave the model's inferred dims (OpenVINO's bounds of a
    FloorMod are its corners', not always true; a Slice's interval may be empty) irpool
    refuses, and the CPU is not asked (it
    refuses them on two threads, returns empty garbage on one and corrupts its memory:
    docs/shape-values.md#bounds-of-floormod-and-subtract-the-corners). Every other run must equal
    the CPU's bit for bit; where bounds
    meet, the CPU computes with the value they give, true or not, and so must irpool. Runs
    that divide by a computed 0 are among them: the CPU carries the NaN through the chain of
    FloorMods it fuses, and so does irpool (irpool/cpu/eltwise_fusion.py). Left out and
    counted: runs of a graph in which the CPU holds as a constant a value irpool computes from
    the input's shape (not modelled: once in 1,000 graphs,
    docs/shape-values.md#runs-outside-the-inferred-dims). The CPU runs the graphs irpool
    runs `BATCH_SIZE` to a model (`cpu_runs`)."""
    core = ov.Core()
    failing, ran, refused, by_zero, folded = [], 0, 0, 0, 0
    asked = []
    for case in cases:
        assert case.path is not None
        rng = np.random.default_rng(case.index)
        shape = [d.pick(random.Random(case.index)) for d in case.dims]
        x = rng.normal(size=shape).astype(np.float32)
        try:
            ours, tensors = irpool.load(str(case.path)).run({0: x}, intermediates=True)
        except irpool.IRError as error:
            assert "inferred for the model, which the CPU plugin refuses" in str(error), error
            refused += 1
            continue
        computed = [tensors[d] for d in divisors(case.path) if d in tensors]  # not folded
        by_zero += any(not divisor.all() for divisor in computed)
        asked.append((case, x, ours, tensors))
    for start in range(0, len(asked), BATCH_SIZE):
        batch = asked[start : start + BATCH_SIZE]
        runs = cpu_runs(core, [(case, x) for case, x, _, _ in batch])
        for (case, x, ours, tensors), (theirs, constants) in zip(batch, runs, strict=True):
            if any(key.rsplit(":", 1)[0] in constants for key in tensors):
                folded += 1  # the CPU holds as a constant a layer irpool computes each run
                continue
            ran += 1
            for name, mine in ours.items():
                expected = theirs[name]
                if mine.shape != expected.shape or mine.tobytes() != expected.tobytes():
                    failing.append(
                        f"{describe(case)} at {list(x.shape)}: {name} {mine.shape}, "
                        f"CPU {expected.shape}"
                    )
    counts = (ran, refused, by_zero, folded)
    assert ran >= COUNT * 3 // 4 and refused >= 1 and by_zero >= 1, counts
    assert folded < COUNT // 100 + 1, counts
    assert not failing, f"{len(failing)} of {ran} runs differ:\n" + "\n".join(failing[:12])
