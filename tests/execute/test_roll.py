"""Roll-7: the shift and axes OpenVINO's `read_model` and CPU plugin take, and values as the
CPU computes them (measured on OpenVINO 2026.4.1, docs/ops/Roll.md); the live comparison
over many configurations is tests/differential/test_roll.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.cpu.refusals import check_refusals
from irpool.element_types import element_type
from irpool.ops.base import LayerContext, OpReport, ShapeError, TensorInfo
from irpool.ops.roll import Roll7
from irpool.rules import CPU_ROLL_SCALAR_SHIFT
from irpool.shape import Shape
from tests.execute.running import _no_weights, compute, info, quiet_context

X = np.arange(12, dtype=np.float32).reshape(3, 4)


@pytest.mark.parametrize(
    ("shift", "axes", "cpu"),
    [  # the CPU's outputs
        (1, 0, [[8, 9, 10, 11], [0, 1, 2, 3], [4, 5, 6, 7]]),
        ([-1, 2], [0, 1], [[6, 7, 4, 5], [10, 11, 8, 9], [2, 3, 0, 1]]),
        ([1, 1], [1, 1], [[2, 3, 0, 1], [6, 7, 4, 5], [10, 11, 8, 9]]),  # repeats add up
        ([5], [-1], [[3, 0, 1, 2], [7, 4, 5, 6], [11, 8, 9, 10]]),
    ],
)
def test_cpu_values(shift: Any, axes: Any, cpu: list[list[float]]) -> None:
    arrays = [X, np.array(shift, np.int64), np.array(axes, np.int64)]
    (result,) = compute(Roll7({}), arrays)
    assert result is not None
    np.testing.assert_array_equal(result, np.array(cpu, np.float32))


@pytest.mark.parametrize(
    ("dtype", "values", "cpu"),
    [
        (np.int64, [2**40 + 5, -1, 7], [7, 5, -1]),  # wrapped to int32
        (np.float64, [1e300, np.nan, -0.0], [-0.0, 3.4028234663852886e38, np.nan]),
        (np.int8, [-128, 5, 127], [127, -128, 5]),
        (np.bool_, [True, False, True], [True, True, False]),
    ],
)
def test_types_held_as_the_cpu(dtype: Any, values: list[Any], cpu: list[Any]) -> None:
    arrays = [np.array(values, dtype), np.array([1], np.int64), np.array([0], np.int64)]
    (result,) = compute(Roll7({}), arrays)
    assert result is not None
    np.testing.assert_array_equal(result, np.array(cpu, dtype))


@pytest.mark.parametrize(
    ("shift", "axes", "message"),
    [
        (info("i64", [1]), info("i64", 1), "If shift is a 1D vector"),
        (info("i64", [1, 2]), info("i64", [0]), "If shift is a 1D vector"),
        (info("i64", [[1]]), info("i64", [0]), "Shift must be a scalar or 1D tensor"),
        (info("f32", [1.0]), info("i64", [0]), "Shift must have int32 or int64"),
        (info("i64", [1]), info("f32", [0.0]), "Axes must have int32 or int64"),
        (info("i64", [1]), info("i64", [2]), r"Axis 2 out of the tensor rank range \[-2, 1\]"),
    ],
)
def test_read_model_refuses(shift: TensorInfo, axes: TensorInfo, message: str) -> None:
    data = TensorInfo(element_type("f32"), Shape.of(3, 4))
    with pytest.raises(ShapeError, match=message):
        Roll7({}).infer([data, shift, axes], quiet_context())


def test_a_scalar_shift_with_several_axes_cannot_compile() -> None:
    reported: list[OpReport] = []
    context = LayerContext(frozenset(), reported.append, _no_weights)
    data = TensorInfo(element_type("f32"), Shape.of(3, 4))
    inputs = [data, info("i64", 2), info("i64", [0, 1])]
    (out,) = Roll7({}).infer(inputs, context)
    assert out.shape == data.shape and reported == []  # read_model takes it
    check_refusals(Roll7({}), inputs, context)
    assert [r.code for r in reported] == [CPU_ROLL_SCALAR_SHIFT]


@pytest.mark.parametrize(
    ("size", "shifts", "moved"),
    [  # the CPU's moves along one axis, i64 shifts as inputs (measured, docs/ops/Roll.md)
        (7, [2**32 + 3, 0], 3),  # an i64 input is wrapped to int32
        (3, [2, 2**31 - 1, 2**31 - 1], 2),  # Consts 2, 2**40 + 9, 2**40 + 1 as held
        (5, [-8, 2**31 - 1], 3),  # 2 + (2**31 - 1) wraps to -2**31 + 1
        (7, [1, 2**31 - 1], 5),
        (7, [2**31 - 1, 1], 2),
        (7, [-1, -(2**31)], 4),
        (7, [2**40 + 5, 1], 6),
        (7, [2**31, 0], 5),
    ],
)
def test_shifts_accumulate_as_int32(size: int, shifts: list[int], moved: int) -> None:
    data = np.arange(size, dtype=np.float32)
    arrays = [data, np.array(shifts, np.int64), np.zeros(len(shifts), np.int64)]
    (result,) = compute(Roll7({}), arrays)
    np.testing.assert_array_equal(result, np.roll(data, moved))
