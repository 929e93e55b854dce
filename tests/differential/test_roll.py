"""Live differential test: Roll-7 against OpenVINO.

Configuration #n (rebuilt alone with `random_config(n)`) is a Roll of one input (float types
mostly, integers and booleans too; dims static, dynamic or intervals) by `shift` and `axes`
Consts: i64 or i32 (sometimes f32), scalars or 1-D (sometimes 2-D), of one size or not, axes
in range mostly (negative, repeated, out of range), shifts small, up to ±999, or huge: int32's
extremes and i64 values up to ±2**62 (an i64 Const held saturated to int32, each axis's sum
wrapped to int32, docs/ops/Roll.md).

Shapes (every configuration): OpenVINO's `read_model` is the oracle; where it accepts but the
CPU plugin cannot compile (a scalar shift with several axes), irpool must report IR609. Run
(accepted, compiled configurations with static shapes): batches on the CPU plugin (f32
inference precision) on seeded inputs holding NaN, ±inf, ±0, huge values and each integer
type's extremes; outputs must be equal bit for bit.

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

from tests import ir
from tests.differential.harness import NUMPY, PER_OP, const, declared, parameter, random_dim
from tests.differential.harness import write as write_ir
from tests.differential.single_input import (
    Outcome,
    assert_covers,
    assert_shapes_agree,
    compile_verdicts,
    exactly,
    has_static_shape,
    run_differences,
    runnable,
    seeded_input,
)

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-roll-1"
TYPES = ("f32", "f32", "f32", "f16", "f64", "i32", "i64", "i8", "u8", "boolean")
BATCH_SIZE = 60


@dataclass(frozen=True)
class Config:
    index: int
    element_type: str
    shape: str
    shift: tuple[int, ...] | int  # an int: a scalar Const
    axes: tuple[int, ...] | int
    types: tuple[str, str]  # of shift and axes
    nested: bool  # axes written 2-D

    def describe(self) -> str:
        return (
            f"#{self.index} Roll shift {self.types[0]} {self.shift} axes {self.types[1]} "
            f"{self.axes}{' (2-D)' if self.nested else ''} on {self.element_type}[{self.shape}]"
        )


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    dims = [random_dim(rng) for _ in range(rng.choice((0, 1, 2, 3, 3, 4)))]
    rank = max(len(dims), 1)
    count = rng.choice((1, 1, 2, 3))

    def a_shift() -> int:
        huge = rng.choice(
            (2**31 - 1, -(2**31), rng.randint(2**30, 2**31), rng.randint(-(2**62), 2**62))
        )
        return rng.choice((rng.randint(-9, 9), rng.randint(-9, 9), rng.randint(-999, 999), huge))

    axes: tuple[int, ...] | int = tuple(rng.randint(-rank, rank - 1) for _ in range(count))
    if rng.random() < 0.05:
        axes = (rank,)
    shift: tuple[int, ...] | int = tuple(a_shift() for _ in range(count))
    if rng.random() < 0.2:
        shift = a_shift()
        if rng.random() < 0.5:
            axes = rng.randint(-rank, rank - 1)
    if rng.random() < 0.05:
        shift = shift[:-1] if isinstance(shift, tuple) and len(shift) > 1 else shift
    types = (rng.choice(("i64", "i64", "i32", "f32")), rng.choice(("i64", "i64", "i32", "f32")))
    if rng.random() < 0.8:
        types = ("i64", "i64") if rng.random() < 0.7 else ("i32", "i32")
    element = rng.choice(TYPES)
    return Config(index, element, ",".join(dims), shift, axes, types, rng.random() < 0.03)


def _const(
    layer_id: int, name: str, values: Any, kind: str, nested: bool, offset: int
) -> tuple[str, bytes, list[str]]:
    array = np.array(values, np.int64).astype(NUMPY[kind])  # 2**40 wraps in an i32
    if nested:
        array = array.reshape(1, -1)
    blob = array.astype(array.dtype.newbyteorder("<")).tobytes()
    dims = [str(d) for d in array.shape]
    return const(layer_id, name, kind, ",".join(dims), offset, len(blob)), blob, dims


def render_layers(
    config: Config, output: tuple[str, list[str] | None], base: int, offset: int
) -> tuple[str, str, bytes]:
    """Ids 2 * base + (Parameter 0, shift 1, Roll 2, Result 3, axes 4): `write` gives 4 per
    configuration, Roll needs 5."""
    n, first = config.index, 2 * base
    dims = declared(config.shape)
    shift, shift_blob, shift_dims = _const(
        first + 1, f"shift{n}", config.shift, config.types[0], False, offset
    )
    axes, axes_blob, axes_dims = _const(
        first + 4, f"axes{n}", config.axes, config.types[1], config.nested,
        offset + len(shift_blob),
    )  # fmt: skip
    out_type, out_dims = output
    inputs = [
        ir.typed_port(0, config.element_type, dims),
        ir.typed_port(1, config.types[0], shift_dims),
        ir.typed_port(2, config.types[1], axes_dims),
    ]
    out = ir.typed_port(3, out_type, out_dims, f"out{n}")
    layers = "".join(
        [
            parameter(first, f"in{n}", config.element_type, config.shape),
            shift,
            axes,
            ir.layer(first + 2, f"op{n}", "Roll", "opset7", "", inputs, [out]),
            ir.result(first + 3, f"out{n}", out_dims, ir.precision(out_type)),
        ]
    )
    edges = "".join(
        ir.edge(*ends)
        for ends in (
            (first, 0, first + 2, 0),
            (first + 1, 0, first + 2, 1),
            (first + 4, 0, first + 2, 2),
            (first + 2, 3, first + 3, 0),
        )
    )
    return layers, edges, shift_blob + axes_blob


def write(directory: Path, name: str, configs: list[tuple[Config, tuple[str, Any]]]) -> Path:
    return write_ir(directory, name, configs, render_layers)


outcomes = compile_verdicts(random_config, PER_OP, write, {*NUMPY, "boolean"}, ids_each=8)


def huge(config: Config) -> bool:
    """Whether a shift, or the sum of an axis's shifts, leaves int32."""
    shifts = (config.shift,) if isinstance(config.shift, int) else config.shift
    return abs(sum(shifts)) >= 2**31 or any(abs(s) >= 2**31 - 1 for s in shifts)


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        counts["scalar shift"] += outcome.accepted and isinstance(outcome.config.shift, int)
        counts["huge runs"] += (
            outcome.accepted and has_static_shape(outcome.config) and huge(outcome.config)
        )
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 20, "runs": PER_OP // 4}
    minimum |= {"scalar shift": PER_OP // 30, "huge runs": PER_OP // 10}
    assert_covers(outcomes, counts, minimum)


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    core = ov.Core()
    configs = runnable(outcomes, {*NUMPY, "boolean"})
    message = run_differences(core, tmp_path, configs, write, seeded_input, exactly, BATCH_SIZE)
    assert not message, message
