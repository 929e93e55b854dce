"""The configurations of the arithmetic differential (tests/differential/test_arithmetic.py),
shared by MatMul's, Roll's and Select's: one binary op on two inputs of drawn types and dims,
its rendering, `read_model`'s shape verdict, and how outputs are compared."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tests import ir
from tests.differential.harness import (
    NUMPY,
    const,
    declared,
    parameter,
    random_dim,
    random_input,
)
from tests.differential.harness import write as write_ir
from tests.differential.shape_batches import Batches

SEED = "irpool-differential-arithmetic-1"


OPS = (
    "Add", "Subtract", "Multiply", "Divide", "Mod", "FloorMod", "Power", "Greater", "Equal",
    "NotEqual", "GreaterEqual", "Less", "LessEqual", "Minimum", "Maximum", "SquaredDifference",
)  # fmt: skip


# The opset each op is written with (the others: opset1).
OPSETS = {
    "BitwiseAnd": "opset13", "BitwiseOr": "opset13", "BitwiseXor": "opset13",
    "BitwiseLeftShift": "opset15", "BitwiseRightShift": "opset15",
}  # fmt: skip
BOOLEAN_OUTPUTS = ("LogicalAnd", "LogicalOr", "LogicalXor")


COMPARISONS = ("Greater", "Equal", "NotEqual", "GreaterEqual", "Less", "LessEqual")


TYPES = ("f32", "f32", "f32", "i32", "i32", "i64", "f16", "f64", "i8", "u8", "i16", "u16", "u32")


ELEMENT_NAMES = {
    "f32": "f32", "f16": "f16", "bf16": "bf16", "f64": "f64", "i8": "i8", "i16": "i16",
    "i32": "i32", "i64": "i64", "u8": "u8", "u16": "u16", "u32": "u32", "u64": "u64",
    "boolean": "boolean",
}  # fmt: skip


@dataclass(frozen=True)
class Config:
    index: int
    op: str
    types: tuple[str, str]
    shapes: tuple[str, str]  # Parameter shape attributes: "2,?,1..4", "" (scalar) or "..."
    constant: bool  # the second input is a Const (static shape)
    attrs: tuple[tuple[str, str], ...]

    def describe(self) -> str:
        second = "Const" if self.constant else "Parameter"
        return (
            f"#{self.index} {self.op} {dict(self.attrs)} on {self.types[0]}[{self.shapes[0]}]"
            f" and {second} {self.types[1]}[{self.shapes[1]}]"
        )

    @property
    def static(self) -> bool:
        return all(d.isdigit() or d == "" for shape in self.shapes for d in shape.split(","))


def partner(rng: random.Random, dims: list[str]) -> list[str]:
    """A second input's dims for `dims`: mostly broadcast partners."""
    if rng.random() < 0.1:
        return [random_dim(rng) for _ in range(rng.randint(0, 4))]
    chosen = [rng.choice((d, d, "1", random_dim(rng))) if rng.random() < 0.5 else d for d in dims]
    if chosen and rng.random() < 0.3:
        chosen = chosen[rng.randint(1, len(chosen)) :]  # a lower rank
    if rng.random() < 0.1:
        chosen = [str(rng.randint(1, 3)), *chosen]  # a higher rank
    return chosen


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    op = OPS[index % len(OPS)]
    first = rng.choice(TYPES)
    second = first if rng.random() < 0.95 else rng.choice((*TYPES, "boolean"))
    if rng.random() < 0.03:
        first = second = "boolean"
    dims = [random_dim(rng) for _ in range(rng.choice((0, 1, 2, 3, 3, 4)))]
    other = partner(rng, dims)
    if rng.random() < 0.05:
        swapped = ",".join(dims)
        dims = other
        other = swapped.split(",") if swapped else []
    shapes = ("..." if rng.random() < 0.03 else ",".join(dims), ",".join(other))
    mode = rng.choice(("numpy",) * 12 + ("none", "none", "pdpd", "pdpd", "explicit", "NUMPY"))
    attrs: tuple[tuple[str, str], ...] = () if rng.random() < 0.15 else (("auto_broadcast", mode),)
    if op == "Divide" and rng.random() < 0.85:
        attrs += (("m_pythondiv", rng.choice(("true", "false"))),)
    constant = all(d.isdigit() for d in other) and rng.random() < 0.25
    return Config(index, op, (first, second), shapes, constant, attrs)


def operand(seed: int, kind: str, shape: tuple[int, ...]) -> NDArray[Any]:
    """random_input's values; booleans half true."""
    if kind == "boolean":
        return np.random.default_rng(seed).random(shape) < 0.5
    return random_input(seed, kind, shape)


def known_uncompiled(config: Config) -> bool:
    """The gap irpool leaves: the CPU plugin cannot compile a `none` or `explicit` op whose
    inputs are a scalar and a scalar Const (it makes the Const [1]); irpool runs it."""
    mode = dict(config.attrs).get("auto_broadcast", "numpy").lower()
    return mode in ("none", "explicit") and config.constant and config.shapes == ("", "")


def second_input(config: Config) -> NDArray[Any]:
    shape = tuple(int(d) for d in config.shapes[1].split(",") if d)
    if config.op.startswith("BitwiseLeft") or config.op.startswith("BitwiseRight"):
        counts = np.random.default_rng(config.index).integers(-40, 70, shape)
        return counts.astype(NUMPY[config.types[1]])  # every count, beyond the width too
    return operand(config.index + 1_000_000, config.types[1], shape)


def render_layers(
    config: Config, output: tuple[str, list[str] | None], base: int, offset: int
) -> tuple[str, str, bytes]:
    n, op = config.index, base + 2
    layers, inputs, edges, blob = [], [], [], b""
    for position, (kind, shape) in enumerate(zip(config.types, config.shapes, strict=True)):
        if position == 1 and config.constant:
            value = second_input(config)
            blob = value.astype(value.dtype.newbyteorder("<")).tobytes()
            layers.append(const(base + 1, f"c{n}", kind, shape, offset, len(blob)))
        else:
            layers.append(parameter(base + position, f"in{position}_{n}", kind, shape))
        inputs.append(ir.typed_port(position, kind, declared(shape)))
        edges.append(ir.edge(base + position, 0, op, position))
    out_type, out_dims = output
    outputs = [ir.typed_port(2, out_type, out_dims, f"out{n}")]
    attributes = ir.data(config.attrs)
    version = OPSETS.get(config.op, "opset1")
    layers.append(ir.layer(op, f"op{n}", config.op, version, attributes, inputs, outputs))
    layers.append(ir.result(base + 3, f"out{n}", out_dims, ir.precision(out_type)))
    edges.append(ir.edge(op, 2, base + 3, 0))
    return "".join(layers), "".join(edges), blob


def write(directory: Path, name: str, configs: list[tuple[Config, tuple[str, Any]]]) -> Path:
    return write_ir(directory, name, configs, render_layers)


def openvino_output(config: Any, output: Any) -> tuple[str, list[str] | None]:
    """The element type and dims of OpenVINO's `output` (of `config`), as `write` takes an
    output."""
    shape = output.get_partial_shape()
    dims = (
        None
        if shape.rank.is_dynamic
        else [str(d.get_length()) if d.is_static else "-1" for d in shape]
    )
    return ELEMENT_NAMES[output.get_element_type().get_type_name()], dims


@dataclass
class Outcome:
    config: Config
    output: tuple[str, list[str] | None] | None  # OpenVINO's, when it accepts the file
    problems: list[str]


def check_shapes(core: Any, directory: Path, configs: list[Config]) -> list[Outcome]:
    """OpenVINO's output of each configuration (read with a naive output, which irpool then
    loads rewritten to OpenVINO's) and how irpool's findings disagree, batched (`Batches`)."""
    items = [(config, naive_output(config)) for config in configs]
    verdicts = Batches(core, directory, write, openvino_output).verdicts(items)
    return [
        Outcome(config, verdict.claim, verdict.problems)
        for config, verdict in zip(configs, verdicts, strict=True)
    ]


def naive_output(config: Config) -> tuple[str, None]:
    return ("boolean" if config.op in COMPARISONS + BOOLEAN_OUTPUTS else config.types[0], None)


def same(actual: NDArray[Any], expected: NDArray[Any]) -> bool:
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return False
    if expected.dtype.kind != "f":
        return bool(np.array_equal(actual, expected))
    found = ~np.isnan(expected)
    if not np.array_equal(np.isnan(actual), ~found):
        return False
    return actual[found].tobytes() == expected[found].tobytes()  # -0 is not 0
