"""CumSum-3: values as OpenVINO 2026.4.1's CPU plugin gives them (measured, docs/ops/CumSum.md)
and the axes `read_model` and the CPU refuse; the live comparison is
tests/differential/test_cumsum.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.cpu.refusals import check_refusals
from irpool.element_types import element_type
from irpool.execute.errors import ExecutionError
from irpool.ops.base import LayerContext, OpReport, ShapeError, TensorInfo
from irpool.ops.cumsum import CumSum3
from irpool.rules import CPU_CUMSUM_AXIS
from irpool.shape import Shape
from tests.execute.running import _no_weights, compute
from tests.ops.inferring import const, data, infer, parse

F32_MAX = float(np.finfo(np.float32).max)


def cumsum(values: Any, dtype: Any, exclusive: bool = False, reverse: bool = False) -> Any:
    op = CumSum3({"exclusive": exclusive, "reverse": reverse})
    (result,) = compute(op, [np.array([values], dtype), np.array(1, np.int64)])
    assert result is not None and result.dtype == np.dtype(dtype)
    return result.tolist()[0]


@pytest.mark.parametrize(
    ("values", "dtype", "cpu"),
    [
        ([2**30] * 3, np.int32, [2**30, -(2**31), -(2**30)]),  # wrapped
        ([2**24, 1, 1], np.int32, [2**24, 2**24 + 1, 2**24 + 2]),  # not through f32
        ([100, 100, -100], np.int8, [100, -56, 100]),
        ([200, 100], np.uint8, [200, 44]),
        ([30000, 30000, 5], np.int16, [30000, -5536, -5531]),
        ([2**32 - 1, 2, 5], np.uint32, [2**32 - 1, 1, 6]),
        ([2**40, 1], np.int64, [0, 1]),  # held as int32
        ([2**40, 2, 5], np.uint64, [0, 2, 7]),
        ([60000, 60000, -60000], np.float16, [60000, np.inf, 60000]),  # summed in f32
        ([1e300, 1e300, -1e300], np.float64, [F32_MAX] * 3),  # held as f32
    ],
)
def test_values_as_the_cpu_holds_them(values: list[Any], dtype: Any, cpu: list[Any]) -> None:
    assert cumsum(values, dtype) == cpu


def test_floats_keep_negative_zero_and_nan() -> None:
    assert [np.signbit(v) for v in cumsum([-0.0, -0.0], np.float32)] == [True, True]
    assert [np.signbit(v) for v in cumsum([-0.0, -0.0], np.float32, exclusive=True)] == [False] * 2
    result = cumsum([1.0, np.nan, 2.0, np.inf], np.float32)
    assert result[0] == 1.0 and all(np.isnan(result[1:]))


@pytest.mark.parametrize(
    ("exclusive", "reverse", "cpu"),
    [
        (False, False, [1, 3, 6]),
        (True, False, [0, 1, 3]),
        (False, True, [6, 5, 3]),
        (True, True, [5, 3, 0]),
    ],
)
def test_exclusive_and_reverse(exclusive: bool, reverse: bool, cpu: list[int]) -> None:
    assert cumsum([1, 2, 3], np.int32, exclusive, reverse) == cpu


def test_boolean_sums_wrap_as_u8() -> None:
    """Measured: the 256th true of a row of trues is false."""
    result = cumsum([True] * 300, np.bool_)
    assert result[254] and not result[255] and result[256]


def test_an_axis_the_cpu_refuses_at_run_time() -> None:
    with pytest.raises(ExecutionError, match="scalar axis in range"):
        compute(CumSum3({"exclusive": False, "reverse": False}), [np.ones((2, 3)), np.array(2)])


def test_shapes_and_read_model_refusals() -> None:
    op = CumSum3({"exclusive": False, "reverse": False})
    (out,) = infer(op, data("?,2..8"), const(1))
    assert out.shape == parse("?,2..8")
    axis = TensorInfo(element_type("f32"), Shape.of(), np.array(1, np.float32))
    with pytest.raises(ShapeError, match="either int64_t or int32_t but got"):
        infer(op, data("2,3"), axis)


@pytest.mark.parametrize(
    ("axis", "code"),
    [
        ([1], CPU_CUMSUM_AXIS),
        (2, CPU_CUMSUM_AXIS),
        (-3, CPU_CUMSUM_AXIS),
        (-2, None),
    ],
)
def test_axes_the_cpu_refuses(axis: Any, code: str | None) -> None:
    reported: list[OpReport] = []
    context = LayerContext(frozenset(), reported.append, _no_weights)
    op = CumSum3({"exclusive": False, "reverse": False})
    check_refusals(op, [data("2,3"), const(axis)], context)
    assert [r.code for r in reported] == ([code] if code else [])
