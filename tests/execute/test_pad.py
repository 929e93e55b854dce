"""Pad-12: the CPU's elements in each mode (negative pads cut without moving the mirror), its
pad_value on integers, and what read_model refuses (measured on OpenVINO 2026.4.1,
docs/ops/Pad.md); the live comparison is tests/differential/test_pad.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.cpu.refusals import check_refusals
from irpool.element_types import element_type
from irpool.ops.base import LayerContext, OpReport, ShapeError, TensorInfo
from irpool.ops.pad import Pad12
from irpool.rules import CPU_PAD_CUTS_PAST_AXIS
from irpool.shape import Dim, Shape
from tests.execute.running import _no_weights, compute, info, quiet_context

X = np.array([1, 2, 3, 4], np.float32)


@pytest.mark.parametrize(
    ("mode", "begin", "end", "cpu"),
    [  # the CPU's outputs
        ("reflect", 2, 1, [3, 2, 1, 2, 3, 4, 3]),
        ("reflect", -1, 2, [2, 3, 4, 3, 2]),
        ("reflect", 2, -1, [3, 2, 1, 2, 3]),
        ("symmetric", -2, 3, [3, 4, 4, 3, 2]),
        ("edge", 1, 2, [1, 1, 2, 3, 4, 4, 4]),
        ("constant", 1, -2, [0, 1, 2]),
    ],
)
def test_cpu_values(mode: str, begin: int, end: int, cpu: list[float]) -> None:
    arrays = [X, np.array([begin], np.int64), np.array([end], np.int64)]
    (result,) = compute(Pad12({"pad_mode": mode}), arrays)
    assert result is not None
    np.testing.assert_array_equal(result, np.array(cpu, np.float32))


@pytest.mark.parametrize(
    ("dtype", "fill", "cpu"),
    [(np.uint32, -7, 2**31), (np.int64, 2**31, -(2**31)), (np.int32, -7, -7)],
)
def test_integer_pad_value_through_f32(dtype: Any, fill: int, cpu: int) -> None:
    data = np.array([5], dtype)
    arrays = [data, np.array([1], np.int64), np.array([0], np.int64), np.array(fill).astype(dtype)]
    (result,) = compute(Pad12({"pad_mode": "constant"}), arrays)
    assert result is not None and result.tolist() == [cpu, 5]


DATA = TensorInfo(element_type("f32"), Shape.of(4))


@pytest.mark.parametrize(
    ("mode", "pads", "message"),
    [
        ("reflect", [info("i64", [4]), info("i64", [0])], "REFLECT padding mode requires"),
        ("symmetric", [info("i64", [5]), info("i64", [0])], "SYMMETRIC padding mode requires"),
        ("constant", [info("f32", [1.0]), info("i64", [0])], "must be an integral number"),
        ("constant", [info("i64", [1, 2]), info("i64", [1])], "expect 1, but got 2"),
        ("constant", [info("i64", [1]), info("i64", [1]), info("f32", [1.0])], "not a scalar"),
        ("constant", [info("i64", [1]), info("i64", [1]), info("i32", 1)], "types do not match"),
    ],
)
def test_read_model_refuses(mode: str, pads: list[TensorInfo], message: str) -> None:
    with pytest.raises(ShapeError, match=message):
        Pad12({"pad_mode": mode}).infer([DATA, *pads], quiet_context())


def test_edge_refuses_padding_an_empty_axis() -> None:
    empty = TensorInfo(element_type("f32"), Shape.of(0))
    with pytest.raises(ShapeError, match="EDGE padding mode requires"):
        Pad12({"pad_mode": "edge"}).infer(
            [empty, info("i64", [1]), info("i64", [0])], quiet_context()
        )


@pytest.mark.parametrize(
    ("dim", "begin", "end", "openvino"),
    [(Dim.static(4), -5, 0, "?"), (Dim(2, 5), 1, -3, "..3"), (Dim(2, 5), 1, 2, "5..8")],
)
def test_padded_dims(dim: Dim, begin: int, end: int, openvino: str) -> None:
    data = TensorInfo(element_type("f32"), Shape((dim,)))
    pads = [info("i64", [begin]), info("i64", [end])]
    (out,) = Pad12({"pad_mode": "constant"}).infer([data, *pads], quiet_context())
    assert str(out.shape) == f"[{openvino}]"


def test_a_cut_past_the_axis_cannot_run() -> None:
    reported: list[OpReport] = []
    context = LayerContext(frozenset(), reported.append, _no_weights)
    pads = [info("i64", [-5]), info("i64", [2])]
    Pad12({"pad_mode": "constant"}).infer([DATA, *pads], context)
    assert reported == []  # read_model takes it
    check_refusals(Pad12({"pad_mode": "constant"}), [DATA, *pads], context)
    assert [r.code for r in reported] == [CPU_PAD_CUTS_PAST_AXIS]
