"""ScatterElementsUpdate-3 and -12: shapes and refusals as OpenVINO 2026.4.1's `read_model`
gives them, values as its CPU plugin computes them (measured,
docs/ops/ScatterElementsUpdate.md); the live comparison is
tests/differential/test_scatter_elements_update.py."""

from __future__ import annotations

import numpy as np
import pytest

from irpool.element_types import element_type
from irpool.execute.errors import ExecutionError
from irpool.ops.base import ShapeError, TensorInfo
from irpool.ops.scatter_elements_update import ScatterElementsUpdate3, ScatterElementsUpdate12
from tests.execute.running import compute
from tests.ops.inferring import const, data, infer, parse

NAN = float("nan")
F32_MAX = float(np.finfo(np.float32).max)


def scatter(
    reduction: str, init: bool, values: list[float], updates: list[float], picks: list[int]
) -> list[float]:
    op = ScatterElementsUpdate12({"reduction": reduction, "use_init_val": init})
    arrays = [
        np.array(values, np.float32),
        np.array(picks, np.int64),
        np.array(updates, np.float32),
        np.array(0, np.int64),
    ]
    (result,) = compute(op, arrays)
    assert result is not None
    return [float(v) for v in result]


@pytest.mark.parametrize(
    ("reduction", "init", "cpu"),
    [  # data [1,2,3,4], updates [10,20,30,40] at [1,1,3,1]: measured
        ("none", True, [1, 40, 3, 30]),  # the last duplicate wins
        ("sum", True, [1, 72, 3, 34]),
        ("sum", False, [1, 70, 3, 30]),
        ("prod", True, [1, 16000, 3, 120]),
        ("min", True, [1, 2, 3, 4]),
        ("min", False, [1, 10, 3, 30]),
        ("max", True, [1, 40, 3, 30]),
        ("mean", True, [1, 18, 3, 17]),
    ],
)
def test_reductions(reduction: str, init: bool, cpu: list[float]) -> None:
    assert scatter(reduction, init, [1, 2, 3, 4], [10, 20, 30, 40], [1, 1, 3, 1]) == cpu


@pytest.mark.parametrize(
    ("reduction", "init", "values", "updates", "cpu"),
    [  # measured: a NaN update is dropped, a NaN already there stays; no init starts at ±FLT_MAX
        ("max", True, [NAN], [1.0], NAN),
        ("max", True, [1.0], [NAN, 2.0], 2.0),
        ("max", False, [1.0], [NAN], -F32_MAX),
        ("min", True, [5.0], [NAN, 2.0, NAN], 2.0),
        ("min", False, [1.0], [NAN], F32_MAX),
    ],
)
def test_nan_as_the_cpu_compares(
    reduction: str, init: bool, values: list[float], updates: list[float], cpu: float
) -> None:
    (result,) = scatter(reduction, init, values, updates, [0] * len(updates))
    assert result == cpu or (np.isnan(cpu) and np.isnan(result))


def test_integer_means_truncate_toward_zero() -> None:
    op = ScatterElementsUpdate12({"reduction": "mean", "use_init_val": True})
    picks = np.array([[1, 1, 3, 1]], np.int64)
    for sign, cpu in ((1, [1, 18, 3, 17]), (-1, [1, -17, 3, -13])):
        updates = sign * np.array([[10, 21, 30, 41]], np.int32)
        (result,) = compute(op, [np.array([[1, 2, 3, 4]], np.int32), picks, updates, np.array(1)])
        assert result is not None and result.tolist() == [cpu]


def test_negative_indices_and_out_of_range() -> None:
    op = ScatterElementsUpdate3({})
    x, updates = np.array([[1, 2, 3, 4]], np.float32), np.array([[10, 20, 30, 40]], np.float32)
    (result,) = compute(op, [x, np.array([[-1, -4, 0, 2]]), updates, np.array(1)])
    assert result is not None and result.tolist() == [[30, 2, 40, 10]]
    with pytest.raises(ExecutionError, match="non-existing output tensor element"):
        compute(op, [x, np.array([[4, 0, 0, 0]]), updates, np.array(1)])


def _tensor(kind: str, shape: str) -> TensorInfo:
    return TensorInfo(element_type(kind), parse(shape))


@pytest.mark.parametrize(
    ("indices", "updates", "axis", "message"),
    [
        (
            _tensor("i64", "2,2"),
            _tensor("f32", "2,3"),
            const(1),
            "Indices and updates input shapes are required to be equal",
        ),
        (
            _tensor("i64", "2"),
            _tensor("f32", "2"),
            const(0),
            "Indices rank and data rank are required to be equal. Got: 1 and: 2",
        ),
        (
            _tensor("i64", "2,2"),
            _tensor("f32", "2,2"),
            const(2),
            r"Axis 2 out of the tensor rank range \[-2, 1\]",
        ),
        (
            _tensor("i64", "2,2"),
            _tensor("f32", "2,2"),
            const([[1]]),
            "scalar or 1D tensor. Got: \\[1,1\\]",
        ),
        (
            _tensor("f32", "2,2"),
            _tensor("f32", "2,2"),
            const(1),
            "Indices element type must be integral_number, but is: f32",
        ),
        (
            _tensor("i64", "2,2"),
            _tensor("i32", "2,2"),
            const(1),
            "Data type and updates type are required to be the same",
        ),
    ],
)
def test_what_read_model_refuses(
    indices: TensorInfo, updates: TensorInfo, axis: TensorInfo, message: str
) -> None:
    with pytest.raises(ShapeError, match=message):
        infer(ScatterElementsUpdate3({}), data("2,3"), indices, updates, axis)


def test_the_output_is_the_data() -> None:
    (out,) = infer(
        ScatterElementsUpdate12({"reduction": "sum", "use_init_val": False}),
        data("?,3"),
        _tensor("i64", "3,4"),
        _tensor("f32", "3,4"),
        const(1),
    )
    assert out.shape == parse("?,3")
