"""Add, Multiply, Divide, Mod and Greater: broadcast shapes as OpenVINO's `read_model` infers
them, and values as its CPU plugin computes them (measured on OpenVINO 2026.4.1,
docs/semantics.md "Elementwise ops"); the live comparison over many configurations is
tests/differential/test_arithmetic.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.element_types import element_type
from irpool.ops.arithmetic import Add1, Divide1, Greater1, Mod1, Multiply1, broadcast
from irpool.ops.base import Op, ShapeError, TensorInfo
from irpool.shape import Dim, Shape
from tests.execute.running import compute, quiet_context


def dim(text: str) -> Dim:
    if text.isdigit():
        return Dim.static(int(text))
    low, _, high = text.partition("..")
    return Dim(int(low or 0), int(high) if high else None) if text != "?" else Dim.dynamic()


# first dim, second dim, numpy result, none result (None: refused), from read_model
DIM_PAIRS = [
    ("?", "1", "?", "1"),
    ("?", "0..3", "?", "..3"),
    ("5", "1", "5", None),
    ("5", "0..3", "5", None),
    ("5", "2..3", None, None),
    ("1", "0..3", "..3", "1"),
    ("1..5", "3..8", "3..8", "3..5"),
    ("1..5", "0..3", "..5", "1..3"),
    ("3..8", "2..3", "3", "3"),
    ("3..8", "0..1", "3..8", None),
    ("0..3", "..4", "..4", "..3"),
    ("0", "1..1", "0", None),
    ("6..", "2..2", None, None),
]


@pytest.mark.parametrize(("first", "second", "numpy", "none"), DIM_PAIRS)
def test_broadcast_dims_as_openvino(
    first: str, second: str, numpy: str | None, none: str | None
) -> None:
    for mode, expected in (("numpy", numpy), ("none", none)):
        for a, b in ((first, second), (second, first)):
            shapes = Shape((dim(a),)), Shape((dim(b),))
            if expected is None:
                with pytest.raises(ShapeError, match="inconsistent"):
                    broadcast(*shapes, mode)
            else:
                assert str(broadcast(*shapes, mode)) == f"[{expected}]", (mode, a, b)


# first, second, pdpd result (None: refused), from read_model (the IR reader's axis is 0)
PDPD_SHAPES = [
    ("2,?,4", "2,3", "[2,3,4]"),
    ("2,3,4", "1,3", "[2,3,4]"),
    ("2,3,4", "3", None),
    ("2,3,4", "2,1,1", "[2,3,4]"),
    ("2,3", "2,3,1", None),
    ("2,1", "2,3", None),
    ("0,3", "1", None),
    ("2..6,3", "1..4", "[2..6,3]"),
    ("1,1", "?,1", "[?,1]"),
    ("1..8,5", "0", "[0,5]"),
]


@pytest.mark.parametrize(("first", "second", "expected"), PDPD_SHAPES)
def test_pdpd_shapes_as_openvino(first: str, second: str, expected: str | None) -> None:
    shapes = [Shape(tuple(dim(d) for d in text.split(",") if d)) for text in (first, second)]
    if expected is None:
        with pytest.raises(ShapeError):
            broadcast(*shapes, "pdpd")
    else:
        assert str(broadcast(*shapes, "pdpd")) == expected


NAN, INF = float("nan"), float("inf")
ATTRS = {"auto_broadcast": "numpy", "m_pythondiv": True}

# op, dtype, a, b, the CPU's output
CPU_VALUES: list[tuple[type[Op], Any, list[Any], list[Any], list[Any]]] = [
    (Add1, np.int32, [2**31 - 1, 16777217], [2**31 - 1, 2], [-2, 16777219]),
    (Add1, np.int64, [2**40], [2**40], [0]),  # wrapped to int32 first
    (Add1, np.int8, [100, -128], [100, -1], [127, -128]),  # 8 bits saturate
    (Add1, np.uint8, [250], [44], [255]),
    (Multiply1, np.int32, [46341, -(2**31)], [46341, -(2**31)], [-2147479015, 0]),
    (Multiply1, np.int8, [-56, 100], [100, 100], [-128, 127]),
    # Divide in f32, truncated whatever m_pythondiv says; by zero INT32_MIN (saturated)
    (Divide1, np.int32, [7, -7, 7, -7], [2, 2, -2, -2], [3, -3, -3, 3]),
    (Divide1, np.int32, [5, 0, 2**31 - 1, -(2**31)], [0, 0, 1, 3], [-(2**31)] * 3 + [-715827904]),
    (Divide1, np.int8, [3, -128], [0, -1], [-128, 127]),
    (Divide1, np.uint8, [3, 200], [0, 100], [0, 2]),
    (Divide1, np.float32, [1.0, 0.0, -1.0], [0.0, 0.0, 0.0], [INF, NAN, -INF]),
    (Mod1, np.int32, [7, -7, 7, -7, 5], [2, 2, -2, -2, 0], [1, -1, 1, -1, -(2**31)]),
    (Mod1, np.int32, [-(2**31), 2**31 - 1], [3, 2], [0, 0]),  # x - trunc(x / y) * y in f32
    (Mod1, np.uint8, [3, 7], [0, 255], [0, 7]),
    (Mod1, np.float32, [7.5, -7.5, 1e30, 5.0, INF], [2, 2, 1e10, INF, 2], [1.5, -1.5, 0, NAN, NAN]),
    (Greater1, np.float32, [NAN, 1.0, 2.0, 0.0], [1.0, NAN, 1.0, -0.0], [True, True, True, False]),
    (Greater1, np.int32, [16777217, -5], [16777216, -4], [False, False]),  # compared in f32
]


@pytest.mark.parametrize(("op_class", "dtype", "a", "b", "expected"), CPU_VALUES)
def test_cpu_values(
    op_class: type[Op], dtype: Any, a: list[Any], b: list[Any], expected: list[Any]
) -> None:
    op = op_class({k: v for k, v in ATTRS.items() if k in {x.name for x in op_class.attributes}})
    (result,) = compute(op, [np.array(a, dtype), np.array(b, dtype)])
    assert result is not None
    np.testing.assert_array_equal(result, np.array(expected, result.dtype))


@pytest.mark.parametrize(
    ("op", "a", "b", "expected"),
    [
        (Divide1({**ATTRS, "m_pythondiv": True}), [-7, 7], [2, 2], [-4, 3]),  # floors
        (Divide1({**ATTRS, "m_pythondiv": False}), [-7, 7], [2, 2], [-3, 3]),
        (Add1({"auto_broadcast": "numpy"}), [2**40], [1], [2**40 + 1]),  # no int32 wrap
        (Mod1({"auto_broadcast": "numpy"}), [-7], [2], [-1]),
        (Greater1({"auto_broadcast": "numpy"}), [3, 2], [2, 2], [True, False]),
    ],
)
def test_integer_constants_fold_as_openvino_folds(
    op: Op, a: list[int], b: list[int], expected: list[Any]
) -> None:
    """ShapeOf arithmetic keeps its values: OpenVINO folds integer constants with its
    reference arithmetic (Divide with m_pythondiv floors), not the CPU's f32 kernel."""
    first, second = np.array(a, np.int64), np.array(b, np.int64)
    inputs = [
        TensorInfo(element_type("i64"), Shape.of(len(a)), first),
        TensorInfo(element_type("i64"), Shape.of(len(b)), second),
    ]
    (out,) = op.infer(inputs, quiet_context())
    assert out.value is not None and out.value.tolist() == expected


def test_division_by_a_zero_constant_is_not_folded_at_check_time() -> None:
    zero = TensorInfo(element_type("i64"), Shape.of(1), np.array([0], np.int64))
    (out,) = Divide1(ATTRS).infer([zero, zero], quiet_context())
    assert out.value is None and out.shape == Shape.of(1)


@pytest.mark.parametrize(
    ("types", "message"),
    [
        (("f32", "i32"), "do not have the same element type"),
        (("boolean", "boolean"), "does not support inputs with element type: boolean"),
    ],
)
def test_types_openvino_refuses(types: tuple[str, str], message: str) -> None:
    inputs = [TensorInfo(element_type(t), Shape.of(2)) for t in types]
    with pytest.raises(ShapeError, match=message):
        Add1({"auto_broadcast": "numpy"}).infer(inputs, quiet_context())
    if types[0] == "boolean":
        (out,) = Greater1({"auto_broadcast": "numpy"}).infer(inputs, quiet_context())
        assert out.element_type == "boolean"
