"""The logical and bitwise families' element types and constant folding, as OpenVINO 2026.4.1's
`read_model` has them (measured on every element type, docs/elementwise.md#logical-and-bitwise)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.element_types import element_type
from irpool.ops.base import Op, ShapeError, TensorInfo
from irpool.ops.comparison import LessEqual1
from irpool.ops.logical import BY_TYPE, LOGICAL
from irpool.shape import Shape
from tests.ops.inferring import infer

TYPES = ("f32", "f16", "bf16", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")
ACCEPTED = {
    "boolean": {"boolean"},
    "any": {*TYPES, "boolean"},
    "integer or boolean": {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "boolean"},
    "integer": {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"},
}


def tensor(kind: str, values: Any = None) -> TensorInfo:
    if values is None:
        return TensorInfo(element_type(kind), Shape.of(2, 3))
    array = np.array(values, element_type(kind).dtype)
    return TensorInfo(element_type(kind), Shape.of(*array.shape), array)


def op_of(name: str) -> Op:
    return BY_TYPE[name]({} if name.endswith("Not") else {"auto_broadcast": "numpy"})


@pytest.mark.parametrize("row", LOGICAL, ids=lambda row: row.type_name)
@pytest.mark.parametrize("kind", (*TYPES, "boolean"))
def test_types_read_model_accepts(row: Any, kind: str) -> None:
    op = op_of(row.type_name)
    inputs = [tensor(kind)] * len(op.input_names)
    if kind not in ACCEPTED[row.accepts]:
        with pytest.raises(ShapeError):
            infer(op, *inputs)
        return
    (out,) = infer(op, *inputs)
    wanted = "boolean" if row.type_name in ("LogicalAnd", "LogicalOr", "LogicalXor") else kind
    assert (out.element_type, str(out.shape)) == (wanted, "[2,3]")


@pytest.mark.parametrize(
    ("name", "kind", "a", "b", "expected"),
    [
        ("BitwiseAnd", "boolean", [True, True, False], [True, False, False], [True, False, False]),
        ("BitwiseAnd", "i64", [2**40 + 3, -1], [2**40 + 1, 5], [2**40 + 1, 5]),  # exact in i64
        ("LogicalXor", "boolean", [True, False], [True, True], [False, True]),
        ("BitwiseLeftShift", "i32", [3, -1], [4, 31], [48, -(2**31)]),
        ("BitwiseRightShift", "i8", [-128, 64], [7, 1], [-1, 32]),
        ("BitwiseLeftShift", "i32", [3, 1], [32, 1], None),  # a count beyond the width
        ("BitwiseLeftShift", "i32", [3, 1], [-1, 1], None),
    ],
)
def test_constants_fold(name: str, kind: str, a: Any, b: Any, expected: Any) -> None:
    (out,) = infer(op_of(name), tensor(kind, a), tensor(kind, b))
    assert (None if out.value is None else out.value.tolist()) == expected


@pytest.mark.parametrize(
    ("name", "kind", "values", "expected"),
    [
        ("LogicalNot", "boolean", [True, False], [False, True]),
        ("LogicalNot", "i64", [0, 5, -1], [1, 0, 0]),
        ("BitwiseNot", "u8", [0, 255], [255, 0]),
        ("BitwiseNot", "i64", [2**40], [~(2**40)]),
    ],
)
def test_unary_constants_fold(name: str, kind: str, values: Any, expected: Any) -> None:
    (out,) = infer(op_of(name), tensor(kind, values))
    assert out.value is not None and out.value.tolist() == expected


def test_a_causal_mask_of_constants_folds() -> None:
    """LessEqual of two i64 ranges (a key position against each query's), and'ed with a
    padding mask: the boolean mask of a static-length decoder is a value."""
    rows, cols = tensor("i64", [[0], [1], [2]]), tensor("i64", [[0, 1, 2]])
    (causal,) = infer(LessEqual1({"auto_broadcast": "numpy"}), cols, rows)
    padding = tensor("boolean", [[True, True, False]])
    (mask,) = infer(op_of("BitwiseAnd"), causal, padding)
    assert mask.value is not None
    assert mask.value.tolist() == [[True, False, False], [True, True, False], [True, True, False]]
