"""GridSample-9: values as OpenVINO 2026.4.1's CPU plugin computes them (measured on AMD EPYC,
docs/ops/GridSample.md); the live comparison over many configurations is
tests/differential/test_grid_sample.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.cpu.isa import AVX2, AVX512_CORE
from irpool.execute.kernels import grid_sample
from irpool.ops.grid_sample import GridSample9
from tests.execute.running import compute

NAN = float("nan")
DATA = np.array([[[[1, 2, 4], [8, 16, 32]]]], np.float32)  # H 2, W 3
# (x, y): corners, the centre, a tie for nearest, outside, far outside, NaN, inf
POINTS = [(-1, -1), (0, 0), (1, 1), (0.5, 0), (-1.5, 0.25), (2.5, -3.0), (1 / 3, 0.5)]
POINTS += [(NAN, 0), (float("inf"), 0)]
GRID = np.array(POINTS, np.float32).reshape(1, 1, len(POINTS), 2)


def sample(data: Any, grid: Any, mode: str, padding: str, align: bool) -> Any:
    attrs = {"align_corners": align, "mode": mode, "padding_mode": padding}
    (result,) = compute(GridSample9(attrs), [data, grid])
    assert result is not None
    return result


@pytest.mark.parametrize(
    ("mode", "padding", "align", "cpu"),
    [  # the CPU's outputs at POINTS
        ("bilinear", "zeros", False, [0.25, 9.0, 8.0, 15.75, 0.0, 0.0, 24.0, NAN, NAN]),
        (
            "bilinear",
            "zeros",
            True,
            [1.0, 9.0, 32.0, 13.5, 2.6875, 0.0, 16.666667938232422, NAN, NAN],
        ),
        ("bilinear", "border", False, [1.0, 9.0, 32.0, 15.75, 6.25, 4.0, 24.0, NAN, NAN]),
        (
            "bilinear",
            "border",
            True,
            [1.0, 9.0, 32.0, 13.5, 5.375, 4.0, 16.666667938232422, NAN, NAN],
        ),
        ("bilinear", "reflection", False, [1.0, 9.0, 32.0, 15.75, 7.8125, 10.0, 24.0, NAN, NAN]),
        (
            "bilinear",
            "reflection",
            True,
            [1.0, 9.0, 32.0, 13.5, 8.0625, 12.0, 16.666667938232422, NAN, NAN],
        ),
        (
            "bicubic",
            "zeros",
            False,
            [
                -0.0634765625,
                10.6875,
                10.185546875,
                21.3958740234375,
                -0.7691802978515625,
                0.0,
                27.75,
                NAN,
                NAN,
            ],
        ),
        (
            "bicubic",
            "zeros",
            True,
            [
                1.0,
                10.6875,
                32.0,
                18.5361328125,
                2.6090850830078125,
                0.0,
                21.608797073364258,
                NAN,
                NAN,
            ],
        ),
        (
            "bicubic",
            "border",
            False,
            [0.3115234375, 9.0, 36.248046875, 16.119140625, 6.4140625, 4.0, 24.75, NAN, NAN],
        ),
        (
            "bicubic",
            "border",
            True,
            [1.0, 9.0, 32.0, 13.921875, 4.964019775390625, 4.0, 17.579282760620117, NAN, NAN],
        ),
        (
            "bicubic",
            "reflection",
            False,
            [
                -0.25390625,
                9.0,
                40.7421875,
                16.119140625,
                7.416259765625,
                10.767578125,
                24.75,
                NAN,
                NAN,
            ],
        ),
        (
            "bicubic",
            "reflection",
            True,
            [1.0, 9.0, 32.0, 14.765625, 7.0506591796875, 9.75, 19.695602416992188, NAN, NAN],
        ),
        ("nearest", "zeros", False, [1.0, 2.0, 0.0, 4.0, 0.0, 0.0, 32.0, 0.0, 0.0]),
        ("nearest", "zeros", True, [1.0, 2.0, 32.0, 4.0, 8.0, 0.0, 16.0, 0.0, 0.0]),
        ("nearest", "border", False, [1.0, 2.0, 32.0, 4.0, 8.0, 4.0, 32.0, 4.0, 4.0]),
        ("nearest", "border", True, [1.0, 2.0, 32.0, 4.0, 8.0, 4.0, 16.0, 4.0, 4.0]),
        ("nearest", "reflection", False, [1.0, 2.0, 32.0, 4.0, 8.0, 8.0, 32.0, 1.0, 1.0]),
        ("nearest", "reflection", True, [1.0, 2.0, 32.0, 4.0, 8.0, 8.0, 16.0, 1.0, 1.0]),
    ],
)
def test_cpu_values(mode: str, padding: str, align: bool, cpu: list[float]) -> None:
    result = sample(DATA, GRID, mode, padding, align)
    np.testing.assert_array_equal(result[0, 0, 0], np.array(cpu, np.float32))


@pytest.mark.parametrize(
    ("dtype", "mode", "cpu"),
    [  # 16- to 64-bit integers truncate; 8-bit ones, boolean and f16 round the f32 result
        (np.int32, "bilinear", [0, 9, 8, 15, 0, 0, 24, -(2**31), -(2**31)]),
        (np.int64, "bilinear", [0, 9, 8, 15, 0, 0, 24, -(2**31), -(2**31)]),
        (np.uint8, "bilinear", [0, 9, 8, 16, 0, 0, 24, 0, 0]),
        (np.int8, "bilinear", [0, 9, 8, 16, 0, 0, 24, 0, 0]),  # NaN: 0
        (np.bool_, "bilinear", [0, 1, 0, 1, 0, 0, 1, 0, 0]),  # 0.25 and NaN: false
        (np.float16, "bicubic", [-0.06348, 10.69, 10.19, 21.39, -0.769, 0, 27.75, NAN, NAN]),
    ],
)
def test_types_as_the_cpu(dtype: Any, mode: str, cpu: list[float]) -> None:
    result = sample(DATA.astype(dtype), GRID, mode, "zeros", False)
    assert result.dtype == dtype
    np.testing.assert_array_equal(result[0, 0, 0], np.array(cpu, dtype))


def test_nan_and_inf_in_data_reach_only_their_taps() -> None:
    data = np.array([[[[np.nan, 1.0], [np.inf, 2.0]]]], np.float32)
    grid = np.array([[[[1.0, -1.0], [1.0, 1.0], [-1.0, -1.0]]]], np.float32)
    result = sample(data, grid, "bilinear", "border", True)
    np.testing.assert_array_equal(result[0, 0, 0], [1.0, 2.0, np.nan])


def test_bicubic_weights_take_the_instruction_sets_rounding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """AVX-512 fuses 1.25t - 2.25 and 1.5 - 1.25t; the AVX2 kernel rounds 1.25t first
    (docs/ops/GridSample.md#values): the second weight of t = 0x3f1d89e1 and the third of
    0x3f50327a differ (by 2 ulp), the first and the last never."""
    t = np.array([0x3F1D89E1, 0x3F50327A], np.uint32).view(np.float32)
    weights = {}
    for isa in (AVX512_CORE, AVX2):
        monkeypatch.setattr(grid_sample, "cpu_isa", lambda isa=isa: isa)
        weights[isa] = [w.view(np.int32) for w in grid_sample.cubic_weights(t)]
    steps = [weights[AVX2][i] - weights[AVX512_CORE][i] for i in range(4)]
    assert [np.abs(step).tolist() for step in steps] == [[0, 0], [2, 0], [0, 2], [0, 0]]
