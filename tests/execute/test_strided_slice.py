"""StridedSlice-1 on hand-checked inputs, each expected value the CPU plugin's (measured on
OpenVINO 2026.4.1, docs/ops/StridedSlice.md); the live comparison over many configurations is
tests/differential/test_strided_slice.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.ops.base import ShapeError
from irpool.ops.strided_slice import StridedSlice1
from tests.execute.running import compute

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
MASKS = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")


def op(count: int, **masks: list[int]) -> StridedSlice1:
    return StridedSlice1({name: tuple(masks.get(name, [0] * count)) for name in MASKS})


@pytest.mark.parametrize(
    ("begin", "end", "strides", "masks", "cpu"),
    [
        ([0, 1], [2, 3], [1, 1], {}, X[0:2, 1:3]),
        ([1, 1], [2, 3], [1, 1], {"begin_mask": [1, 0]}, X[:, 1:3]),
        ([1, -1], [0, 0], [1, -1], {"begin_mask": [1, 0], "end_mask": [0, 1]}, X[0:0]),
        ([1, 2], [0, 0], [1, 1], {"shrink_axis_mask": [1, 1]}, X[1, 2]),
        ([0, 1], [0, 3], [1, 2], {"new_axis_mask": [1, 0]}, X[None, 1:3:2]),
        (
            [0, -1],
            [0, 0],
            [1, 1],
            {"ellipsis_mask": [1, 0], "shrink_axis_mask": [0, 1]},
            X[..., -1],
        ),
        ([-100, 100], [100, -100], [1, -1], {}, X[:, ::-1]),  # clamped to the axes
        ([2], [-5], [-2], {}, X[1:]),
    ],
)
def test_values(
    begin: list[int], end: list[int], strides: list[int], masks: dict[str, Any], cpu: Any
) -> None:
    arrays = [X, np.array(begin, np.int64), np.array(end, np.int64), np.array(strides, np.int64)]
    (result,) = compute(op(len(begin), **masks), arrays)
    np.testing.assert_array_equal(result, cpu)


def test_a_shrunk_axis_under_begin_mask_takes_index_0() -> None:
    arrays = [X, np.array([1], np.int64), np.array([1], np.int64), np.array([1], np.int64)]
    (result,) = compute(op(1, begin_mask=[1], shrink_axis_mask=[1]), arrays)
    np.testing.assert_array_equal(result, X[0])


def test_without_strides_each_is_1() -> None:
    (result,) = compute(op(1), [X, np.array([1], np.int64), np.array([2], np.int64)])
    np.testing.assert_array_equal(result, X[1:2])


def test_a_shrunk_index_outside_its_axis_is_refused_at_run_time() -> None:
    arrays = [X, np.array([7], np.int64), np.array([1], np.int64), np.array([1], np.int64)]
    layer = op(1, shrink_axis_mask=[1])
    layer.run_time_bounds = (True, True, False)  # as `for_layer` marks a run-time begin
    with pytest.raises(ShapeError, match="index 7 of an axis of 2"):
        layer.index(X.shape, arrays[1:])
