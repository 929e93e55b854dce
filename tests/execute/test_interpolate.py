"""Interpolate-1, -4 and -11: values as OpenVINO 2026.4.1's CPU plugin computes them (measured
2026-12-06, docs/ops/Interpolate.md); the live comparison over many configurations is
tests/differential/test_interpolate.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.execute.kernels.interpolate import nearest_indices, source_coordinates, taken
from irpool.ops.interpolate import Interpolate1, Interpolate4, Interpolate11
from tests.execute.running import compute

X = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)


def v11(mode: str, calculation: str, **more: Any) -> Interpolate11:
    attrs = {
        "mode": mode, "shape_calculation_mode": calculation,
        "coordinate_transformation_mode": "half_pixel", "nearest_mode": "round_prefer_floor",
        "antialias": False, "pads_begin": (), "pads_end": (), "cube_coeff": -0.75,
    }  # fmt: skip
    return Interpolate11(attrs | more)


def last(values: Any, kind: Any = np.float32) -> list[np.ndarray[Any, Any]]:
    """Inputs resizing the last axis by these scales (or to these sizes)."""
    return [np.array(values, kind), np.array([3], np.int64)]


@pytest.mark.parametrize(
    ("op", "controls", "cpu"),
    [  # the CPU's first row
        (
            v11("cubic", "scales", coordinate_transformation_mode="asymmetric"),
            last([2.0]),
            [0.0, 0.40625, 1.0, 1.5, 2.0, 2.59375, 3.0, 3.09375],
        ),
        (
            v11("bicubic_pillow", "sizes"),
            last([6], np.int64),
            [-0.06578921, 0.41176474, 1.166666, 1.8333337, 2.5882354, 3.0657895],
        ),
        (v11("nearest", "scales"), last([1.5]), [0, 0, 1, 2, 2, 3]),
        (v11("nearest", "scales", nearest_mode="simple"), last([0.75]), [1, 2, 3]),
        (v11("bilinear_pillow", "sizes"), last([2], np.int64), [0.71428573, 2.2857144]),
    ],
)
def test_cpu_values(op: Interpolate11, controls: list[Any], cpu: list[float]) -> None:
    (result,) = compute(op, [X, *controls])
    assert result is not None
    np.testing.assert_allclose(result[0, 0, 0], cpu, rtol=1e-6, atol=1e-6)


def test_interpolate4_linear_below_rank_5_is_linear_onnx() -> None:
    attrs = dict(v11("linear", "sizes").attrs)
    sizes, scales = np.array([6, 6], np.int64), np.array([1, 1], np.float32)
    (result,) = compute(Interpolate4(attrs), [X, sizes, scales, np.array([2, 3], np.int64)])
    assert result is not None
    cpu = [[0, 0.5, 1.1666666, 1.8333333, 2.5, 3], [2, 2.5, 3.1666665, 3.833333, 4.5, 5]]
    np.testing.assert_allclose(result[0, 0, :2], cpu, rtol=1e-6)


def test_interpolate1_runs_as_the_plugin_rewrites_it() -> None:
    """linear_onnx, half_pixel only off axes {2, 3} of rank 4: asymmetric here."""
    x = np.arange(20, dtype=np.float32).reshape(1, 1, 4, 5)
    attrs = {"axes": (2, 3), "mode": "linear", "align_corners": False, "antialias": False,
             "pads_begin": (), "pads_end": ()}  # fmt: skip
    (result,) = compute(Interpolate1(attrs), [x, np.array([3, 7], np.int64)])
    assert result is not None
    cpu = [6.666667, 7.3809524, 8.095239, 8.809524, 9.523809, 10.238095, 10.666667]
    np.testing.assert_allclose(result[0, 0, 1], cpu, rtol=1e-6)


@pytest.mark.parametrize(
    ("values", "mode", "cpu"),
    [
        (np.array([0, 255, 3, 4], np.uint8), "linear_onnx", [0, 128, 255, 129, 3, 4, 4, 4]),
        (
            np.array([-(2**31) + 5, 7, 16777217, 3], np.int32),
            "nearest",
            [-(2**31), -(2**31), 7, 7, 16777216, 16777216, 3, 3],
        ),  # through float32
    ],
)
def test_integer_types(values: Any, mode: str, cpu: list[int]) -> None:
    op = v11(mode, "scales", coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    (result,) = compute(op, [values.reshape(1, 1, 1, 4), *last([2.0])])
    assert result is not None and result.dtype == values.dtype
    assert result.ravel().tolist() == cpu


def test_an_unresized_axis_weighs_its_neighbour_by_zero() -> None:
    """linear_onnx resizing axis 2 of rank 4 computes axis 3 too: inf beside gives NaN."""
    x = np.zeros((1, 1, 2, 4), np.float32)
    x[0, 0, 0, 1] = np.inf
    op = v11("linear_onnx", "scales", coordinate_transformation_mode="asymmetric")
    (result,) = compute(op, [x, np.array([2.0], np.float32), np.array([2], np.int64)])
    assert result is not None
    assert result[0, 0, 0].tolist()[:3] == [pytest.approx(np.nan, nan_ok=True), np.inf, 0.0]


def test_antialias_upsampling_gives_zeros_between_inputs() -> None:
    x = np.arange(8, dtype=np.float32).reshape(1, 1, 1, 1, 8)
    op = v11("linear", "scales", coordinate_transformation_mode="asymmetric", antialias=True)
    (result,) = compute(op, [x, np.array([2.0], np.float32), np.array([4], np.int64)])
    assert result is not None
    assert result.ravel().tolist() == [v for i in range(8) for v in (float(i), 0.0)]


def test_integer_upsampling_is_a_repeat() -> None:
    coords = source_coordinates(8, 4, 2.0, "asymmetric")
    index = nearest_indices(coords, "floor", False, 4)
    assert index.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(taken(data, 1, index), np.repeat(data, 2, axis=1))
