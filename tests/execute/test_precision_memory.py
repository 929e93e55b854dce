"""Accumulation precision on large windows, and peak memory of one call."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from irpool.execute.engine.scratch import Scratch, Slot, release_scratch, thread_scratch
from irpool.execute.kernels.adaptive_avg_pool import adaptive_avg_pool
from irpool.execute.kernels.avg_pool import avg_pool
from irpool.execute.kernels.max_pool import max_pool
from irpool.ops.pooling_geometry import Window

from .strategies import avg_pool_strategies, run_avg_pool


def offset_data(shape: tuple[int, ...]) -> np.ndarray:
    """Positive data with a large common offset: the worst case for naive f32 sums."""
    rng = np.random.default_rng(1)
    return (100.0 + rng.random(shape)).astype(np.float32)


def f64_mean(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float64).mean(axis=(2, 3), keepdims=True)


def test_global_224_avg_pool_every_strategy() -> None:
    x = offset_data((1, 4, 224, 224))
    windows = [Window(224, 1, 224, 1, 1, 0)] * 2
    want = f64_mean(x)
    for name, strategy in avg_pool_strategies(windows, False, x.dtype).items():
        got = run_avg_pool(x, windows, False, strategy)
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=name)


def test_global_224_adaptive() -> None:
    x = offset_data((2, 3, 224, 224))
    np.testing.assert_allclose(adaptive_avg_pool(x, (1, 1)), f64_mean(x), rtol=1e-6)


def test_large_windows_match_f64() -> None:
    """Large kernels and adaptive boxes stay within the issue's tolerance of an f64 result."""
    x = offset_data((1, 2, 224, 224))
    windows = [Window(224, 224, 63, 1, 1, 31)] * 2
    want = avg_pool(x.astype(np.float64), windows, False)
    for name, strategy in avg_pool_strategies(windows, False, x.dtype).items():
        got = run_avg_pool(x, windows, False, strategy)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=name)
    got = adaptive_avg_pool(x, (3, 5))
    want = adaptive_avg_pool(x.astype(np.float64), (3, 5))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def peak_bytes(call: Callable[[], Any]) -> int:
    """Peak traced allocation of a call whose plan is cached but whose buffers are not."""
    call()
    release_scratch()
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


MEMORY_CASES = [
    pytest.param((4, 64, 112, 112), "float32", [Window(112, 56, 3, 2, 1, 1)] * 2, False, id="W1"),
    pytest.param((1, 32, 224, 224), "float32", [Window(224, 224, 7, 1, 1, 3)] * 2, True, id="W3"),
    pytest.param((1, 32, 112, 112), "float32", [Window(112, 112, 31, 1, 1, 15)] * 2, False,
                 id="K31"),
    pytest.param((32, 64, 56, 56), "float32", [Window(56, 28, 2, 2, 1, 0)] * 2, False, id="W7"),
    pytest.param((1, 64, 16, 56, 56), "float32", [Window(16, 8, 3, 2, 1, 1)]
                 + [Window(56, 28, 3, 2, 1, 1)] * 2, False, id="W6"),
    pytest.param((8, 64, 112, 112), "int8", [Window(112, 112, 3, 1, 1, 1)] * 2, False,
                 id="int8"),
    pytest.param((8, 64, 112, 112), "float16", [Window(112, 56, 3, 2, 1, 1)] * 2, True,
                 id="f16"),
]  # fmt: skip


@pytest.mark.parametrize(("shape", "dtype", "windows", "count_padding"), MEMORY_CASES)
def test_peak_memory_is_a_small_multiple_of_input_and_output(
    shape: tuple[int, ...], dtype: str, windows: list[Window], count_padding: bool
) -> None:
    x = np.ones(shape, dtype)
    out_bytes = x.itemsize * np.prod((*shape[:2], *(w.out for w in windows)))
    peak = peak_bytes(lambda: avg_pool(x, windows, count_padding))
    assert peak <= 4 * (x.nbytes + out_bytes)


def test_peak_memory_adaptive() -> None:
    x = np.ones((8, 256, 56, 56), np.float32)
    peak = peak_bytes(lambda: adaptive_avg_pool(x, (7, 7)))
    assert peak <= 4 * (x.nbytes + x.nbytes // 64)


def test_scratch_reuses_buffers_and_views() -> None:
    """A slot keeps one buffer: the same shape gets the same view, a larger one regrows it."""
    scratch = Scratch()
    first = scratch.array(Slot.PASS, (2, 3), np.dtype(np.float32))
    assert scratch.array(Slot.PASS, (2, 3), np.dtype(np.float32)) is first
    smaller = scratch.array(Slot.PASS, (5,), np.dtype(np.float32))
    assert np.shares_memory(smaller, first)
    larger = scratch.array(Slot.PASS, (4, 4), np.dtype(np.float32))
    assert larger.shape == (4, 4) and not np.shares_memory(larger, first)
    assert scratch.array(Slot.PASS, (2, 3), np.dtype(np.float64)).dtype == np.float64
    assert scratch.array(Slot.PASS, (2, 3), np.dtype(np.float32), 1) is not first
    assert scratch.array(Slot.SUMS, (2, 3), np.dtype(np.float32)) is not first


def test_every_kernel_keeps_its_buffers_in_one_pool() -> None:
    """AvgPool and MaxPool share the thread's scratch: releasing it frees what both kept."""
    x = np.ones((2, 4, 64, 64), np.float32)
    windows = [Window(64, 32, 3, 2, 1, 1)] * 2
    release_scratch()
    max_pool(x, windows, indices=True)
    avg_pool(x, windows, False)
    kept = thread_scratch()
    assert kept._buffers
    release_scratch()
    assert thread_scratch() is not kept and not thread_scratch()._buffers
