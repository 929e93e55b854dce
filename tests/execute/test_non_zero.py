"""NonZero-3: shapes as `read_model` infers them and indices as the CPU plugin gives them
(measured on OpenVINO 2026.4.1, docs/ops/NonZero.md), and a run whose later shapes follow
the count it computes; the live comparison is tests/differential/test_non_zero.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irpool
from irpool.element_types import element_type
from irpool.ops.base import TensorInfo
from irpool.ops.non_zero import NonZero3
from irpool.shape import Dim, Shape
from tests import ir
from tests.execute.running import compute, quiet_context


@pytest.mark.parametrize(
    ("shape", "inferred"),
    [
        (Shape.of(2, 3), "[2,..6]"),
        (Shape.of(0, 3), "[2,0]"),
        (Shape((Dim(1, 4), Dim.static(3))), "[2,..12]"),
        (Shape((Dim.dynamic(), Dim.static(3))), "[2,?]"),
        (Shape(()), "[?,?]"),  # a scalar
        (Shape.dynamic(), "[?,?]"),
    ],
)
def test_shapes_as_read_model_infers_them(shape: Shape, inferred: str) -> None:
    data = TensorInfo(element_type("f32"), shape)
    for output_type, kind in ((None, "i64"), ("i32", "i32"), ("i64", "i64")):
        attrs = {"output_type": output_type or "i64"}
        (out,) = NonZero3(attrs).infer([data], quiet_context())
        assert (str(out.shape), out.element_type) == (inferred, kind)
        assert out.value is None  # read_model folds no NonZero, even of a Const


@pytest.mark.parametrize(
    ("data", "cpu"),
    [  # the CPU's outputs
        (np.array([[0, 1.5, np.nan], [-0.0, np.inf, 0]], np.float32), [[0, 0, 1], [1, 2, 1]]),
        (np.array([0, -128, 127, 0], np.int8), [[1, 2]]),
        (np.array([[True, False], [False, True]]), [[0, 1], [0, 1]]),
        (np.array(3.0, np.float32), [[0]]),  # a scalar: one axis of one element
        (np.array(0.0, np.float32), np.zeros((1, 0))),
        (np.zeros((0, 3), np.float32), np.zeros((2, 0))),
    ],
)
def test_cpu_values(data: Any, cpu: Any) -> None:
    for output_type, dtype in (("i64", np.int64), ("i32", np.int32)):
        (result,) = compute(NonZero3({"output_type": output_type}), [data])
        assert result is not None and result.dtype == dtype
        np.testing.assert_array_equal(result, np.array(cpu, dtype).reshape(result.shape))


def _count_then_transpose(directory: Path) -> Path:
    """x [2,3] -> NonZero -> Transpose [count, 2] -> Result, and NonZero -> Result."""
    order = ir.const(2, "order", (1, 0))
    layers = [
        ir.parameter(0, "x", (2, 3)),
        ir.layer(
            1, "nz", "NonZero", "opset3", ir.data([("output_type", "i64")]),
            [ir.port(0, (2, 3))], [ir.port(1, (2, -1), "I64", "indices")],
        ),
        order,
        ir.layer(
            3, "t", "Transpose", "opset1", "",
            [ir.port(0, (2, -1), "I64"), ir.port(1, (2,), "I64")],
            [ir.port(2, (-1, 2), "I64", "pairs")],
        ),
        ir.result(4, "pairs_out", (-1, 2), "I64"),
        ir.result(5, "indices_out", (2, -1), "I64"),
    ]  # fmt: skip
    edges = [
        ir.edge(0, 0, 1, 0), ir.edge(1, 1, 3, 0), ir.edge(2, 0, 3, 1),
        ir.edge(3, 2, 4, 0), ir.edge(1, 1, 5, 0),
    ]  # fmt: skip
    return ir.write(directory, ir.net(layers, edges), ir.weights((1, 0)))


def test_later_layers_follow_the_count_it_computes(tmp_path: Path) -> None:
    model = irpool.load(_count_then_transpose(tmp_path))
    assert model.validate() == []
    for x, count in (
        (np.array([[0, 1.5, np.nan], [-0.0, np.inf, 0]], np.float32), 3),
        (np.zeros((2, 3), np.float32), 0),
        (np.ones((2, 3), np.float32), 6),
    ):
        outputs = model.run({"x": x})
        assert outputs["pairs"].shape == (count, 2)
        np.testing.assert_array_equal(outputs["pairs"], np.argwhere(x))
        np.testing.assert_array_equal(outputs["indices"], np.array(np.nonzero(x)))
