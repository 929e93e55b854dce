"""Interpolate-1, -4 and -11 shape inference and the CPU's refusals, as OpenVINO 2026.4.1's
`read_model` and CPU plugin give them (measured 2026-12-06, docs/ops/Interpolate.md)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.cpu.refusals import check_refusals
from irpool.element_types import element_type
from irpool.ops.base import LayerContext, OpReport, ShapeError, TensorInfo
from irpool.ops.interpolate import Interpolate1, Interpolate4, Interpolate11
from irpool.rules import (
    CPU_INTERPOLATE_CUBIC_DEPTH,
    CPU_INTERPOLATE_PILLOW_AXES,
    CPU_INTERPOLATE_UNSUPPORTED,
)
from irpool.shape import Shape
from tests.ops.inferring import data, infer, parse, shape_of

ATTRS = {"mode": "nearest", "shape_calculation_mode": "scales",
         "coordinate_transformation_mode": "half_pixel", "nearest_mode": "round_prefer_floor",
         "antialias": False, "pads_begin": (), "pads_end": (), "cube_coeff": -0.75}  # fmt: skip


def known(kind: str, values: Any) -> TensorInfo:
    array = np.array(values, {"i64": np.int64, "i32": np.int32, "f32": np.float32}[kind])
    return TensorInfo(element_type(kind), Shape.of(*array.shape), array)


def run_time(kind: str, length: int) -> TensorInfo:
    return TensorInfo(element_type(kind), Shape.of(length))


@pytest.mark.parametrize(
    ("shape", "mode", "control", "axes", "pads", "out"),
    [  # OpenVINO's read_model
        ("1,1,4,5", "scales", known("f32", [0.75, 1.4]), [2, 3], (), "1,1,3,7"),
        ("1,1,4,5", "scales", known("f32", [1e-9, 3.3333]), [2, 3], (), "1,1,0,16"),
        ("1,1,4,5", "scales", known("f32", [np.inf, np.nan]), [2, 3], (), "1,1,0,0"),
        ("1,1,4,5", "sizes", known("i32", [6, 9, 3]), [2, 3], (), "1,1,6,9"),
        ("1,1,4,5", "sizes", known("i32", [3, 7]), [3, 3], (), "1,1,4,7"),
        ("1,1,4,5", "scales", known("f32", [2.0, 0.5]), [2, 3], (0, 0, 1, 1, 7), "1,1,10,3"),
        ("1,1,4..6,?", "scales", known("f32", [2.0, 2.0]), [2, 3], (), "1,1,8..12,?"),
        ("1,1,4,5", "scales", run_time("f32", 2), [2, 3], (), "1,1,?,?"),
        ("1,1,4,5", "sizes", shape_of("1,3..7"), [2, 3], (), "1,1,1,3..7"),
    ],
)
def test_interpolate11_shapes(
    shape: str, mode: str, control: TensorInfo, axes: list[int], pads: tuple[int, ...], out: str
) -> None:
    op = Interpolate11(ATTRS | {"shape_calculation_mode": mode, "pads_begin": pads})
    (result,) = infer(op, data(shape), control, known("i64", axes))
    assert result.shape == parse(out)


def test_run_time_axes_make_every_dim_dynamic() -> None:
    (result,) = infer(Interpolate11(ATTRS), data("1,1,2,3"), known("f32", [2.0]),
                      run_time("i64", 1))  # fmt: skip
    assert result.shape == parse("?,?,?,?")


def test_interpolate1_ignores_its_pads_and_sorts_its_axes() -> None:
    op = Interpolate1({"axes": (3, 2), "mode": "nearest", "align_corners": False,
                       "antialias": False, "pads_begin": (0, 0, 1, 2), "pads_end": ()})  # fmt: skip
    (result,) = infer(op, data("1,3,6,7"), known("i64", [3, 9]))
    assert result.shape == parse("1,3,3,9")


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ([known("i32", [3, 7]), known("i64", [2, 3])], "Scales element type must be f32"),
        ([known("f32", [2.0]), known("i64", [2, 4])], "All axes values should less than"),
        ([known("f32", [2.0]), known("i64", [-1])], "All axes values should less than"),
        ([known("f32", [2.0]), known("i64", [2, 3])], "does not match the number of axes 2"),
        ([known("f32", [[2.0, 2.0]]), known("i64", [2, 3])], r"Input \[1\] is not rank 1"),
        ([known("f32", [2.0]), known("f32", [3.0])], "Axes element type must be"),
    ],
)
def test_read_model_refuses(inputs: list[TensorInfo], message: str) -> None:
    with pytest.raises(ShapeError, match=message):
        Interpolate11(ATTRS).infer([data("1,1,4,5"), *inputs], LayerContext(
            frozenset(), lambda report: None, lambda *_: memoryview(b"")))  # fmt: skip


def test_interpolate4_checks_both_sizes_and_scales_types() -> None:
    inputs = [data("1,1,4,5"), known("i32", [3, 7]), known("i32", [1, 2]), known("i64", [2, 3])]
    with pytest.raises(ShapeError, match="Scales element type"):
        Interpolate4(ATTRS | {"shape_calculation_mode": "sizes"}).infer(inputs, LayerContext(
            frozenset(), lambda report: None, lambda *_: memoryview(b"")))  # fmt: skip


def refusals(op: Any, *inputs: TensorInfo) -> list[str]:
    reported: list[OpReport] = []
    check_refusals(op, list(inputs), LayerContext(frozenset(), reported.append,
                                                  lambda *_: memoryview(b"")))  # fmt: skip
    return [r.code for r in reported]


@pytest.mark.parametrize(
    ("attrs", "shape", "control", "axes", "codes"),
    [
        ({"mode": "bilinear_pillow"}, "2,3,4,5", [2.0, 2.0], [1, 3], [CPU_INTERPOLATE_PILLOW_AXES]),
        ({"mode": "bilinear_pillow"}, "2,3,4,5", [2.0, 2.0], [1, 2], []),
        ({"mode": "bicubic_pillow"}, "1,2,3,4,5", [2.0], [4], [CPU_INTERPOLATE_PILLOW_AXES]),
        ({"mode": "cubic"}, "3,4,5", [2.0, 2.0], [0, 2], [CPU_INTERPOLATE_CUBIC_DEPTH]),
        ({"mode": "cubic"}, "3,4,5", [2.0], [0], []),
        ({"mode": "nearest"}, "2,2,3,4", [2.0, 1.0, 1.0], [0, 1, 2], [CPU_INTERPOLATE_UNSUPPORTED]),
        ({"mode": "nearest"}, "2,2,3,4", [2.0, 2.0], [0, 2], []),
        (
            {"mode": "nearest", "pads_begin": (0, 0, 1)},
            "2,3,4",
            [2.0],
            [2],
            [CPU_INTERPOLATE_UNSUPPORTED],
        ),
        ({"mode": "nearest", "pads_begin": (0, 0, 1, 1)}, "1,3,4,5", [2.0, 2.0], [2, 3], []),
    ],
)
def test_cpu_refusals(
    attrs: dict[str, Any], shape: str, control: list[float], axes: list[int], codes: list[str]
) -> None:
    op = Interpolate11(ATTRS | attrs)
    assert refusals(op, data(shape), known("f32", control), known("i64", axes)) == codes


def test_interpolate1_area_and_pads_off_its_axes() -> None:
    base = {"axes": (2, 3), "mode": "area", "align_corners": False, "antialias": False,
            "pads_begin": (), "pads_end": ()}  # fmt: skip
    size = known("i64", [4, 4])
    assert refusals(Interpolate1(base), data("1,3,8,8"), size) == [CPU_INTERPOLATE_UNSUPPORTED]
    padded = Interpolate1(base | {"mode": "nearest", "pads_begin": (0, 1, 0, 0)})
    assert refusals(padded, data("1,3,8,8"), size) == [CPU_INTERPOLATE_UNSUPPORTED]
