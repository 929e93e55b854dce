"""The shape subgraphs of the shape-values differential (tests/differential/
test_shape_values.py), shared by Broadcast's and the bounds' differentials: graph #n
(`build(n)`) is built with OpenVINO's Python API and saved, `read_model` of the file is the
shape oracle, and the CPU plugin the run oracle."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from lxml import etree
from numpy.typing import NDArray

import irpool
from irpool.rules import RULES
from tests.differential.harness import CPU_CONFIG

ov = pytest.importorskip("openvino")
from openvino import opset1, opset3, opset8  # noqa: E402

SEED = "irpool-differential-shape-values-1"


@dataclass(frozen=True)
class Dim:
    low: int
    high: int | None  # None: unbounded

    def text(self) -> str:
        if self.low == self.high:
            return str(self.low)
        return "?" if self.high is None and self.low == 0 else f"{self.low}..{self.high or ''}"

    def openvino(self) -> Any:
        if self.low == self.high:
            return ov.Dimension(self.low)
        return ov.Dimension(self.low, -1 if self.high is None else self.high)

    def pick(self, rng: random.Random) -> int:
        return rng.randint(max(self.low, 1), self.high or max(self.low, 1) + 4)


def random_dim(rng: random.Random) -> Dim:
    roll = rng.random()
    if roll < 0.45:
        value = rng.choice((1, 2, 3, 4, 6, 8))
        return Dim(value, value)
    if roll < 0.7:
        return Dim(0, None)
    low = rng.randint(1, 6)
    return rng.choice((Dim(low, low + rng.randint(1, 6)), Dim(low, None), Dim(0, low + 2)))


def i64(values: list[int]) -> Any:
    return opset1.constant(np.array(values, np.int64))


class Graph:
    """The pattern's pieces built left to right over the input dims."""

    def __init__(self, rng: random.Random, dims: list[Dim]) -> None:
        self.rng = rng
        self.dims = dims
        self.parameter = opset1.parameter(ov.PartialShape([d.openvino() for d in dims]), np.float32)
        self.shape = opset3.shape_of(self.parameter, rng.choice(("i64", "i64", "i32")))
        if self.shape.get_output_element_type(0) != ov.Type.i64:
            self.shape = opset1.convert(self.shape, "i64")
        self.minus_one = False
        self.tags: list[str] = []

    def dim(self, index: int) -> Any:
        if self.rng.random() < 0.3:  # a scalar picked, then unsqueezed
            picked = opset8.gather(
                self.shape, opset1.constant(np.int64(index)), opset1.constant(np.int64(0))
            )
            return opset1.unsqueeze(picked, opset1.constant(np.int64(0)))
        return opset8.gather(self.shape, i64([index]), opset1.constant(np.int64(0)))

    def piece(self, position: int) -> tuple[list[Any], int]:
        """The nodes for the dims at `position` and how many dims they take."""
        rng, left = self.rng, len(self.dims) - position
        roll = rng.random()
        if roll < 0.1 and not self.minus_one:
            self.minus_one = True
            self.tags.append("-1")
            return [i64([-1])], rng.randint(1, left)
        if roll < 0.25 and left > 1:
            self.tags.append("product")
            return [opset1.multiply(self.dim(position), self.dim(position + 1))], 2
        if roll < 0.45:
            groups = rng.choice((2, 3))
            self.tags.append("split")
            part = opset1.divide(self.dim(position), i64([groups]))
            if rng.random() < 0.3:
                part = opset1.floor(part)
                self.tags.append("floor")
            return [i64([groups]), part], 1
        if roll < 0.55:
            self.tags.append("moved")
            moved = rng.choice(
                (opset1.add(self.dim(position), i64([rng.choice((0, 1))])),
                 opset1.mod(self.dim(position), i64([rng.randint(2, 9)])))
            )  # fmt: skip
            return [moved], 1
        if roll < 0.62:
            self.tags.append("zero")
            return [i64([0])], 1
        if roll < 0.72:
            return [self.broadcast(position)], 1
        return [self.dim(position)], 1

    def broadcast(self, position: int) -> Any:
        """A dim through Broadcast-3 (torch's expand of a size): bounds repeated."""
        mode = self.rng.choice(("NUMPY", "BIDIRECTIONAL", "EXPLICIT"))
        self.tags.append(f"broadcast {mode.lower()}")
        if mode == "EXPLICIT":
            return opset3.broadcast(self.dim(position), i64([1]), i64([0]), "EXPLICIT")
        picked = opset8.gather(
            self.shape, opset1.constant(np.int64(position)), opset1.constant(np.int64(0))
        )
        return opset3.broadcast(picked, i64([1]), broadcast_spec=mode)

    def build(self) -> Any:
        nodes: list[Any] = []
        position = 0
        while position < len(self.dims):
            made, taken = self.piece(position)
            nodes += made
            position += taken
        pattern = opset1.concat(nodes, 0)
        if self.rng.random() < 0.2:
            pattern = opset1.convert(pattern, "i32")
            self.tags.append("i32 pattern")
        special_zero = self.rng.random() < 0.6
        return opset1.reshape(self.parameter, pattern, special_zero)


@dataclass
class Case:
    index: int
    dims: list[Dim]
    path: Path | None  # None: OpenVINO refused to build the Reshape
    tags: list[str]
    refusal: str = ""


def build(index: int, directory: Path) -> Case:
    rng = random.Random(f"{SEED}-{index}")
    dims = [random_dim(rng) for _ in range(rng.randint(1, 5))]
    graph = Graph(rng, dims)
    try:
        reshape = graph.build()
    except RuntimeError as error:
        return Case(index, dims, None, graph.tags, str(error).strip().splitlines()[-1])
    for position, op in enumerate(ov.Model([reshape], [graph.parameter]).get_ordered_ops()):
        op.set_friendly_name(f"n{position}")
    model = ov.Model([reshape], [graph.parameter])
    path = directory / f"graph{index}.xml"
    ov.save_model(model, path, compress_to_fp16=False)
    return Case(index, dims, path, graph.tags)


def describe(case: Case) -> str:
    return f"#{case.index} [{','.join(d.text() for d in case.dims)}] {case.tags}"


def shape_problems(core: Any, case: Case) -> list[str]:
    assert case.path is not None
    theirs = core.read_model(case.path)
    loaded = irpool.load(case.path)
    errors = [d for d in loaded.validate() if d.severity.value == "error"]
    problems = [f"error {d.code}: {d.message}" for d in errors if not RULES[d.code].is_strictness]
    ids = {
        layer.get("name"): int(layer.get("id"))
        for layer in etree.parse(str(case.path)).getroot().iter("layer")
    }
    for op in theirs.get_ordered_ops():
        if op.get_type_name() == "Result":
            continue
        inferred = loaded.checked.outputs.get(ids[op.get_friendly_name()])
        for port, output in enumerate(op.outputs()):
            want = str(output.get_partial_shape())
            got = "nothing" if inferred is None else str(inferred[port].shape)
            if got != want:
                problems.append(f"{op.get_type_name()} {op.get_friendly_name()}: {got}, not {want}")
    return problems


def assert_shapes_match(cases: list[Case]) -> None:
    """Every built graph's layers inferred as `read_model` infers them, with no error."""
    core = ov.Core()
    failing = []
    for case in cases:
        if case.path is not None:
            problems = shape_problems(core, case)
            if problems:
                failing.append(f"{describe(case)}: {problems[:3]}")
    shown = "\n".join(failing[:12])
    assert not failing, f"{len(failing)} of {len(cases)} graphs disagree:\n{shown}"


def cpu_runs(core: Any, batch: list[tuple[Case, NDArray[Any]]]) -> list[tuple[Any, set[str]]]:
    """For each graph of `batch` (with its input), the CPU's outputs and the layers (named as
    in the graph's file) its compiled model holds as constants: the graphs compiled and run
    as one model (they share no node), each layer renamed `name@index` there."""
    parameters, results = [], []
    for case, _ in batch:
        assert case.path is not None
        model = core.read_model(case.path)
        for op in model.get_ordered_ops():
            op.set_friendly_name(f"{op.get_friendly_name()}@{case.index}")
        parameters += model.get_parameters()
        results += model.get_results()
    compiled = core.compile_model(ov.Model(results, parameters), "CPU", CPU_CONFIG)
    theirs = compiled([x for _, x in batch])
    constants = [
        name
        for op in compiled.get_runtime_model().get_ordered_ops()
        if op.get_rt_info()["layerType"].astype(str) == "Const"
        for name in op.get_rt_info()["originalLayersNames"].astype(str).split(",")
    ]
    return [
        (theirs, {n.rpartition("@")[0] for n in constants if n.endswith(f"@{case.index}")})
        for case, _ in batch
    ]
