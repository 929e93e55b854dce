"""Live differential test: integer chains of elementwise ops, which the CPU plugin fuses.

Graph #n (`build(n)`) chains 2 to 5 ops drawn from FloorMod, Mod, Power, Add, Subtract,
Multiply, Divide, Minimum, Maximum and SquaredDifference (and a last comparison, sometimes)
over i32 or i64 Parameters
holding zeros, negatives and small values: each op reads the previous one at input 0 or 1 and a
Parameter or Const (sometimes one the chain already reads), and some intermediates are also
outputs. The CPU fuses FloorMod, Mod and Power chains into one f32 computation that carries a
division by 0's NaN and a Power's fraction
(docs/graph-rewrites.md#eltwise-fusion-and-a-division-by-a-computed-0); irpool's outputs must equal
the CPU's bit for bit. IRPOOL_TEST_SCALE scales the number of graphs (default 300).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irpool
from tests.differential.single_layer import CPU_CONFIG
from tests.scale import examples

ov = pytest.importorskip("openvino")
from openvino import opset1  # noqa: E402

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-eltwise-fusion-1"
COUNT = examples(300)
LENGTH = 8
ARITHMETIC = {
    "FloorMod": opset1.floor_mod,
    "Mod": opset1.mod,
    "Power": opset1.power,
    "Add": opset1.add,
    "Subtract": opset1.subtract,
    "Multiply": opset1.multiply,
    "Divide": opset1.divide,
    "Minimum": opset1.minimum,
    "Maximum": opset1.maximum,
    "SquaredDifference": opset1.squared_difference,
}
CARRIED = ("FloorMod", "Mod", "Power")
OTHERS = ("Add", "Subtract", "Multiply", "Divide", "Minimum", "Maximum", "SquaredDifference")
COMPARISONS = {
    "Greater": opset1.greater,
    "Equal": opset1.equal,
    "NotEqual": opset1.not_equal,
    "GreaterEqual": opset1.greater_equal,
    "Less": opset1.less,
    "LessEqual": opset1.less_equal,
}


def build(index: int, directory: Path) -> tuple[Path, list[np.ndarray], list[str]]:
    rng = random.Random(f"{SEED}-{index}")
    dtype = rng.choice((np.int32, np.int32, np.int64))
    count = rng.randint(2, 4)
    parameters = [opset1.parameter([LENGTH], dtype) for _ in range(count)]
    values = [
        np.array([rng.choice((0, 0, 1, 2, 3, -2, -3, 5, 7, -7)) for _ in range(LENGTH)], dtype)
        for _ in parameters
    ]
    tags: list[str] = [np.dtype(dtype).name]
    # Exponents of at most 1 keep every power exact in f32 (the CPU's pow is within 1 ulp of
    # irpool's where a result passes 2**24: tests/differential/test_arithmetic.py).
    exponents = opset1.constant(np.array([rng.choice((-1, 0, 1)) for _ in range(LENGTH)], dtype))

    def operand(chain_reads: list[Any]) -> Any:
        roll = rng.random()
        if roll < 0.2 and chain_reads:
            tags.append("shared input")
            return rng.choice(chain_reads)
        if roll < 0.4:  # 0 and 1: OpenVINO removes x - 0 and x * 1, joining chains
            value = rng.choice((0, 1, 2, 3, -2, 7))
            tags.append(f"by a Const {value}")
            return opset1.constant(np.array([value], dtype))
        return rng.choice(parameters)

    first, second = rng.sample(parameters, 2)
    previous = rng.choice(CARRIED)
    second = exponents if previous == "Power" else second
    current = ARITHMETIC[previous](first, second)
    reads, outputs = [first, second], []
    for _ in range(rng.randint(1, 4)):
        name = rng.choice((*CARRIED, *CARRIED, *OTHERS))
        other = exponents if name == "Power" else operand(reads)
        if rng.random() < 0.15:
            outputs.append(current)  # a second reader: no fusion
            tags.append("read twice")
        port = 0 if rng.random() < 0.75 else 1
        tags.append(f"{previous}->{name}@{port}")
        tags.append(f"{name}@{port}")
        pair = (current, other) if port == 0 else (other, current)
        current, previous = ARITHMETIC[name](*pair), name
        reads.append(other)
    if rng.random() < 0.4:
        name = rng.choice(tuple(COMPARISONS))
        port = rng.randrange(2)
        tags.append(f"{previous}->{name}@{port}")
        tags.append(f"{name}@{port}")
        other = operand(reads)
        current = COMPARISONS[name](*((current, other) if port == 0 else (other, current)))
    model = ov.Model([current, *outputs], parameters)
    path = directory / f"chain{index}.xml"
    ov.save_model(model, path, compress_to_fp16=False)
    return path, values, tags


@pytest.fixture(scope="module")
def graphs(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Path, list[Any], list[str]]]:
    directory = tmp_path_factory.mktemp("fusion")
    return [build(i, directory) for i in range(COUNT)]


def test_generator_covers_the_space(graphs: list[tuple[Path, list[Any], list[str]]]) -> None:
    counts = Counter(tag for _, _, tags in graphs for tag in set(tags))
    wanted = ["FloorMod->FloorMod@0", "Mod->FloorMod@0", "FloorMod->Power@0", "Power->Mod@0"]
    wanted += ["FloorMod->Add@0", "Equal@1", "shared input", "read twice", "int64"]
    wanted += ["by a Const 0", "by a Const 1", "Minimum@1", "Maximum@0"]
    assert {tag: counts[tag] for tag in wanted if counts[tag] < COUNT // 100} == {}, counts


def test_runs_match_the_cpu(graphs: list[tuple[Path, list[Any], list[str]]]) -> None:
    core = ov.Core()
    failing = []
    for path, values, tags in graphs:
        ours = irpool.load(path).run(dict(enumerate(values)))
        theirs = core.compile_model(path, "CPU", CPU_CONFIG)(values)
        for name, mine in ours.items():
            expected = theirs[name]
            if mine.dtype != expected.dtype or not np.array_equal(mine, expected):
                failing.append(
                    f"{path.name} {tags}: {name} {mine.tolist()} CPU {expected.tolist()}"
                )
    assert not failing, f"{len(failing)} outputs differ:\n" + "\n".join(failing[:10])


def _by(op: Any, value: int, dtype: Any) -> Any:
    return lambda x: op(x, opset1.constant(np.array([value], dtype)))


REMOVED = {
    # name: (dtype, the ops after the Parameter, innermost first); OpenVINO removes x / 1,
    # x + 0 and the like, except where a Result would then read the Parameter itself
    "x / 1": (np.int32, [_by(opset1.divide, 1, np.int32)]),
    "x + 0 (f32)": (np.float32, [_by(opset1.add, 0, np.float32)]),
    "(x + 3) / 1": (np.int32, [_by(opset1.add, 3, np.int32), _by(opset1.divide, 1, np.int32)]),
    "(x / 1) * 2": (np.int32, [_by(opset1.divide, 1, np.int32), _by(opset1.multiply, 2, np.int32)]),
    "((x * -1) + 0) * 2 (f32)": (
        np.float32,
        [
            _by(opset1.multiply, -1, np.float32),
            _by(opset1.add, 0, np.float32),
            _by(opset1.multiply, 2, np.float32),
        ],
    ),
    "((x + 3) - 0) / 1": (
        np.int32,
        [
            _by(opset1.add, 3, np.int32),
            _by(opset1.subtract, 0, np.int32),
            _by(opset1.divide, 1, np.int32),
        ],
    ),
}


@pytest.mark.parametrize("name", list(REMOVED))
def test_removed_ops_match_the_cpu(name: str, tmp_path: Path) -> None:
    dtype, ops = REMOVED[name]
    parameter = opset1.parameter([4], dtype)
    node = parameter
    for op in ops:
        node = op(node)
    path = tmp_path / "removed.xml"
    ov.save_model(ov.Model([node], [parameter]), path, compress_to_fp16=False)
    values = [2**31 - 4, -(2**31), 16777214, 5] if dtype == np.int32 else [-0.0, 1.0, np.nan, 3]
    x = np.array(values, dtype)
    theirs = ov.Core().compile_model(path, "CPU", CPU_CONFIG)([x])[0]
    mine = next(iter(irpool.load(path).run({0: x}).values()))
    assert mine.tobytes() == theirs.tobytes(), (mine, theirs)
