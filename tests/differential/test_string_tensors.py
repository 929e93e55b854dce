"""Live differential test: StringTensorUnpack-15 and StringTensorPack-15 against OpenVINO.

Configuration #n (rebuilt alone with `random_config(n)`) is a "StringTensorUnpack" of a
Parameter (string mostly, f32, u8 or dynamic sometimes), or a "StringTensorPack" of three
Parameters (begins and ends i32 or i64 mostly, sometimes of different, u8, f32 or dynamic
types; shapes equal, compatible or not, scalars and dynamic ranks; symbols u8 mostly, 1-D
mostly). OpenVINO's `read_model` is the oracle: irpool reports an error exactly when it
refuses the model, and otherwise infers its output types and shapes. Values are not compared:
irpool holds no string tensor.

IRPOOL_TEST_SCALE scales the number of configurations (default 150).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import pytest

import irpool
from irpool.rules import RULES
from tests import ir
from tests.differential.harness import declared, parameter, random_dim
from tests.scale import examples

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-string-tensors-1"
CONFIGS = examples(150)


@dataclass(frozen=True)
class Config:
    index: int
    op: str  # "StringTensorUnpack" or "StringTensorPack"
    inputs: tuple[tuple[str, str], ...]  # (element type, shape attribute) of each input

    def describe(self) -> str:
        return f"#{self.index} {self.op} of {self.inputs}"


def a_shape(rng: random.Random) -> str:
    if rng.random() < 0.1:
        return "..."
    return ",".join(random_dim(rng) for _ in range(rng.choice((0, 1, 1, 2, 3))))


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    if rng.random() < 0.4:
        kind = rng.choice(("string",) * 6 + ("f32", "u8", "dynamic"))
        return Config(index, "StringTensorUnpack", ((kind, a_shape(rng)),))
    offsets = rng.choice(("i32", "i64"))
    begins = (offsets, a_shape(rng))
    ends_type = (
        offsets if rng.random() < 0.8 else rng.choice(("i32", "i64", "u8", "f32", "dynamic"))
    )
    ends = (ends_type, begins[1] if rng.random() < 0.6 else a_shape(rng))
    if rng.random() < 0.1:
        begins = (rng.choice(("u8", "f32", "dynamic")), begins[1])
    symbols_type = "u8" if rng.random() < 0.85 else rng.choice(("i8", "u16", "dynamic"))
    symbols_shape = rng.choice(("?", "12", "?", "", "2,3", "..."))
    return Config(index, "StringTensorPack", (begins, ends, (symbols_type, symbols_shape)))


def model_text(config: Config) -> str:
    """The op of `config` on Parameters, each output to a Result, its ports declared with the
    rank irpool and OpenVINO give it and every dim dynamic."""
    layers = [
        parameter(index, f"in{index}", kind, shape)
        for index, (kind, shape) in enumerate(config.inputs)
    ]
    op_id = len(config.inputs)
    inputs = [
        ir.typed_port(i, kind, declared(shape)) for i, (kind, shape) in enumerate(config.inputs)
    ]
    first = declared(config.inputs[0][1])
    if config.op == "StringTensorUnpack":
        produced = [("i32", first), ("i32", first), ("u8", ["-1"])]
    else:
        ranked = first if first is not None else declared(config.inputs[1][1])
        produced = [("string", None if ranked is None else ["-1"] * len(ranked))]
    outputs = [ir.typed_port(op_id + i, kind, dims) for i, (kind, dims) in enumerate(produced)]
    layers.append(ir.layer(op_id, "op", config.op, "opset15", "", inputs, outputs))
    edges = [ir.edge(i, 0, op_id, i) for i in range(len(config.inputs))]
    for index, (kind, dims) in enumerate(produced):
        result_id = op_id + 1 + index
        port = ir.typed_port(0, kind, dims)
        layers.append(ir.layer(result_id, f"out{index}", "Result", "opset1", "", [port]))
        edges.append(ir.edge(op_id, op_id + index, result_id, 0))
    return ir.net(layers, edges)


def openvino_outputs(path: Path) -> list[str] | str:
    """The op's outputs as "type [shape]", or read_model's refusal."""
    try:
        model = ov.Core().read_model(path)
    except RuntimeError as error:
        return str(error).strip().splitlines()[-1]
    op = next(node for node in model.get_ordered_ops() if node.get_friendly_name() == "op")
    return [f"{o.get_element_type().get_type_name()} {o.get_partial_shape()}" for o in op.outputs()]


def irpool_outputs(path: Path) -> list[str] | str:
    model = irpool.load(path)
    # What read_model refuses; not the CPU's refusals, nor IR301 (model_text declares every
    # dim dynamic).
    errors = [d for d in model.validate() if RULES[d.code].runtime == "rejects"]
    if errors:
        return "; ".join(f"{d.code} {d.message}" for d in errors)
    layer = model.layer("op")
    found = model.outputs_of(layer) or []
    return [f"{info.element_type} {info.shape}" for info in found]


@pytest.mark.parametrize("index", range(CONFIGS))
def test_string_tensors_agree_with_read_model(index: int, tmp_path: Path) -> None:
    config = random_config(index)
    path = ir.write(tmp_path, model_text(config))
    theirs, ours = openvino_outputs(path), irpool_outputs(path)
    if isinstance(theirs, str):
        assert isinstance(ours, str), f"{config.describe()}: OpenVINO refuses ({theirs})"
        return
    assert not isinstance(ours, str), f"{config.describe()}: irpool refuses: {ours}"
    assert ours == theirs, config.describe()


def test_the_configurations_cover_both_verdicts(tmp_path: Path) -> None:
    verdicts: set[tuple[str, bool]] = set()
    for index in range(CONFIGS):
        config = random_config(index)
        path = ir.write(tmp_path, model_text(config))
        verdicts.add((config.op, isinstance(openvino_outputs(path), str)))
    assert verdicts == {(op, refused) for op in ("StringTensorUnpack", "StringTensorPack")
                        for refused in (False, True)}  # fmt: skip
