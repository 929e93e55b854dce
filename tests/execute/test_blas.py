"""BLAS threads (irpool/execute/engine/blas.py): a kernel that calls BLAS on a large input
runs it on 1 thread whatever IRPOOL_THREADS and BLAS had (irpool's own threads share the
input); BLAS gets its count back afterwards; small calls leave it alone."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from irpool.execute.engine import blas, blocks
from irpool.execute.engine.matmul import Matmul
from irpool.execute.engine.whole import Whole
from irpool.execute.kernels.adaptive_avg_pool import adaptive_avg_pool

# BLAS's count before each test: more than irpool's default. Not more: each BLAS thread
# that runs keeps tens of MB of buffers for the rest of the process (measured: 4 threads
# here raised the test process's peak to 190 MB).
BEFORE = 2
GLOBAL = (8, 2048, 7, 7)  # W4: one matrix-vector product of 16384 x 49, 3.2 MB
LARGE = (8, 4096, 7, 7)  # two blocks of planes, 6.4 MB


def blas_threads() -> list[int]:
    return [lib.get_num_threads() for lib in blas.blas_libraries()]


@pytest.fixture(autouse=True)
def many_blas_threads(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("IRPOOL_THREADS", raising=False)
    assert blas.blas_libraries(), "NumPy's BLAS not found"
    with threadpool_limits(BEFORE, user_api="blas"):
        yield


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    """BLAS's thread counts as each Whole and Matmul block starts."""
    found: list[list[int]] = []
    for strategy in (Whole, Matmul):
        run = strategy.run

        def spy(self: Any, *args: Any, run: Any = run) -> None:
            found.append(blas_threads())
            run(self, *args)

        monkeypatch.setattr(strategy, "run", spy)
    return found


def data(shape: tuple[int, ...]) -> np.ndarray:
    return np.random.default_rng(0).random(shape, dtype=np.float32)


def test_one_blas_thread_by_default(seen: list[list[int]]) -> None:
    adaptive_avg_pool(data(GLOBAL), (1, 1))
    assert seen and all(counts == [1] * len(counts) for counts in seen)
    assert blas_threads() == [BEFORE] * len(seen[0])


def test_split_between_irpool_threads_blas_runs_on_one(
    monkeypatch: pytest.MonkeyPatch, seen: list[list[int]]
) -> None:
    monkeypatch.setenv("IRPOOL_THREADS", "2")
    dealt: list[int] = []
    deal = blocks._deal
    monkeypatch.setattr(blocks, "_deal", lambda spans, n: dealt.append(n) or deal(spans, n))
    adaptive_avg_pool(data(LARGE), (1, 1))
    assert dealt == [2] and len(seen) >= 2
    assert all(counts == [1] * len(counts) for counts in seen)
    assert blas_threads() == [BEFORE] * len(seen[0])


@pytest.mark.parametrize("threads", [2, 3])
def test_one_block_runs_blas_on_one_thread_whatever_irpool_threads(
    monkeypatch: pytest.MonkeyPatch, seen: list[list[int]], threads: int
) -> None:
    """One plane of 4 MB cannot be split: its matrix products still run on one BLAS thread
    (on several, OpenBLAS may sum in another order)."""
    monkeypatch.setenv("IRPOOL_THREADS", str(threads))
    held: list[int] = []
    hold = blas.hold
    monkeypatch.setattr(blas, "hold", lambda n: held.append(n) or hold(n))
    adaptive_avg_pool(data((1, 1, 1024, 1024)), (3, 3))
    assert held == [1]
    assert len(seen) == 1 and seen[0] == [1] * len(seen[0])
    assert blas_threads() == [BEFORE] * len(seen[0])


def test_a_small_call_leaves_blas_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """64 planes of 7x7: 3136 multiply-adds, which OpenBLAS runs on one thread anyway."""

    def refuse(threads: int) -> None:
        raise AssertionError("held BLAS for a small call")

    monkeypatch.setattr(blas, "hold", refuse)
    adaptive_avg_pool(data((1, 64, 7, 7)), (1, 1))


def test_runs_on_several_threads_give_blas_its_count_back(seen: list[list[int]]) -> None:
    x = data(GLOBAL)
    want = adaptive_avg_pool(x, (1, 1))
    with ThreadPoolExecutor(4) as pool:
        for got in pool.map(lambda _: adaptive_avg_pool(x, (1, 1)), range(16)):
            np.testing.assert_array_equal(got, want)
    assert all(counts == [1] * len(counts) for counts in seen)
    assert blas_threads() == [BEFORE] * len(seen[0])
    assert blas._holders == 0 and not blas._saved


def test_without_threadpoolctl_blas_keeps_its_count(monkeypatch: pytest.MonkeyPatch) -> None:
    x = data(GLOBAL)
    want = adaptive_avg_pool(x, (1, 1))
    monkeypatch.setitem(sys.modules, "threadpoolctl", None)  # importing it fails
    blas.blas_libraries.cache_clear()
    blas._knobs.cache_clear()
    try:
        assert blas.blas_libraries() == ()
        np.testing.assert_array_equal(adaptive_avg_pool(x, (1, 1)), want)
    finally:
        monkeypatch.undo()
        blas.blas_libraries.cache_clear()
        blas._knobs.cache_clear()
    assert blas_threads() == [BEFORE] * len(blas_threads())
