"""Tile-1: shapes as OpenVINO's `read_model` infers them (intervals, values and bounds of
shape subgraphs), values and refusals as its CPU plugin gives them (measured on OpenVINO
2026.4.1, docs/ops/Tile.md); the live comparison is tests/differential/test_tile.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.cpu.refusals import check_refusals
from irpool.element_types import element_type
from irpool.ops.base import LayerContext, OpReport, ShapeError, TensorInfo
from irpool.ops.tile import Tile1
from irpool.rules import CPU_TILE_NEGATIVE_REPEAT
from irpool.shape import Shape
from tests.execute.running import _no_weights, compute
from tests.ops.inferring import const, data, infer, parse, shape_of


@pytest.mark.parametrize(
    ("shape", "repeats", "expected"),
    [  # read_model's shapes
        ("2,3", [2, 2], "4,6"),
        ("2,3", [3], "2,9"),  # repeats padded with 1 in front
        ("2,3", [2, 1, 2], "2,2,6"),  # the data's shape padded with 1 in front
        ("2,3", [], "2,3"),
        ("2,3", [-1, 2], "0,6"),  # a negative repeat as 0
        ("?,3", [2, 2], "?,6"),
        ("2..5,3", [3, 1], "6..15,3"),
        ("?,?", [0, 1], "0,?"),
        ("", [2, 3], "2,3"),
        ("...", [2], "..."),
    ],
)
def test_shapes(shape: str, repeats: list[int], expected: str) -> None:
    (out,) = infer(Tile1({}), data(shape), const(repeats))
    assert out.shape == parse(expected)


def test_repeats_known_by_their_length_only() -> None:
    repeats = TensorInfo(element_type("i64"), Shape.of(3))
    (out,) = infer(Tile1({}), data("2,3"), repeats)
    assert out.shape == parse("?,?,?")


def test_a_shape_subgraph_flows_through_its_bounds() -> None:
    """ShapeOf of [?,2..8] tiled twice: the bounds a Reshape reads as its pattern."""
    (out,) = infer(Tile1({}), shape_of("?,2..8"), const([2]))
    assert out.value is None and out.bounds is not None
    assert str(Shape(tuple(out.bounds.dims()))) == "[?,2..8,?,2..8]"
    (known,) = infer(Tile1({}), shape_of("4,5"), const([2]))
    assert known.value is not None and known.value.tolist() == [4, 5, 4, 5]


@pytest.mark.parametrize(
    ("repeats", "message"),
    [
        (np.array([[2, 2]], np.int64), "must be of rank 1"),
        (np.array([2.0, 2.0], np.float32), "must have any integer element type, but has f32"),
    ],
)
def test_repeats_read_model_refuses(repeats: Any, message: str) -> None:
    kind = element_type("f32" if repeats.dtype.kind == "f" else "i64")
    info = TensorInfo(kind, Shape.of(*repeats.shape), repeats)
    with pytest.raises(ShapeError, match=message):
        infer(Tile1({}), data("2,3"), info)


@pytest.mark.parametrize(
    ("repeats", "shape"),
    [([2, 1], (4, 3)), ([-1, 2], (0, 6)), ([2**33 + 1, 1], (2, 3)), ([1, 2, 1], (1, 4, 3))],
)  # measured: a repeat given at run time is held as int32 (2**33 + 1 tiles once)
def test_values(repeats: list[int], shape: tuple[int, ...]) -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    (result,) = compute(Tile1({}), [x, np.array(repeats, np.int64)])
    assert result is not None and result.shape == shape
    reps = [max(int(np.int32(np.int64(r))), 0) for r in repeats]
    np.testing.assert_array_equal(result, np.tile(x, reps))


def test_types_held_as_the_cpu_holds_them() -> None:
    """Measured: f64 through f32 (1e300 and inf saturated), i64 wrapped to int32."""
    floats = np.array([1e300, np.inf], np.float64)
    (result,) = compute(Tile1({}), [floats, np.array([2], np.int64)])
    assert result is not None and result.tolist() == [float(np.finfo(np.float32).max)] * 4
    (ints,) = compute(Tile1({}), [np.array([2**40 + 5, 2**31], np.int64), np.array([2], np.int64)])
    assert ints is not None and ints.tolist() == [5, -(2**31), 5, -(2**31)]


def test_a_negative_constant_repeat_is_a_cpu_crash() -> None:
    reported: list[OpReport] = []
    context = LayerContext(frozenset(), reported.append, _no_weights)
    check_refusals(Tile1({}), [data("1"), const([-1])], context)
    assert [r.code for r in reported] == [CPU_TILE_NEGATIVE_REPEAT]
    reported.clear()
    check_refusals(Tile1({}), [data("1"), const([0])], context)
    assert not reported
