"""Split-1: what OpenVINO's `read_model` refuses, the pieces it infers (intervals included),
values and bounds flowing through, and the CPU's pieces (measured on OpenVINO 2026.4.1,
docs/ops/Split.md); the live comparison is tests/differential/test_split.py."""

from __future__ import annotations

import numpy as np
import pytest

from irpool.element_types import element_type
from irpool.ops.base import ShapeError, TensorInfo
from irpool.ops.shape_of import ShapeOf3
from irpool.ops.split import Split1
from irpool.shape import Dim, Shape
from tests.execute.running import compute, info, quiet_context


def test_cpu_pieces() -> None:
    data = np.arange(12, dtype=np.int64).reshape(2, 6)
    data[0, 0] = 2**40 + 5
    pieces = compute(Split1({"num_splits": 3}), [data, np.array(-1, np.int64)])
    expected = [[[5, 1], [6, 7]], [[2, 3], [8, 9]], [[4, 5], [10, 11]]]  # wrapped as the CPU
    assert [p.tolist() for p in pieces if p is not None] == expected


DATA = TensorInfo(element_type("f32"), Shape.of(6, 4))


@pytest.mark.parametrize(
    ("count", "data", "axis", "message"),
    [
        (0, DATA, info("i64", 0), "must be greater than zero. Got: 0"),
        (4, DATA, info("i64", 0), "6 must be evenly divisible by 'num_splits' attribute value: 4"),
        (2, DATA, info("i64", 2), r"Axis 2 out of the tensor rank range \[-2, 1\]"),
        (2, DATA, info("i64", [0]), r"'axis' input must be a scalar. Got: \[1\]"),
        (2, DATA, info("f32", 0.0), "Element type of 'axis' input must be integer. Got: f32"),
        (
            4,
            TensorInfo(element_type("f32"), Shape((Dim(2, 3),))),
            info("i64", 0),
            r"interval maximum .* Got: Interval\(2, 3\) and 4",
        ),
    ],
)
def test_read_model_refuses(count: int, data: TensorInfo, axis: TensorInfo, message: str) -> None:
    with pytest.raises(ShapeError, match=message):
        Split1({"num_splits": count}).infer([data, axis], quiet_context())


@pytest.mark.parametrize(
    ("dim", "openvino"), [(Dim(3, 13), "1..6"), (Dim(3, None), "1.."), (Dim.dynamic(), "?")]
)
def test_interval_ends_divided_rounding_down(dim: Dim, openvino: str) -> None:
    data = TensorInfo(element_type("f32"), Shape((dim, Dim.static(4))))
    pieces = Split1({"num_splits": 2}).infer([data, info("i64", 0)], quiet_context())
    assert [str(p.shape) for p in pieces] == [f"[{openvino},4]"] * 2


def test_bounds_flow() -> None:
    dims = Shape((Dim(6, 10), Dim.static(7)))
    (shape,) = ShapeOf3({"output_type": "i64"}).infer(
        [TensorInfo(element_type("f32"), dims)], quiet_context()
    )
    first, second = Split1({"num_splits": 2}).infer([shape, info("i64", 0)], quiet_context())
    assert first.bounds is not None and [str(d) for d in first.bounds.dims()] == ["6..10"]
    assert second.value is not None and second.value.tolist() == [7]


def test_explain() -> None:
    explanation = Split1({"num_splits": 3}).explain([DATA, info("i64", 0)], [])
    assert explanation is not None and explanation.settings == "3 equal pieces"
