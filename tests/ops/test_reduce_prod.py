"""ReduceProd-1: known integer values fold (swin_t multiplies shape values), where OpenVINO's
int64 folding and the CPU's int32 kernel agree; the kernel's integers wrap as the CPU's
(docs/ops/ReduceProd.md; the live comparison is tests/differential/test_reduce_prod.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.element_types import element_type
from irpool.execute.errors import ExecutionError
from irpool.ops.base import TensorInfo
from irpool.ops.reduce import ReduceProd1
from irpool.shape import Shape
from tests.execute.running import compute, quiet_context


def _info(values: Any, kind: str = "i64") -> TensorInfo:
    array = np.array(values, element_type(kind).dtype)
    return TensorInfo(element_type(kind), Shape.of(*array.shape), array)


@pytest.mark.parametrize(
    ("data", "axes", "keep", "value"),
    [
        ([8, 7, 7], [0], False, 392),  # a window's elements from its shape
        ([[2, 3], [4, 5]], [-1], True, [[6], [20]]),
        ([[2, 3], [4, 5]], [0, 1, 0], False, 120),  # a repeated axis counts once
    ],
)
def test_known_shape_values_fold(data: Any, axes: Any, keep: bool, value: Any) -> None:
    op = ReduceProd1({"keep_dims": keep})
    (out,) = op.infer([_info(data), _info(axes)], quiet_context())
    assert out.value is not None
    np.testing.assert_array_equal(out.value, np.array(value, np.int64))


def test_products_beyond_int32_are_not_folded() -> None:
    op = ReduceProd1({"keep_dims": False})
    (out,) = op.infer([_info([65536, 65536]), _info([0])], quiet_context())
    assert out.value is None and out.shape == Shape.of()


def test_integer_products_wrap_to_int32_as_the_cpu_s() -> None:
    data = np.array([[65536, 65537], [-3, 5]], np.int64)
    (result,) = compute(ReduceProd1({"keep_dims": False}), [data, np.array([1], np.int64)])
    np.testing.assert_array_equal(result, np.array([65536, -15], np.int64))


@pytest.mark.parametrize(
    ("dtype", "rows", "cpu"),
    [  # measured on the CPU plugin, docs/ops/ReduceProd.md
        (np.uint8, [[2, 3, 1], [16, 16, 1], [128, 255, 1], [100, 0, 200]], [6, 255, 255, 0]),
        (np.uint8, [[181, 181, 1], [1, 1, 255], [2, 2, 64], [0, 0, 0]], [255, 255, 255, 0]),
        (np.int8, [[-2, 3, 1], [-127, 1, 1], [-1, -1, -1], [1, 0, -90]], [-6, -127, -1, 0]),
        (np.int8, [[5, 5, 5], [-5, 5, 5], [127, 1, 1], [-3, -7, -1]], [125, -125, 127, -21]),
    ],
)
def test_eight_bit_products_below_the_kernels_disagreement(
    dtype: Any, rows: list[list[int]], cpu: list[int]
) -> None:
    data = np.array(rows, dtype)
    (result,) = compute(ReduceProd1({"keep_dims": False}), [data, np.array([1], np.int64)])
    np.testing.assert_array_equal(result, np.array(cpu, dtype))


@pytest.mark.parametrize(
    ("dtype", "row"),
    [  # the CPU gives 0 or 255, -127 or -128, depending on the kernel the shape selects
        (np.uint8, [1, 200, 200]),
        (np.uint8, [128, 128, 2]),
        (np.int8, [2, 64, -1]),
        (np.int8, [-128, 1, 1]),
    ],
)
def test_eight_bit_products_where_the_kernels_disagree_are_refused(
    dtype: Any, row: list[int]
) -> None:
    data = np.array([row, [1, 1, 1]], dtype)
    with pytest.raises(ExecutionError, match="depends on the kernel the shape selects"):
        compute(ReduceProd1({"keep_dims": False}), [data, np.array([1], np.int64)])
