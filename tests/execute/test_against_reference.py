"""Every strategy against the brute-force loops on generated geometries and element types."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irpool.execute.kernels.adaptive_avg_pool import adaptive_avg_pool
from irpool.execute.kernels.avg_pool import avg_pool
from irpool.ops.pooling_geometry import Window
from tests.scale import examples

from . import reference
from .strategies import avg_pool_strategies, run_avg_pool

DTYPES = ["float32", "float16", "float64", "int32", "int8", "uint8"]


@st.composite
def axis_windows(draw: st.DrawFn, count_padding: bool) -> Window:
    size = draw(st.integers(1, 9))
    kernel = draw(st.integers(1, 4))
    dilation = draw(st.integers(1, 3))
    stride = draw(st.integers(1, 3))
    dilated = (kernel - 1) * dilation + 1
    # Pads at or beyond the kernel are legal only when padding counts (exclude-pad=false).
    limit = 5 if count_padding else dilated - 1
    pad_begin, pad_end = draw(st.integers(0, limit)), draw(st.integers(0, limit))
    span = size + pad_begin + pad_end - dilated
    if span < 0:
        pad_end -= span  # keep the dilated kernel within the padded input, as the runtime does
        span = 0
    ceil = draw(st.booleans())  # ceil rounding: the last window may overhang the padded end
    out = -(-span // stride) + 1 if ceil else span // stride + 1
    return Window(size, out, kernel, stride, dilation, pad_begin)


@st.composite
def pool_cases(draw: st.DrawFn) -> tuple[np.ndarray, list[Window], bool]:
    count_padding = draw(st.booleans())
    rank = draw(st.integers(1, 3))
    windows = [draw(axis_windows(count_padding)) for _ in range(rank)]
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), *(w.size for w in windows))
    return random_data(shape, dtype, draw(st.integers(0, 2**32 - 1))), windows, count_padding


def random_data(shape: tuple[int, ...], dtype: np.dtype[Any], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype.kind == "f":
        return rng.normal(size=shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), shape, endpoint=True).astype(
        dtype
    )


def assert_matches(got: np.ndarray, want: np.ndarray, name: str) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, name
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want, err_msg=name)
        return
    # f16 rounds once from an f32 accumulator, so it may differ from the f64 reference by
    # one f16 step; f32 gets the tolerance.
    rtol, atol = {2: (1e-3, 1e-3), 4: (1e-5, 1e-6), 8: (1e-12, 1e-12)}[want.dtype.itemsize]
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=name)


def assert_every_strategy(
    x: np.ndarray, windows: list[Window], count_padding: bool, want: np.ndarray
) -> None:
    """The chosen strategy and every other that applies give `want`."""
    assert_matches(avg_pool(x, windows, count_padding), want, "chosen")
    for name, strategy in avg_pool_strategies(windows, count_padding, x.dtype).items():
        assert_matches(run_avg_pool(x, windows, count_padding, strategy), want, name)


@settings(max_examples=examples(300), deadline=None)
@given(pool_cases())
def test_avg_pool_strategies_match_brute_force(case: tuple[np.ndarray, list[Window], bool]) -> None:
    x, windows, count_padding = case
    assert_every_strategy(x, windows, count_padding, reference.avg_pool(x, windows, count_padding))


@settings(max_examples=examples(150), deadline=None)
@given(
    sizes=st.lists(st.tuples(st.integers(1, 9), st.integers(0, 9)), min_size=1, max_size=3),
    dtype=st.sampled_from(DTYPES),
    seed=st.integers(0, 2**32 - 1),
)
def test_adaptive_matches_brute_force(sizes: list[tuple[int, int]], dtype: str, seed: int) -> None:
    x = random_data((2, 3, *(s for s, _ in sizes)), np.dtype(dtype), seed)
    output_size = tuple(o for _, o in sizes)
    assert_matches(
        adaptive_avg_pool(x, output_size), reference.adaptive_avg_pool(x, output_size), "adaptive"
    )


@pytest.mark.parametrize(
    "windows",
    [
        [Window(6, 3, 3, 2, 1, 1), Window(9, 9, 3, 1, 1, 1)],
        [Window(6, 3, 3, 2, 1, 1), Window(10, 5, 3, 2, 1, 1)],  # stride-2 last axis: casts
    ],
)
def test_blocks_and_non_contiguous_input(windows: list[Window]) -> None:
    """Many N×C planes run in several blocks; a transposed input gives the same answer."""
    shape = (3, 40, *(w.size for w in windows))
    x = np.random.default_rng(0).normal(size=shape).astype(np.float32)
    swapped = np.ascontiguousarray(x.transpose(1, 0, 2, 3)).transpose(1, 0, 2, 3)
    want = reference.avg_pool(x, windows, False)
    for name, strategy in avg_pool_strategies(windows, False, x.dtype).items():
        strategy.chunk_bytes = 4 * windows[0].size * windows[1].size * 7  # 7 planes per block
        assert_matches(run_avg_pool(swapped, windows, False, strategy), want, name)


def padded_sums(x: np.ndarray, windows: list[Window], count_padding: bool) -> np.ndarray:
    """AvgPool in f64 by summing strided slices of a zero-padded copy, one per tap."""
    pads = [(w.pad_begin, max(0, (w.out - 1) * w.stride + (w.kernel - 1) * w.dilation
             + 1 - w.size - w.pad_begin)) for w in windows]  # fmt: skip
    data = np.pad(x.astype(np.float64), [(0, 0), (0, 0), *pads])
    real = np.pad(np.ones(x.shape[2:]), pads)
    sums = np.zeros((*x.shape[:2], *(w.out for w in windows)))
    counts = np.zeros(tuple(w.out for w in windows))
    for taps in itertools.product(*(range(w.kernel) for w in windows)):
        where = tuple(
            slice(j * w.dilation, j * w.dilation + (w.out - 1) * w.stride + 1, w.stride)
            for j, w in zip(taps, windows, strict=True)
        )
        sums += data[(slice(None), slice(None), *where)]
        counts += real[where]
    divisor = np.prod([w.kernel for w in windows]) if count_padding else np.maximum(counts, 1)
    return (sums / divisor).astype(x.dtype)


def square(size: int, kernel: int, stride: int, pad: int, rank: int = 2) -> list[Window]:
    out = (size + 2 * pad - kernel) // stride + 1
    return [Window(size, out, kernel, stride, 1, pad)] * rank


@pytest.mark.parametrize(
    ("shape", "windows", "count_padding"),
    [
        pytest.param((1, 5, 112, 112), square(112, 3, 2, 1), False, id="W1"),
        pytest.param((1, 7, 28, 28), square(28, 3, 1, 1), False, id="W2"),
        pytest.param((1, 3, 224, 224), square(224, 7, 1, 3), True, id="W3"),
        pytest.param((1, 3, 16, 56, 56), [square(16, 3, 2, 1)[0], *square(56, 3, 2, 1)], False,
                     id="W6"),
        pytest.param((2, 3, 56, 56), square(56, 2, 2, 0), False, id="W7"),
        pytest.param((1, 3, 8, 8), square(8, 2, 2, 0), False, id="W8"),
        pytest.param((1, 2, 112, 112), square(112, 31, 1, 15), False, id="K31"),
    ],
)  # fmt: skip
def test_benchmark_geometries(
    shape: tuple[int, ...], windows: list[Window], count_padding: bool
) -> None:
    """The benchmark's workloads (fewer planes), through every strategy that applies."""
    x = random_data(shape, np.dtype(np.float32), 0)
    assert_every_strategy(x, windows, count_padding, padded_sums(x, windows, count_padding))
