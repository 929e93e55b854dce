"""Every strategy against the brute-force loops on generated geometries and element types."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from irpool.execute.adaptive_avg_pool import adaptive_avg_pool
from irpool.execute.avg_pool import avg_pool
from irpool.execute.window import Window

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


@settings(max_examples=300, deadline=None)
@given(pool_cases())
def test_avg_pool_strategies_match_brute_force(case: tuple[np.ndarray, list[Window], bool]) -> None:
    x, windows, count_padding = case
    want = reference.avg_pool(x, windows, count_padding)
    assert_matches(avg_pool(x, windows, count_padding), want, "chosen")
    for name, strategy in avg_pool_strategies(windows, count_padding, x.dtype).items():
        assert_matches(run_avg_pool(x, windows, count_padding, strategy), want, name)


@settings(max_examples=150, deadline=None)
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


def test_blocks_and_non_contiguous_input() -> None:
    """Many N×C planes run in several blocks; a transposed input gives the same answer."""
    x = np.random.default_rng(0).normal(size=(3, 40, 6, 9)).astype(np.float32)
    windows = [Window(6, 3, 3, 2, 1, 1), Window(9, 9, 3, 1, 1, 1)]
    swapped = np.ascontiguousarray(x.transpose(1, 0, 2, 3)).transpose(1, 0, 2, 3)
    want = reference.avg_pool(x, windows, False)
    for name, strategy in avg_pool_strategies(windows, False, x.dtype).items():
        strategy.chunk_bytes = 4 * 6 * 9 * 7  # seven planes per block
        assert_matches(run_avg_pool(swapped, windows, False, strategy), want, name)
