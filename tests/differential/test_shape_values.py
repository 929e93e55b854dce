"""Live differential test: values flowing through shape subgraphs, against OpenVINO.

Graph #n (`build(n)`) is what converters write for `view`, `flatten`, channel shuffle and
chunk: a Parameter of rank 1 to 5 (static, dynamic and interval dims), its ShapeOf (i64 or
i32), pieces of it picked by Gather, multiplied, divided and split (Divide by a Const, with a
Floor sometimes), moved by Add or Mod, Unsqueezed, repeated by Broadcast-3 (numpy,
bidirectional, explicit), written as Consts (a -1, a 0), joined by
Concat (sometimes through a Convert), and a Reshape of the Parameter to that pattern. OpenVINO
evaluates bounds, not symbols, so the Reshape keeps the dims the pattern's bounds say.

Shapes: the graph is built with OpenVINO's Python API and saved; `read_model` of the file is the
oracle. irpool must infer every layer's output as OpenVINO does and report no error (or, when
OpenVINO cannot build the Reshape, must refuse the file too). Runs: at a concrete input shape
within the Parameter's dims, when the CPU plugin runs the graph, irpool's output must equal
it bit for bit. IRPOOL_TEST_SCALE scales the number of graphs (default 300).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from tests.differential.harness import split_compiles
from tests.differential.shape_graphs import (
    Case,
    assert_shapes_match,
    build,
    cpu_runs,
    describe,
    i64,
)
from tests.differential.single_layer import CPU_CONFIG
from tests.scale import examples

ov = pytest.importorskip("openvino")
from openvino import opset1, opset3  # noqa: E402

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

COUNT = examples(300)


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> list[Case]:
    directory = tmp_path_factory.mktemp("shape_values")
    return [build(i, directory) for i in range(COUNT)]


def test_generator_covers_the_space(cases: list[Case]) -> None:
    counts: Counter[str] = Counter(tag for case in cases if case.path for tag in case.tags)
    counts["built"] = sum(case.path is not None for case in cases)
    counts["dynamic"] = sum(
        case.path is not None and any(d.low != d.high for d in case.dims) for case in cases
    )
    minimum = {"built": COUNT * 3 // 4, "dynamic": COUNT // 2}
    minimum |= {tag: COUNT // 20 for tag in ("-1", "product", "split", "floor", "moved", "zero")}
    minimum |= {f"broadcast {m}": COUNT // 30 for m in ("numpy", "bidirectional", "explicit")}
    assert {k: counts[k] for k, v in minimum.items() if counts[k] < v} == {}, counts


def test_shapes_match_openvino(cases: list[Case]) -> None:
    assert_shapes_match(cases)


BATCH_SIZE = 16
Asked = tuple[Case, NDArray[np.float32], str, NDArray[Any]]  # a graph, its input, irpool's output


def test_runs_match_openvino(cases: list[Case]) -> None:
    """irpool first: where it refuses the shape (a pattern that does not hold the input,
    which the CPU plugin runs reading past it, or dies of), the CPU is not asked. The CPU
    runs the others `BATCH_SIZE` graphs to a model (`cpu_runs`), split on a refusal
    (`split_compiles`)."""
    core = ov.Core()
    failing: list[str] = []
    asked: list[Asked] = []
    for case in cases:
        if case.path is None:
            continue
        rng = np.random.default_rng(case.index)
        shape = [d.pick(random.Random(case.index)) for d in case.dims]
        x = rng.normal(size=shape).astype(np.float32)
        try:
            ((name, ours),) = irpool.load(case.path).run({0: x}).items()
        except irpool.IRError:
            continue
        asked.append((case, x, name, ours))

    def run_on_cpu(batch: list[Asked]) -> list[tuple[Any, set[str]]]:
        return cpu_runs(core, [(case, x) for case, x, _, _ in batch])

    for start in range(0, len(asked), BATCH_SIZE):
        for batch, runs in split_compiles(asked[start : start + BATCH_SIZE], run_on_cpu):
            if isinstance(runs, RuntimeError):
                failing.append(f"{describe(batch[0][0])}: the CPU refuses: {runs}")
                continue
            for (case, x, name, ours), (outputs, _) in zip(batch, runs, strict=True):
                theirs = outputs[name]
                if ours.shape != theirs.shape or ours.tobytes() != theirs.tobytes():
                    failing.append(
                        f"{describe(case)} at {list(x.shape)}: {ours.shape}, CPU {theirs.shape}"
                    )
    assert len(asked) >= COUNT // 3, len(asked)
    assert not failing, f"{len(failing)} of {len(asked)} runs differ:\n" + "\n".join(failing[:12])


@pytest.mark.parametrize("python_division", [True, False])
def test_shape_of_a_static_shape_folds_as_openvino(python_division: bool, tmp_path: Path) -> None:
    """OpenVINO folds ShapeOf of a static shape, and the Divide after it with its reference
    (m_pythondiv floors: 7 / -2 is -4), not with the CPU kernel (which truncates): so does a
    planned irpool run."""
    parameter = opset1.parameter([7, 5, 1], np.float32)
    divide = opset1.divide(opset3.shape_of(parameter), i64([-2, 2, -3]))
    divide.set_attribute("m_pythondiv", python_division)
    model = ov.Model([divide], [parameter])
    path = tmp_path / "folded.xml"
    ov.save_model(model, path, compress_to_fp16=False)
    x = np.zeros((7, 5, 1), np.float32)
    theirs = ov.Core().compile_model(path, "CPU", CPU_CONFIG)([x])[0]
    ours = next(iter(irpool.load(path).run({0: x}).values()))
    assert ours.tolist() == theirs.tolist() == ([-4, 2, -1] if python_division else [-3, 2, 0])
