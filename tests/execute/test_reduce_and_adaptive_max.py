"""ReduceMean, ReduceMax and AdaptiveMaxPool kernels against element-by-element loops.

The loops spell out the CPU plugin's scans as measured (docs/ops/ReduceMax.md#the-cpus-scan):
AdaptiveMaxPool
starts each bin from its first element and takes a later one only when strictly greater;
ReduceMax starts from the lowest f32 value and runs `acc = acc if acc > v else v`, so a NaN
replaces the running maximum and the next element replaces the NaN; integer means are
truncated toward zero, and a u8 sum saturates at 255.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from irpool.cpu.numerics import moved_as_held
from irpool.execute.kernels.adaptive_max_pool import adaptive_bins, adaptive_max_pool
from irpool.execute.kernels.reduce import FLOAT_LOWEST, reduce_max, reduce_mean
from irpool.execute.kernels.reduce_order import SEQUENTIAL, scan_run
from tests.scale import examples

FLOAT_TYPES = ["float32", "float16", "float64"]
INTEGER_TYPES = ["int32", "int64", "int8", "uint8"]
SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0]


@st.composite
def arrays(draw: st.DrawFn, ranks: tuple[int, int], dtypes: list[str]) -> NDArray[Any]:
    """Small arrays with many ties; floats sometimes hold NaN, inf and signed zeros."""
    rank = draw(st.integers(*ranks))
    shape = tuple(draw(st.integers(1, 5)) for _ in range(rank))
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    size = int(np.prod(shape))
    if dtype.kind == "f":
        elements = st.one_of(st.integers(-3, 3).map(float), st.sampled_from(SPECIAL))
    else:
        elements = st.integers(0 if dtype.kind == "u" else -8, 8).map(float)
    values = draw(st.lists(elements, min_size=size, max_size=size))
    return np.array(values, dtype=np.float64).reshape(shape).astype(dtype)


def reduced_rows(x: NDArray[Any], axes: tuple[int, ...]) -> dict[tuple[int, ...], list[Any]]:
    """For every kept index, the reduced elements in row-major order."""
    rows: dict[tuple[int, ...], list[Any]] = {}
    for index in itertools.product(*(range(n) for n in x.shape)):
        kept = tuple(i for axis, i in enumerate(index) if axis not in axes)
        rows.setdefault(kept, []).append(x[index])
    return rows


def scan_max(row: list[Any], dtype: np.dtype[Any]) -> Any:
    if dtype.kind != "f":
        return max(row)
    best = np.float64(FLOAT_LOWEST)
    for value in row:
        best = best if best > value else value
    return best


def exact_mean(row: list[Any], dtype: np.dtype[Any]) -> Any:
    if dtype.kind != "f":
        total = 0
        for value in row:
            total += int(value)
            if dtype == np.uint8:
                total = min(total, 255)  # the CPU's running u8 sum saturates
        return int(Fraction(total, len(row)))  # int() truncates toward zero
    return np.mean(np.array(row, np.float64))


def brute_reduce(x: NDArray[Any], axes: tuple[int, ...], keep_dims: bool, mean: bool) -> Any:
    rows = reduced_rows(x, axes)
    kept_shape = tuple(n for axis, n in enumerate(x.shape) if axis not in axes)
    out = np.empty(kept_shape, np.float64 if x.dtype.kind == "f" else np.int64)
    for kept, row in rows.items():
        out[kept] = exact_mean(row, x.dtype) if mean else scan_max(row, x.dtype)
    if keep_dims:
        out = out.reshape([1 if axis in axes else n for axis, n in enumerate(x.shape)])
    return out.astype(x.dtype)


@st.composite
def reductions(draw: st.DrawFn) -> tuple[NDArray[Any], tuple[int, ...], bool]:
    x = draw(arrays((1, 4), FLOAT_TYPES + INTEGER_TYPES))
    axes = draw(st.sets(st.integers(0, x.ndim - 1), min_size=1))
    return x, tuple(sorted(axes)), draw(st.booleans())


@settings(max_examples=examples(150), deadline=None)
@given(reductions())
def test_reduce_max_matches_the_cpu_scan(case: tuple[NDArray[Any], tuple[int, ...], bool]) -> None:
    x, axes, keep_dims = case
    # This loop is the CPU's one-by-one scan; where the CPU scans in SIMD lanes a NaN lands
    # elsewhere (tests/differential/test_reduce_max_lanes.py holds those against the CPU).
    assume(scan_run(x.shape, axes) == SEQUENTIAL or not np.isnan(x).any())
    with np.errstate(over="ignore"):  # the f32 start value becomes -inf in f16
        # f64 as the CPU holds it: the f32 value, inf saturated to FLT_MAX
        expected = brute_reduce(moved_as_held(x), axes, keep_dims, mean=False)
        actual = reduce_max(x, axes, keep_dims)
    assert actual.dtype == x.dtype
    np.testing.assert_array_equal(actual, expected)


@settings(max_examples=examples(150), deadline=None)
@given(reductions())
def test_reduce_mean_matches_exact_means(case: tuple[NDArray[Any], tuple[int, ...], bool]) -> None:
    x, axes, keep_dims = case
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf; f16 overflow
        expected = brute_reduce(x, axes, keep_dims, mean=True)
    actual = reduce_mean(x, axes, keep_dims)
    assert actual.dtype == x.dtype and actual.shape == expected.shape
    if x.dtype.kind == "f":
        tolerance = 1e-3 if x.dtype == np.float16 else 1e-6
        np.testing.assert_allclose(actual, expected, rtol=tolerance, atol=tolerance)
    else:
        np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([np.nan, 1, 2], 2.0),
        ([1, np.nan, 2], 2.0),
        ([1, 2, np.nan], np.nan),
        ([5, np.nan, 1], 1.0),  # the element after the NaN replaces it: 5 is lost
        ([-np.inf, -np.inf], FLOAT_LOWEST),
        ([np.nan, -np.inf], -np.inf),  # after a NaN, the next element restarts the scan
    ],
)
def test_reduce_max_places_nan_and_inf_as_measured(values: list[float], expected: float) -> None:
    actual = reduce_max(np.array([values], np.float32), (1,), False)
    np.testing.assert_array_equal(actual, np.array([expected], np.float32))


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "uint8", "int8"])
def test_empty_axis(dtype: str) -> None:
    """Measured: the mean of nothing is 0; the maximum of nothing is the scan's start value."""
    x = np.zeros((2, 0, 3), dtype)
    lowest = {"float32": FLOAT_LOWEST, "float16": -np.inf}.get(dtype)
    start = np.iinfo(dtype).min if lowest is None else lowest
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(reduce_max(x, (1,), False), np.full((2, 3), start, dtype))
    np.testing.assert_array_equal(reduce_mean(x, (1,), True), np.zeros((2, 1, 3), dtype))


def test_no_axes() -> None:
    """ReduceMean copies; ReduceMax scans each element alone, so -inf becomes the start value."""
    x = np.array([[0, -np.inf, np.nan], [np.inf, -1, 2]], np.float32)
    mean = reduce_mean(x, (), False)
    np.testing.assert_array_equal(mean, x)
    assert mean is not x
    expected = np.array([[0, FLOAT_LOWEST, np.nan], [np.inf, -1, 2]], np.float32)
    np.testing.assert_array_equal(reduce_max(x, (), True), expected)


def brute_adaptive_max(x: NDArray[Any], output_size: tuple[int, ...]) -> tuple[Any, Any]:
    spatial = x.shape[2:]
    bins = [adaptive_bins(size, out) for size, out in zip(spatial, output_size, strict=True)]
    values = np.empty((*x.shape[:2], *output_size), x.dtype)
    indices = np.empty(values.shape, np.int64)
    for n, c, *out in itertools.product(*(range(d) for d in values.shape)):
        box = [range(*bins[axis][o]) for axis, o in enumerate(out)]
        positions = list(itertools.product(*box))
        best = positions[0]
        for position in positions[1:]:
            if x[(n, c, *position)] > x[(n, c, *best)]:
                best = position
        values[(n, c, *out)] = x[(n, c, *best)]
        indices[(n, c, *out)] = np.ravel_multi_index(best, spatial)
    return values, indices


@st.composite
def adaptive_cases(draw: st.DrawFn) -> tuple[NDArray[Any], tuple[int, ...]]:
    x = draw(arrays((3, 5), FLOAT_TYPES + INTEGER_TYPES))
    # Up to twice the input: bins overlap when upsampling.
    return x, tuple(draw(st.integers(1, 2 * d)) for d in x.shape[2:])


@settings(max_examples=examples(150), deadline=None)
@given(adaptive_cases(), st.sampled_from(["int32", "int64"]))
def test_adaptive_max_pool_matches_the_bin_scan(
    case: tuple[NDArray[Any], tuple[int, ...]], index_type: str
) -> None:
    x, output_size = case
    values, indices = adaptive_max_pool(x, output_size, np.dtype(index_type))
    expected_values, expected_indices = brute_adaptive_max(x, output_size)
    assert values.dtype == x.dtype and indices.dtype == np.dtype(index_type)
    np.testing.assert_array_equal(values, expected_values)
    np.testing.assert_array_equal(indices, expected_indices)


def test_adaptive_max_pool_nan_stays_only_as_a_bins_first_element() -> None:
    x = np.array([[[np.nan, 1, 2], [1, np.nan, 2], [1, 2, np.nan], [np.nan] * 3]], np.float32)
    values, indices = adaptive_max_pool(x, (1,), np.dtype(np.int32))
    np.testing.assert_array_equal(values.ravel(), [np.nan, 2, 2, np.nan])
    assert indices.ravel().tolist() == [0, 2, 1, 0]


def test_adaptive_max_pool_indices_are_plane_offsets() -> None:
    """Measured on CPU: 2x3x5x6 arange to 2x4; the offsets restart in every (n, c) plane."""
    x = np.arange(2 * 3 * 5 * 6, dtype=np.float32).reshape(2, 3, 5, 6)
    values, indices = adaptive_max_pool(x, (2, 4), np.dtype(np.int32))
    assert indices[1, 2].tolist() == [[13, 14, 16, 17], [25, 26, 28, 29]]
    assert values[1, 2].tolist() == [[163, 164, 166, 167], [175, 176, 178, 179]]
