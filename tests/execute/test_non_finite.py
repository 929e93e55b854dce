"""inf, -inf and NaN change only the windows that hold them, in every strategy; a window whose
f32 sum leaves the range gives ±inf, as on the CPU plugin
(docs/ops/AvgPool.md#non-finite-values-and-overflow)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irpool.execute.kernels import adaptive_avg_pool as adaptive_module
from irpool.execute.kernels import avg_pool as avg_pool_module
from irpool.execute.kernels.adaptive_avg_pool import adaptive_avg_pool
from irpool.ops.pooling_geometry import Window
from tests.scale import examples

from . import reference
from .strategies import adaptive_strategies, run_adaptive
from .test_against_reference import (
    assert_every_strategy,
    assert_matches,
    axis_windows,
    padded_sums,
    random_data,
)

# The references add inf to -inf, and overflow f32 sums, on purpose.
pytestmark = [
    pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning"),
    pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning"),
]

FLOATS = ["float32", "float16", "float64"]
NON_FINITE = np.array([np.inf, -np.inf, np.nan])
BIG = 3e38  # three of them overflow an f32 sum
# Values whose running sums overflow in some orders and not in others.
EXTREMES = np.array([BIG, -BIG, 2e38, -2e38, 1e38, -1e38, 1.0, -2.5, np.inf, -np.inf, np.nan])
F32 = np.dtype(np.float32)


def sprinkle(x: np.ndarray, seed: int) -> np.ndarray:
    """`x` with one to four of its values (anywhere, repeats allowed) made inf, -inf or NaN."""
    rng = np.random.default_rng(seed)
    count = int(rng.integers(1, 5))
    flat = x.reshape(-1).copy()
    flat[rng.integers(0, flat.size, count)] = rng.choice(NON_FINITE, count)
    return flat.reshape(x.shape)


def assert_every_adaptive(x: np.ndarray, output_size: tuple[int, ...], want: np.ndarray) -> None:
    assert_matches(adaptive_avg_pool(x, output_size), want, "chosen")
    for name, strategy in adaptive_strategies(x.shape[2:], output_size, x.dtype).items():
        assert_matches(run_adaptive(x, output_size, strategy), want, name)


@st.composite
def pool_cases(draw: st.DrawFn) -> tuple[np.ndarray, list[Window], bool]:
    count_padding = draw(st.booleans())
    windows = [draw(axis_windows(count_padding)) for _ in range(draw(st.integers(1, 3)))]
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), *(w.size for w in windows))
    x = random_data(shape, np.dtype(draw(st.sampled_from(FLOATS))), draw(st.integers(0, 2**32)))
    return sprinkle(x, draw(st.integers(0, 2**32))), windows, count_padding


@settings(max_examples=examples(300), deadline=None)
@given(pool_cases())
def test_avg_pool_non_finite_in_every_strategy(case: tuple[np.ndarray, list[Window], bool]) -> None:
    x, windows, count_padding = case
    # f64 sums of finite inputs never overflow: NaN and inf only where a window holds one.
    assert_every_strategy(x, windows, count_padding, reference.avg_pool(x, windows, count_padding))


@settings(max_examples=examples(200), deadline=None)
@given(
    sizes=st.lists(st.tuples(st.integers(1, 9), st.integers(1, 12)), min_size=1, max_size=3),
    dtype=st.sampled_from(FLOATS),
    seeds=st.tuples(st.integers(0, 2**32), st.integers(0, 2**32)),
)
def test_adaptive_non_finite_in_every_strategy(
    sizes: list[tuple[int, int]], dtype: str, seeds: tuple[int, int]
) -> None:
    """Down- and up-sampling (boxes overlap when the output is larger)."""
    x = sprinkle(random_data((2, 2, *(s for s, _ in sizes)), np.dtype(dtype), seeds[0]), seeds[1])
    output_size = tuple(o for _, o in sizes)
    assert_every_adaptive(x, output_size, reference.adaptive_avg_pool(x, output_size))


def square(size: int, kernel: int, stride: int, pad: int, rank: int) -> list[Window]:
    return [Window(size, (size + 2 * pad - kernel) // stride + 1, kernel, stride, 1, pad)] * rank


@pytest.mark.parametrize(
    ("shape", "windows", "count_padding"),
    [
        pytest.param((1, 2, 112, 112), square(112, 31, 1, 15, 2), False, id="K31"),
        pytest.param((1, 2, 224, 224), square(224, 7, 1, 3, 2), True, id="W3"),
        pytest.param((1, 3, 112, 112), square(112, 3, 2, 1, 2), False, id="W1"),
        pytest.param((1, 2, 8, 20, 20), [Window(8, 4, 3, 2, 1, 1), *square(20, 3, 2, 1, 2)], False,
                     id="3D"),
        pytest.param((2, 2, 300), square(300, 64, 4, 0, 1), True, id="1D-k64"),
        pytest.param((1, 2, 30, 30), square(30, 30, 1, 0, 2), False, id="whole"),
    ],
)  # fmt: skip
def test_large_geometries_with_non_finite(
    shape: tuple[int, ...], windows: list[Window], count_padding: bool
) -> None:
    """Large kernels and planes (banded matrix blocks, long running sums), every strategy."""
    x = sprinkle(random_data(shape, np.dtype(np.float32), 1), 2)
    x[0, -1, 3:9] = np.inf  # several in one plane, some windows holding inf and -inf
    x[0, -1, 5] = -np.inf
    assert_every_strategy(x, windows, count_padding, padded_sums(x, windows, count_padding))


@pytest.mark.parametrize(
    ("spatial", "output_size"),
    [((14, 14), (5, 5)), ((13, 13), (6, 6)), ((7, 7), (1, 1)), ((224, 224), (1, 1)),
     ((40, 40), (70, 3)), ((6, 50, 50), (4, 5, 5))],
)  # fmt: skip
def test_large_adaptive_with_non_finite(
    spatial: tuple[int, ...], output_size: tuple[int, ...]
) -> None:
    x = sprinkle(random_data((1, 3, *spatial), np.dtype(np.float32), 3), 4)
    assert_every_adaptive(x, output_size, reference.adaptive_avg_pool(x, output_size))


def line(values: list[float], dtype: Any = np.float32) -> np.ndarray:
    return np.array(values, dtype).reshape(1, 1, -1)


@pytest.mark.parametrize(
    ("x", "kernel", "stride", "want"),
    [
        pytest.param(line([BIG] * 3), 3, 1, [np.inf], id="sum beyond f32 max"),
        pytest.param(line([-BIG] * 3), 3, 1, [-np.inf], id="sum below -f32 max"),
        # The CPU adds taps in order: BIG + BIG is already inf in the third window.
        pytest.param(line([BIG] * 4 + [-BIG]), 3, 1, [np.inf] * 3, id="running sum overflows"),
        pytest.param(line([-BIG, BIG, BIG]), 3, 1, [1e38], id="running sum stays in range"),
        pytest.param(line([6e4, 6e4, -6e4], np.float16), 3, 1, [2e4], id="f16 sums in f32"),
        pytest.param(line([1e308] * 3, np.float64), 3, 1, [np.inf], id="f64 sums in f64"),
        pytest.param(line([BIG, 1.0, 2.0, 3.0]), 2, 2, [BIG / 2, 2.5], id="large, in range"),
        pytest.param(
            line([-np.inf, BIG, BIG, 1.0, np.nan]),
            2,
            1,
            [-np.inf, np.inf, BIG / 2, np.nan],
            id="overflow and non-finite",
        ),
        pytest.param(line([-BIG, -BIG, np.inf]), 3, 1, [np.nan], id="-inf by overflow, then inf"),
        # Integers are summed exactly (the CPU wraps in i32 or rounds in f32 here).
        pytest.param(line([2**31 - 1] * 3, np.int32), 3, 1, [2**31 - 1], id="i32 max, exact"),
        pytest.param(line([2**52, 2**52, 2**52 + 2], np.int64), 3, 1, [2**52 + 1], id="i64 exact"),
    ],
)
def test_overflow_contract_in_every_strategy(
    x: np.ndarray, kernel: int, stride: int, want: list[float]
) -> None:
    windows = [Window(x.shape[-1], len(want), kernel, stride, 1, 0)]
    assert_every_strategy(x, windows, False, np.array(want, x.dtype).reshape(1, 1, -1))


@pytest.mark.parametrize(
    ("x", "output_size", "want"),
    [
        pytest.param(line([BIG] * 3), (1,), [np.inf], id="whole"),
        pytest.param(line([BIG] * 4), (2,), [np.inf, np.inf], id="boxes"),
        pytest.param(line([BIG, BIG, 1.0, 3.0]), (2,), [np.inf, 2.0], id="one box"),
    ],
)
def test_adaptive_overflow_contract(
    x: np.ndarray, output_size: tuple[int, ...], want: list[float]
) -> None:
    assert_every_adaptive(x, output_size, np.array(want, x.dtype).reshape(1, 1, -1))


@st.composite
def extreme_cases(draw: st.DrawFn) -> tuple[np.ndarray, list[Window], bool]:
    count_padding = draw(st.booleans())
    windows = [draw(axis_windows(count_padding)) for _ in range(draw(st.integers(1, 3)))]
    rng = np.random.default_rng(draw(st.integers(0, 2**32)))
    x = rng.choice(EXTREMES, (1, 2, *(w.size for w in windows))).astype(np.float32)
    return x, windows, count_padding


@settings(max_examples=examples(200), deadline=None)
@given(extreme_cases())
def test_running_sums_follow_the_cpu_order(case: tuple[np.ndarray, list[Window], bool]) -> None:
    """The tap-by-tap path is the CPU's f32 running sum in row-major tap order, bit for bit."""
    x, windows, count_padding = case
    direct = avg_pool_module.direct_path(windows, count_padding, F32)
    got = direct.means(x.reshape(2, *x.shape[2:]))
    want = reference.avg_pool(x, windows, count_padding, accumulate=np.float32)
    np.testing.assert_array_equal(got.reshape(want.shape), want)


@settings(max_examples=examples(100), deadline=None)
@given(
    sizes=st.lists(st.tuples(st.integers(1, 9), st.integers(1, 12)), min_size=1, max_size=3),
    seed=st.integers(0, 2**32),
)
def test_adaptive_running_sums_follow_the_cpu_order(
    sizes: list[tuple[int, int]], seed: int
) -> None:
    spatial, output_size = tuple(s for s, _ in sizes), tuple(o for _, o in sizes)
    x = np.random.default_rng(seed).choice(EXTREMES, (1, 2, *spatial)).astype(np.float32)
    _, direct = adaptive_module.choose_strategy(spatial, output_size, F32)
    want = reference.adaptive_avg_pool(x, output_size, accumulate=np.float32)
    np.testing.assert_array_equal(direct.means(x.reshape(2, *spatial)).reshape(want.shape), want)
