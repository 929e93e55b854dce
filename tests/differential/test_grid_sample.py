"""Live differential test: GridSample-9 run by irpool and by OpenVINO's CPU plugin.

Configuration #n (`random_config(n)`): every mode x padding_mode x align_corners, data of
every element type the plugin runs (floats, integers of 8 to 64 bits, boolean; values plain
or holding NaN, ±inf and huge ones) with H and W from 1 to 9, and a grid Const (f32 mostly,
f16 and f64 too) of points inside [-1, 1], just outside, far outside (±60), exactly on pixel
centres and edges (the ties of nearest's rounding) or NaN, ±inf and 1e30. Every output equal
bit for bit (docs/ops/GridSample.md#values). `read_model`'s output shapes and refusals are
checked on partial shapes, and IR633 against the plugin's unwritten output.
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
from irpool.element_types import element_type
from irpool.ops.base import ShapeError, TensorInfo
from irpool.ops.grid_sample import GridSample9
from irpool.rules import CPU_GRID_SAMPLE_EMPTY_DATA
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
from tests.ops.inferring import infer, parse

ov = pytest.importorskip("openvino")
opset1 = pytest.importorskip("openvino.opset1")
opset9 = pytest.importorskip("openvino.opset9")

pytestmark = pytest.mark.oracle

CONFIG_COUNT = 540
SEED = "irpool-differential-grid-sample-1"
MODES = ("bilinear", "bicubic", "nearest")
PADDINGS = ("zeros", "border", "reflection")
ELEMENT_TYPES = {"f32": 40, "f16": 10, "f64": 5, "i32": 8, "i64": 5, "i8": 5, "u8": 5,
                 "i16": 3, "u16": 3, "u32": 3, "boolean": 3}  # fmt: skip
POINTS = ("inside", "outside", "far", "ties", "special")


@dataclass(frozen=True)
class Config:
    index: int
    element_type: str
    data_shape: tuple[int, int, int, int]
    grid_shape: tuple[int, int, int, int]
    grid_type: str
    mode: str
    padding: str
    align_corners: bool
    points: str
    specials_in_data: bool

    def describe(self) -> str:
        return (
            f"#{self.index} GridSample {self.mode}/{self.padding} align={self.align_corners} "
            f"data {self.element_type}{list(self.data_shape)}"
            f"{' with NaN/inf' if self.specials_in_data else ''} grid {self.grid_type}"
            f"{list(self.grid_shape)} {self.points}"
        )


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}:{index}")
    kind = rng.choices(list(ELEMENT_TYPES), list(ELEMENT_TYPES.values()))[0]
    batch = rng.choice((1, 1, 2))
    data = (batch, rng.choice((1, 2, 3)), rng.randint(1, 9), rng.randint(1, 9))
    grid = (batch, rng.randint(1, 6), rng.randint(1, 6), 2)
    grid_type = rng.choices(("f32", "f16", "f64"), (8, 1, 1))[0]
    return Config(
        index, kind, data, grid, grid_type, MODES[index % 3], PADDINGS[index // 3 % 3],
        index // 9 % 2 == 1, rng.choice(POINTS), rng.random() < 0.3,
    )  # fmt: skip


def grid_values(config: Config) -> NDArray[Any]:
    rng = np.random.default_rng(config.index)
    shape = config.grid_shape
    if config.points == "ties":  # centres and edges of pixels for either alignment
        height, width = config.data_shape[2:]
        steps = {2 * k / (2 * d) - 1 for d in (height, width, height - 1, width - 1) if d > 0
                 for k in range(-2 * d, 4 * d + 1)}  # fmt: skip
        values = rng.choice(sorted(steps), size=shape)
    else:
        spread = {"inside": 1.0, "outside": 1.6, "far": 60.0, "special": 1.3}[config.points]
        values = rng.uniform(-spread, spread, size=shape)
    if config.points == "special":
        specials = np.array([np.nan, np.inf, -np.inf, 1e30, -1e30, 0.0, -0.0])
        picked = specials[rng.integers(0, len(specials), size=shape)]
        values = np.where(rng.random(shape) < 0.3, picked, values)
    with np.errstate(over="ignore"):
        return values.astype(NUMPY[config.grid_type])


def random_input(config: Config) -> NDArray[Any]:
    shape = config.data_shape
    if config.element_type == "boolean":
        return np.random.default_rng(config.index).random(shape) < 0.6
    if config.specials_in_data or NUMPY[config.element_type] not in (np.float32, np.float16):
        return seeded_values(config.index, config.element_type, shape)
    scale = 40.0 if config.index % 2 else 1.0
    values = np.random.default_rng(config.index).normal(0, scale, size=shape)
    return values.astype(NUMPY[config.element_type])


def build(config: Config, slot: int) -> tuple[Any, list[Any]]:
    data = slot_input(list(config.data_shape), config.element_type, slot)
    attributes = {
        "align_corners": config.align_corners,
        "mode": config.mode,
        "padding_mode": config.padding,
    }
    node = opset9.grid_sample(data, opset1.constant(grid_values(config)), attributes)
    assert node.get_type_name() == "GridSample"
    return data, [named_result(node.output(0), f"out{slot}")]


outcomes = batched_outcomes(random_config, CONFIG_COUNT, build, random_input)


def test_generator_covers_the_space(outcomes: list[Outcome[Config]]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        config = outcome.config
        counts.update({config.element_type, config.points, config.grid_type})
        counts[f"{config.mode} {config.padding} {config.align_corners}"] += 1
        counts["one row or column"] += 1 in config.data_shape[2:]
    assert all(counts[kind] >= 10 for kind in ELEMENT_TYPES), counts
    assert all(counts[points] >= 60 for points in POINTS), counts
    assert len([key for key in counts if key.startswith(MODES)]) == 18, counts
    assert counts["f16"] >= 20 and counts["f64"] >= 20, counts
    assert counts["one row or column"] >= 60, counts


def test_irpool_matches_the_cpu_plugin(outcomes: list[Outcome[Config]]) -> None:
    assert not failures(outcomes, ov.__version__)


SHAPES = [
    ("2,3,4,5", "2,6,7,2"), ("?,3,4,5", "1..4,6,?,2"), ("2..6,?,4,5", "1..4,6,?,?"),
    ("...", "1..4,6,?,?"), ("2..6,3,4,5", "..."), ("0,3,0,5", "0,6,7,2"),
    ("2,3,4,5", "3,6,7,2"), ("2,3,4,5", "2,6,7,3"), ("2,3,4", "2,6,7,2"),
    ("2,3,4,5", "2,6,7,2,1"), ("1..3,2,4,5", "4..6,1,1,2"), ("1,2,3,4", "1,2,3,1..3"),
]  # fmt: skip


def partial_shape(text: str) -> Any:
    if text == "...":
        return ov.PartialShape.dynamic()
    return ov.PartialShape(
        [ov.Dimension(*map(int, d.split(".."))) if ".." in d else ov.Dimension(-1 if d == "?"
         else int(d)) for d in text.split(",")]
    )  # fmt: skip


@pytest.mark.parametrize(("data", "grid"), SHAPES)
def test_shapes_and_refusals_agree_with_read_model(data: str, grid: str) -> None:
    try:
        node = opset9.grid_sample(
            opset1.parameter(partial_shape(data), np.float32),
            opset1.parameter(partial_shape(grid), np.float32),
            {"align_corners": False, "mode": "bilinear", "padding_mode": "zeros"},
        )
        expected = str(node.get_output_partial_shape(0)).replace(" ", "")
    except RuntimeError as error:
        with pytest.raises(ShapeError) as ours:
            infer(GridSample9({}), TensorInfo(F32, parse(data)), TensorInfo(F32, parse(grid)))
        assert str(ours.value) in str(error)
        return
    (result,) = infer(GridSample9({}), TensorInfo(F32, parse(data)), TensorInfo(F32, parse(grid)))
    assert f"[{','.join(str(d) for d in result.shape)}]" == expected


F32 = element_type("f32")


@pytest.mark.parametrize(("height", "width"), [(0, 2), (3, 0), (0, 0), (1, 2)])
def test_empty_data_is_reported_where_the_cpu_writes_nothing(
    tmp_path: Path, height: int, width: int
) -> None:
    """IR633: data without rows or columns gives an output the plugin never writes."""
    data = opset1.parameter([1, 2, height, width], np.float32, name="in0")
    grid = opset1.constant(np.zeros((1, 2, 2, 2), np.float32))
    node = opset9.grid_sample(data, grid, {"mode": "bilinear", "padding_mode": "border"})
    path = tmp_path / "grid_sample.xml"
    ov.save_model(ov.Model([opset1.result(node)], [data]), path)
    codes = {d.code for d in irpool.load(path).validate()}
    empty = height == 0 or width == 0
    assert codes == ({CPU_GRID_SAMPLE_EMPTY_DATA} if empty else set())
    core = ov.Core()
    compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
    ones = np.ones((1, 2, height, width), np.float32)
    (out,) = compiled.create_infer_request().infer({"in0": ones}).values()
    assert np.array_equal(out, np.ones_like(out)) != empty
