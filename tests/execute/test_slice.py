"""Slice-8: the bounds OpenVINO's `read_model` refuses, the lengths it infers (intervals
included), values and bounds flowing through, and the CPU's elements (measured on OpenVINO
2026.4.1, docs/ops/Slice.md); the live comparison over many configurations is
tests/differential/test_slice.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.element_types import element_type
from irpool.ops.base import ShapeError, TensorInfo
from irpool.ops.shape_of import ShapeOf3
from irpool.ops.slice import Slice8
from irpool.shape import Dim, Shape
from tests.execute.running import compute, info, quiet_context

X = np.arange(10, dtype=np.float32)


@pytest.mark.parametrize(
    ("start", "stop", "step", "cpu"),
    [  # the CPU's outputs
        (2, 8, 3, [2, 5]),
        (8, 2, -3, [8, 5]),
        (-100, 100, 1, list(range(10))),
        (2**62, -(2**62), -1, list(range(9, -1, -1))),
        (-54, -36, -2, [0]),  # a reverse start before the axis takes its first element
        (3, 3, 1, []),
    ],
)
def test_cpu_values(start: int, stop: int, step: int, cpu: list[float]) -> None:
    bounds = [np.array([v], np.int64) for v in (start, stop, step)]
    (result,) = compute(Slice8({}), [X, *bounds])
    assert result is not None
    np.testing.assert_array_equal(result, np.array(cpu, np.float32))


def test_axes_pick_what_is_cut() -> None:
    data = np.arange(12, dtype=np.int32).reshape(3, 4)
    bounds = [np.array(v, np.int64) for v in ([-1, 1], [0, 3], [-1, 1], [1, -2])]
    (result,) = compute(Slice8({}), [data, *bounds])
    assert result is not None
    np.testing.assert_array_equal(result, data[1:3, 3:0:-1])


DATA = TensorInfo(element_type("f32"), Shape.of(3, 4))
ONE = info("i64", [1])


@pytest.mark.parametrize(
    ("data", "bounds", "message"),
    [
        (TensorInfo(element_type("f32"), Shape.of()), [ONE] * 3, "can't be a scalar"),
        (DATA, [info("f32", [1.0]), ONE, ONE], "`start` input type must be integer"),
        (DATA, [ONE, info("i64", [[1]]), ONE], "`stop` input must be a 1D tensor. Got rank: 2"),
        (DATA, [ONE, info("i64", [1, 2]), ONE], "must have compatible shapes"),
        (DATA, [ONE, ONE, ONE, info("i64", [0, 1])], "`axes` input must have compatible"),
        (DATA, [info("i64", [0] * 3)] * 3, "can't be bigger than `data` rank"),
        (DATA, [ONE, ONE, info("i64", [0])], "Step must be non-zero"),
        (DATA, [ONE, ONE, ONE, info("i64", [2])], r"Axis 2 out of the tensor rank range"),
        (DATA, [info("i64", [0, 0])] * 2 + [info("i64", [1, 1]), info("i64", [1, -1])], "unique"),
    ],
)
def test_read_model_refuses(data: TensorInfo, bounds: list[TensorInfo], message: str) -> None:
    with pytest.raises(ShapeError, match=message):
        Slice8({}).infer([data, *bounds], quiet_context())


def test_a_dynamic_rank_checks_only_types() -> None:
    data = TensorInfo(element_type("f32"), Shape.dynamic())
    (out,) = Slice8({}).infer([data, ONE, info("i64", [[1]]), ONE], quiet_context())
    assert out.shape == Shape.dynamic()


@pytest.mark.parametrize(
    ("dim", "start", "stop", "step", "openvino"),
    [  # read_model's output dims
        (Dim(2, 20), 1, -1, 1, "..18"),
        (Dim(2, 20), -1, 5, 1, "?"),
        (Dim(2, 20), -3, 100, 1, "2..3"),
        (Dim.dynamic(), -3, 100, 1, "..100"),
        (Dim.dynamic(), 1, 3, 1, "..2"),
        (Dim.dynamic(), 1, 8, 2, "..4"),
        (Dim.dynamic(), 8, 1, -2, "..4"),
        (Dim.dynamic(), 0, 10, 1, "..10"),
    ],
)
def test_interval_lengths(dim: Dim, start: int, stop: int, step: int, openvino: str) -> None:
    data = TensorInfo(element_type("f32"), Shape((dim, Dim.static(4))))
    bounds = [info("i64", [v]) for v in (start, stop, step, 0)]
    (out,) = Slice8({}).infer([data, *bounds], quiet_context())
    assert str(out.shape) == f"[{openvino},4]"


def test_bounds_known_at_run_time_keep_each_axis_upper_end() -> None:
    runtime = TensorInfo(element_type("i64"), Shape.of(2))
    (out,) = Slice8({}).infer([DATA, runtime, runtime, runtime], quiet_context())
    assert str(out.shape) == "[..3,..4]"


def test_values_and_bounds_flow() -> None:
    dims = Shape((Dim.dynamic(), Dim(6, 10), Dim.static(7), Dim.static(4)))
    (shape,) = ShapeOf3({"output_type": "i64"}).infer(
        [TensorInfo(element_type("f32"), dims)], quiet_context()
    )
    bounds = [info("i64", [v]) for v in (1, 3, 1)]
    (cut,) = Slice8({}).infer([shape, *bounds], quiet_context())
    assert cut.bounds is not None and [str(d) for d in cut.bounds.dims()] == ["6..10", "7"]
    known = info("i64", [5, 6, 7])
    (folded,) = Slice8({}).infer([known, *[info("i64", [v]) for v in (-1, 0, -2)]], quiet_context())
    assert folded.value is not None and folded.value.tolist() == [7]


def test_explain_names_the_bounds() -> None:
    bounds: list[Any] = [info("i64", [v]) for v in (1, 3, 1, 0)]
    explanation = Slice8({}).explain([DATA, *bounds], [])
    assert explanation is not None and "start 1; stop 3; step 1; axes 0" in explanation.settings


INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


@pytest.mark.parametrize(
    ("start", "stop", "step", "at_run_time", "taken"),
    [  # data 10..14; the CPU's outputs for Parameters (run time) and Consts
        (-1, INT64_MIN, -2, True, [14, 12]),  # stop wrapped to 0
        (-1, INT64_MIN, -2, False, [14, 12, 10]),  # a Const: to the first element
        (-1, INT64_MIN + 5, -2, True, []),  # stop 5
        (-1, -(2**31) - 1, -2, True, []),  # stop 2**31 - 1
        (-1, -(2**31), -2, True, [14, 12, 10]),  # fits in int32: as written
        (INT64_MIN + 1, -100, -1, True, [11, 10]),  # start 1
        (INT64_MIN, INT64_MIN, -3, True, []),  # start and stop 0
        (INT64_MIN, INT64_MIN, -3, False, [10]),
        (INT64_MAX, INT64_MIN, -3, True, [14, 11]),  # -1 and 0
    ],
)
def test_run_time_bounds_are_wrapped_to_int32(
    start: int, stop: int, step: int, at_run_time: bool, taken: list[int]
) -> None:
    op = Slice8({})
    op.run_time_bounds = (at_run_time,) * 3
    data = np.arange(10, 15)
    index = op.cut(data.shape, [np.array([v], np.int64) for v in (start, stop, step)])
    np.testing.assert_array_equal(data[index], np.array(taken, np.int64))
