"""GatherElements-6, GatherND-5 and GatherND-8: shapes and refusals as OpenVINO 2026.4.1's
`read_model` gives them, values as its CPU plugin does (measured, docs/ops/GatherElements.md,
docs/ops/GatherND.md); the live comparison is tests/differential/test_gathers.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.element_types import element_type
from irpool.execute.errors import ExecutionError
from irpool.ops.base import ShapeError, TensorInfo
from irpool.ops.gather_elements import GatherElements6
from irpool.ops.gather_nd import GatherND5, GatherND8
from irpool.shape import Shape
from tests.execute.running import compute
from tests.ops.inferring import data, infer, parse

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def indices(shape: str, kind: str = "i64") -> TensorInfo:
    return TensorInfo(element_type(kind), parse(shape))


@pytest.mark.parametrize(
    ("op", "data_shape", "indices_shape", "expected"),
    [  # read_model's shapes
        (GatherND8({"batch_dims": 0}), "2,3,4", "5,2", "5,4"),
        (GatherND8({"batch_dims": 0}), "2,3,4", "5,3", "5"),
        (GatherND8({"batch_dims": 0}), "2,3,4", "2", "4"),
        (GatherND8({"batch_dims": 0}), "2,3,4", "5,0", "5,2,3,4"),
        (GatherND8({"batch_dims": 2}), "2,3,4", "2,3,5,1", "2,3,5"),
        (GatherND5({"batch_dims": 2}), "2,3,4", "2,3,5,1", "6,5"),
        (GatherND8({"batch_dims": 1}), "1..3,3,4", "2,5,1", "2,5,4"),
        (GatherND8({"batch_dims": 1}), "2,3,4", "?,5,1", "2,5,4"),
        (GatherND8({"batch_dims": 0}), "2,3,4", "2,?", "..."),
        (GatherElements6({"axis": 1}), "2,3", "2,5", "2,5"),
        (GatherElements6({"axis": -1}), "?,3", "2,?", "2,?"),
        (GatherElements6({"axis": 1}), "1..4,3", "3..6,2", "3..4,2"),
        (GatherElements6({"axis": 0}), "2,3", "...", "?,3"),
        (GatherElements6({"axis": 1}), "...", "2,3", "2,3"),
    ],
)
def test_shapes(op: Any, data_shape: str, indices_shape: str, expected: str) -> None:
    (out,) = infer(op, data(data_shape), indices(indices_shape))
    assert out.shape == parse(expected)


@pytest.mark.parametrize(
    ("op", "data_shape", "indices_shape", "kind", "message"),
    [
        (
            GatherND8({"batch_dims": 0}),
            "2,3,4",
            "5,4",
            "i64",
            "must not exceed a rank of data tensor",
        ),
        (
            GatherND8({"batch_dims": 1}),
            "2,3,4",
            "3,1",
            "i64",
            "Batch dimensions of data and indices",
        ),
        (GatherND8({"batch_dims": 3}), "2,3,4", "4,5,1", "i64", "must not exceed a rank of data"),
        (
            GatherND8({"batch_dims": 0}),
            "2,3,4",
            "5,2",
            "f32",
            "expected to be an integer type. Got: f32",
        ),
        (GatherND8({"batch_dims": 0}), "", "1", "i64", "Data rank must be at least 1."),
        (GatherElements6({"axis": 1}), "2,3", "3,5", "i64", "are not consistent"),
        (
            GatherElements6({"axis": 2}),
            "2,3",
            "2,3",
            "i64",
            r"Axis 2 out of the tensor rank range \[-2, 1\]",
        ),
        (
            GatherElements6({"axis": 0}),
            "2,3",
            "2",
            "i64",
            "rank must be equal. But instead got: 2 and 1",
        ),
        (
            GatherElements6({"axis": 1}),
            "2,3",
            "2,3",
            "u8",
            "int32 or int64 type. But instead got: u8",
        ),
    ],
)
def test_what_read_model_refuses(
    op: Any, data_shape: str, indices_shape: str, kind: str, message: str
) -> None:
    with pytest.raises(ShapeError, match=message):
        infer(op, data(data_shape), indices(indices_shape, kind))


def test_gather_nd_values() -> None:
    picks = np.array([[0, -1], [1, 2], [-2, 0]], np.int64)  # negative from the end
    (result,) = compute(GatherND8({"batch_dims": 0}), [X, picks])
    assert result is not None and result.tolist() == [
        list(range(8, 12)),
        list(range(20, 24)),
        list(range(4)),
    ]
    batched = np.array([[[1], [0]], [[2], [2]]], np.int64)
    (merged,) = compute(GatherND5({"batch_dims": 1}), [X, batched])
    (kept,) = compute(GatherND8({"batch_dims": 1}), [X, batched])
    assert merged is not None and kept is not None and merged.shape == kept.shape == (2, 2, 4)
    assert kept[1, 0].tolist() == list(range(20, 24))


@pytest.mark.parametrize("picks", [[[0, 3]], [[2, 0]], [[-3, 0]], np.zeros((2, 0), np.int64)])
def test_gather_nd_indices_the_cpu_reads_memory_with_are_refused(picks: Any) -> None:
    """Measured: [0, 3] reads the next row ([12..15]), [2, 0] and [-3, 0] memory outside the
    data, tuples of no index memory never written."""
    with pytest.raises(ExecutionError, match="irpool does not run it"):
        compute(GatherND8({"batch_dims": 0}), [X, np.array(picks, np.int64)])


def test_gather_elements_values() -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3) + 10
    picks = np.array([[0, -1, 2], [-3, 1, 0]], np.int64)
    (result,) = compute(GatherElements6({"axis": 1}), [x, picks])
    assert result is not None and result.tolist() == [[10, 12, 12], [13, 14, 13]]
    with pytest.raises(ExecutionError, match="exceed data size"):
        compute(GatherElements6({"axis": 1}), [x, np.array([[0, 3, 0], [0, 0, 0]])])


def test_known_values_flow_through_gather_elements() -> None:
    shape = TensorInfo(element_type("i64"), Shape.of(1, 3), np.array([[4, 5, 6]]))
    (out,) = infer(
        GatherElements6({"axis": 1}),
        shape,
        TensorInfo(element_type("i64"), Shape.of(1, 2), np.array([[2, 0]])),
    )
    assert out.value is not None and out.value.tolist() == [[6, 4]]
