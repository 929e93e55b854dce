"""Select-1: shapes as OpenVINO's `read_model` infers them, values as its CPU plugin computes
them (measured on OpenVINO 2026.4.1, docs/ops/Select.md); the live comparison over many
configurations is tests/differential/test_select.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.element_types import element_type
from irpool.ops.base import ShapeError, TensorInfo
from irpool.ops.select import Select1
from irpool.shape import Dim, Shape
from tests.execute.running import compute, quiet_context


def shape(text: str) -> Shape:
    def dim(part: str) -> Dim:
        if part.isdigit():
            return Dim.static(int(part))
        if part == "?":
            return Dim.dynamic()
        low, _, high = part.partition("..")
        return Dim(int(low or 0), int(high) if high else None)

    return Shape(tuple(dim(part) for part in text.split(",") if part))


# mode, cond, then, else, the output (None: refused), from read_model
SHAPES = [
    ("numpy", "1", "2,3", "3", "[2,3]"),
    ("numpy", "4,1,1", "3,1", "1,5", "[4,3,5]"),
    ("numpy", "?", "2,3", "1..4,1", "[2,3]"),
    ("numpy", "2", "3", "3", None),
    ("none", "2,3", "2,?", "?,3", "[2,3]"),
    ("none", "1,3", "2,3", "2,3", None),
    ("explicit", "2,3", "2,3", "2,3", "[2,3]"),  # read_model accepts equal shapes
    ("explicit", "1,3", "2,3", "2,3", None),
    ("pdpd", "2", "2,3", "2,3", "[2,3]"),  # aligned from axis 0
    ("pdpd", "3", "2,3", "2,3", None),
    ("pdpd", "2,3", "2,3", "2,3,4", None),  # `else` broadcast into `then` one way
]


@pytest.mark.parametrize(("mode", "cond", "then", "otherwise", "expected"), SHAPES)
def test_shapes_as_openvino(
    mode: str, cond: str, then: str, otherwise: str, expected: str | None
) -> None:
    op = Select1({"auto_broadcast": mode})
    if expected is None:
        with pytest.raises(ShapeError):
            op.output_shape(shape(cond), shape(then), shape(otherwise))
    else:
        assert str(op.output_shape(shape(cond), shape(then), shape(otherwise))) == expected


@pytest.mark.parametrize(
    ("types", "message"),
    [
        (("f32", "f32", "f32"), "Argument 0 must have boolean element type"),
        (("boolean", "f32", "i32"), "Argument 1 and 2 element types must match"),
    ],
)
def test_types_openvino_refuses(types: tuple[str, str, str], message: str) -> None:
    inputs = [TensorInfo(element_type(t), Shape.of(2)) for t in types]
    with pytest.raises(ShapeError, match=message):
        Select1({"auto_broadcast": "numpy"}).infer(inputs, quiet_context())


NAN, INF = float("nan"), float("inf")


# cond [True, False, True]: NaN and -0 are copied; f64 is held as the CPU holds it (saturated
# to ±FLT_MAX, rounded to f32), 64-bit integers wrapped to int32
@pytest.mark.parametrize(
    ("dtype", "then", "otherwise", "expected"),
    [
        (np.float32, [NAN, 1.0, -0.0], [1.0, INF, 3.0], [NAN, INF, -0.0]),
        (
            np.float64,
            [1e300, 0.0, 0.1],
            [0, -1e300, 0],
            [3.4028234663852886e38, -3.4028234663852886e38, 0.10000000149011612],
        ),
        (np.int64, [2**40 + 5, 0, -(2**40) - 1], [0, 2**32 + 7, 0], [5, 7, -1]),
        (np.int8, [-128, 0, 127], [0, 5, 0], [-128, 5, 127]),
    ],
)
def test_cpu_values(dtype: Any, then: list[Any], otherwise: list[Any], expected: list[Any]) -> None:
    cond = np.array([True, False, True])
    arrays = [cond, np.array(then, dtype), np.array(otherwise, dtype)]
    (result,) = compute(Select1({"auto_broadcast": "numpy"}), arrays)
    assert result is not None
    np.testing.assert_array_equal(result, np.array(expected, dtype))


def test_integer_constants_fold() -> None:
    cond = TensorInfo(element_type("boolean"), Shape.of(3), np.array([True, False, True]))
    then = TensorInfo(element_type("i64"), Shape.of(3), np.array([1, 2, 2**40], np.int64))
    otherwise = TensorInfo(element_type("i64"), Shape.of(1), np.array([-1], np.int64))
    (out,) = Select1({"auto_broadcast": "numpy"}).infer([cond, then, otherwise], quiet_context())
    assert out.value is not None and out.value.tolist() == [1, -1, 2**40]  # no int32 wrap
