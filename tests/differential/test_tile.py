"""Live differential test: Tile-1 against OpenVINO.

Configuration #n (rebuilt alone with `random_config(n)`) is a Tile of one input (floats,
integers, booleans; dims static, dynamic or intervals, ranks 0-4, a dynamic rank) by a
`repeats` Const: i64 mostly, i32, u8 or f32 (refused), 1-D of 0 to rank + 2 elements (2-D
sometimes: refused), values 0-3 and negative ones. Shapes: `read_model` is the oracle. Runs
(accepted, static, no negative repeat: IR635, the CPU crashes on some): the CPU plugin on
inputs holding NaN, ±inf, huge values and each integer type's extremes, equal bit for bit.
A second test feeds the repeats at run time, and a third tiles a ShapeOf into a Reshape's
pattern, whose shape `read_model` infers from the bounds.

IRPOOL_TEST_SCALE scales the number of configurations (default 300).
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
from tests import ir
from tests.differential.harness import NUMPY, PER_OP, const, declared, parameter, random_dim
from tests.differential.harness import write as write_ir
from tests.differential.single_input import (
    Outcome,
    assert_covers,
    assert_shapes_agree,
    compile_verdicts,
    exactly,
    run_differences,
    runnable,
    seeded_input,
)

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-tile-1"
TYPES = ("f32", "f32", "f32", "f16", "f64", "i32", "i64", "i8", "u8", "boolean")
BATCH_SIZE = 60


@dataclass(frozen=True)
class Config:
    index: int
    element_type: str
    shape: str
    repeats: tuple[int, ...]
    repeats_type: str
    nested: bool  # repeats written 2-D

    def describe(self) -> str:
        nested = " (2-D)" if self.nested else ""
        return (
            f"#{self.index} Tile repeats {self.repeats_type} {list(self.repeats)}{nested} "
            f"on {self.element_type}[{self.shape}]"
        )


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    dims = [random_dim(rng) for _ in range(rng.choice((0, 1, 2, 2, 3, 3, 4)))]
    shape = "..." if rng.random() < 0.04 else ",".join(dims)
    length = rng.randint(0, len(dims) + 2)
    repeats = tuple(rng.choice((0, 1, 1, 2, 2, 3, -1)) for _ in range(length))
    kind = rng.choices(("i64", "i32", "u8", "f32"), (70, 20, 5, 5))[0]
    if kind == "u8":
        repeats = tuple(max(r, 0) for r in repeats)
    return Config(index, rng.choice(TYPES), shape, repeats, kind, rng.random() < 0.03)


def render_layers(
    config: Config, output: tuple[str, list[str] | None], base: int, offset: int
) -> tuple[str, str, bytes]:
    """Parameter (base), repeats Const (base + 1), Tile (base + 2), Result (base + 3)."""
    n = config.index
    array = np.array(config.repeats, np.int64).astype(NUMPY[config.repeats_type])
    if config.nested:
        array = array.reshape(1, -1)
    blob = array.tobytes()
    repeats_dims = [str(d) for d in array.shape]
    out_type, out_dims = output
    if out_dims is not None and array.ndim == 1 and all(d.isdigit() for d in out_dims):
        # a run: the output's own dims (the harness declares the input's)
        tiled = np.tile(np.zeros([int(d) for d in out_dims]), np.maximum(array.astype(np.int64), 0))
        out_dims = [str(d) for d in tiled.shape]
    inputs = [
        ir.typed_port(0, config.element_type, declared(config.shape)),
        ir.typed_port(1, config.repeats_type, repeats_dims),
    ]
    out = ir.typed_port(2, out_type, out_dims, f"out{n}")
    layers = "".join(
        [
            parameter(base, f"in{n}", config.element_type, config.shape),
            const(base + 1, f"repeats{n}", config.repeats_type, ",".join(repeats_dims), offset,
                  len(blob)),
            ir.layer(base + 2, f"op{n}", "Tile", "opset1", "", inputs, [out]),
            ir.result(base + 3, f"out{n}", out_dims, ir.precision(out_type)),
        ]
    )  # fmt: skip
    edges = "".join(
        ir.edge(*ends)
        for ends in ((base, 0, base + 2, 0), (base + 1, 0, base + 2, 1), (base + 2, 2, base + 3, 0))
    )
    return layers, edges, blob


def write(directory: Path, name: str, configs: list[tuple[Config, tuple[str, Any]]]) -> Path:
    return write_ir(directory, name, configs, render_layers)


outcomes = compile_verdicts(random_config, PER_OP, write, {*NUMPY, "boolean"})


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        config = outcome.config
        counts["negative repeat"] += outcome.accepted and any(r < 0 for r in config.repeats)
        counts["longer repeats"] += (
            outcome.accepted and len(config.repeats) > config.shape.count(",") + 1
        )
        counts["interval"] += outcome.accepted and ".." in config.shape.replace("...", "")
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 30, "runs": PER_OP // 4}
    minimum |= {"negative repeat": PER_OP // 20, "longer repeats": PER_OP // 10}
    minimum |= {"interval": PER_OP // 20}
    assert_covers(outcomes, counts, minimum)


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    core = ov.Core()
    configs = runnable(outcomes, {*NUMPY, "boolean"}, clean=True)  # negative repeats: IR635
    message = run_differences(core, tmp_path, configs, write, seeded_input, exactly, BATCH_SIZE)
    assert not message, message


def _run_both(model: Any, path: Path, inputs: dict[str, NDArray[Any]]) -> tuple[Any, Any]:
    ov.save_model(model, path, compress_to_fp16=False)
    core = ov.Core()
    compiled = core.compile_model(core.read_model(path), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    theirs = compiled.create_infer_request().infer(inputs)[compiled.output(0)]
    return irpool.load(path).run(inputs)["out"], theirs


@pytest.mark.parametrize(
    "repeats", [[2, 1], [1, 3, 2], [-1, 2], [0, 2], [2**33 + 1, 1], [3]]
)  # measured: negative and zero repeats give an empty output; an i64 repeat wraps to int32
def test_repeats_given_at_run_time(tmp_path: Path, repeats: list[int]) -> None:
    from openvino import opset1

    data = opset1.parameter([2, 3], np.float32, name="data")
    count = opset1.parameter([len(repeats)], np.int64, name="repeats")
    tile = opset1.tile(data, count)
    tile.output(0).set_names({"out"})
    model = ov.Model([opset1.result(tile)], [data, count])
    inputs = {"data": np.arange(6, dtype=np.float32).reshape(2, 3), "repeats": np.array(repeats)}
    ours, theirs = _run_both(model, tmp_path / "tile.xml", inputs)
    assert ours.shape == theirs.shape and np.array_equal(ours, theirs)


def test_a_tiled_shape_reaches_a_reshape(tmp_path: Path) -> None:
    """ShapeOf of [?, 2..8] tiled twice is read_model's Reshape pattern: its bounds flow."""
    from openvino import Dimension, PartialShape, opset1

    data = opset1.parameter(PartialShape([-1, Dimension(2, 8)]), np.float32, name="data")
    flat = opset1.parameter(PartialShape([-1]), np.float32, name="flat")
    pattern = opset1.tile(opset1.shape_of(data), opset1.constant(np.array([2], np.int64)))
    reshaped = opset1.reshape(flat, pattern, False)
    reshaped.output(0).set_names({"out"})
    model = ov.Model([opset1.result(reshaped)], [data, flat])
    path = tmp_path / "tiled_shape.xml"
    ov.save_model(model, path)
    theirs = str(ov.Core().read_model(path).output(0).get_partial_shape())
    loaded = irpool.load(path)
    assert not [d for d in loaded.validate() if d.severity.value == "error"]
    (result_id,) = [i for i, o in loaded.checked.outputs.items() if o and str(o[0].shape) == theirs]
    assert result_id is not None and theirs == "[?,2..8,?,2..8]"
