"""Runs a pooling strategy over blocks of N×C planes and applies the element-type rules.

Numerics (issue: f32 in/out agreeing with the CPU plugin): f32 and f16 are computed in
f32 (f16 rounds once, at the end), f64 in f64. Integer and boolean inputs are summed in
f64, which is exact below 2**53, divided exactly and rounded half to even, as the CPU
plugin does. Blocks bound memory to the input plus the output plus a few blocks.
Float planes whose means are non-finite or near the top of the range are repaired
(`direct`), so inf, NaN and overflow land where the CPU plugin puts them.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from math import prod
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from irpool.execute.engine.direct import Direct
from irpool.execute.errors import ExecutionError


# Worker threads over blocks of planes (NumPy and BLAS release the GIL). One by default, so
# irpool is compared with single-thread runtimes; IRPOOL_THREADS=2 uses both cores.
def _threads_from_environment() -> int:
    text = os.environ.get("IRPOOL_THREADS", "1")
    # ASCII digits only, as every number irpool reads (int() would take "２").
    if not (text.isascii() and text.isdigit() and int(text) >= 1):
        raise ExecutionError(f"IRPOOL_THREADS={text!r}: expected a whole number of threads >= 1")
    return int(text)


THREADS = _threads_from_environment()
PARALLEL_MIN_BYTES = 1 << 21  # measured: below this, threads cost more than they save
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()  # callers on several threads create one pool between them
_local = threading.local()


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def compute_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    # Comparing dtypes by kind and size: `dtype == np.float64` converts the type on each call.
    if dtype.kind == "f" and dtype.itemsize != 8:
        return _F32
    return _F64


def exact(dtype: np.dtype[Any]) -> bool:
    """Integers need exact sums and one exact division, or half-to-even rounding goes wrong."""
    return dtype.kind != "f"


class Scratch:
    """Reusable flat buffers, one per slot, kept per thread across calls.

    Fresh multi-megabyte buffers cost page faults on every call (measured: up to twice
    the run time of a large pooling), so each thread keeps its largest buffers.
    """

    def __init__(self) -> None:
        self._buffers: dict[int, NDArray[Any]] = {}
        # The last view handed out per slot: asked again with the same shape, it is reused
        # (making a view costs about a microsecond, and a pooling asks for many per call).
        self._views: dict[int, NDArray[Any]] = {}

    def array(self, slot: int, shape: tuple[int, ...], dtype: np.dtype[Any]) -> NDArray[Any]:
        view = self._views.get(slot)
        if view is not None and view.shape == shape and view.dtype == dtype:
            return view
        size = prod(shape)  # math.prod: np.prod costs microseconds per call
        buffer = self._buffers.get(slot)
        if buffer is None or buffer.size < size or buffer.dtype != dtype:
            buffer = np.empty(size, dtype)
            self._buffers[slot] = buffer
        view = self._views[slot] = buffer[:size].reshape(shape)
        return view


class Strategy(Protocol):
    """Pools a block [b, *spatial] (compute dtype, C-contiguous) into dst [b, *out].

    In exact mode it writes window sums (the driver divides); otherwise window means.
    """

    chunk_bytes: int

    def run(self, src: NDArray[Any], dst: NDArray[Any], scratch: Scratch) -> None: ...


def run_blocks(
    x: NDArray[Any],
    out_spatial: tuple[int, ...],
    strategy: Strategy,
    direct: Direct,
) -> NDArray[Any]:
    """Apply `strategy` block by block; `direct` repairs float planes and divides exactly."""
    x = np.ascontiguousarray(x)
    out = np.empty((*x.shape[:2], *out_spatial), x.dtype)
    if out.size == 0:
        return out
    if x.size == 0:
        out.fill(0)
        return out
    planes = x.shape[0] * x.shape[1]
    source = x.reshape(planes, *x.shape[2:])
    target = out.reshape(planes, *out_spatial)
    work = compute_dtype(x.dtype)
    plane_bytes = max(1, x.size // planes * work.itemsize)
    threads = THREADS if planes * plane_bytes >= PARALLEL_MIN_BYTES else 1
    # Each thread holds its own blocks: share the block budget so memory stays the same.
    block = max(1, min(-(-planes // threads), strategy.chunk_bytes // (plane_bytes * threads)))
    if block >= planes:  # one block, the whole input: no slicing
        with np.errstate(over="ignore", invalid="ignore"):
            _run_block(source, target, strategy, direct, work, _scratch())
        return out
    spans = [(start, min(planes, start + block)) for start in range(0, planes, block)]

    def work_on(share: list[tuple[int, int]]) -> None:
        scratch = _scratch()
        with np.errstate(over="ignore", invalid="ignore"):
            for start, stop in share:
                _run_block(source[start:stop], target[start:stop], strategy, direct, work, scratch)

    if threads == 1:
        work_on(spans)
    else:
        list(_workers().map(work_on, _deal(spans, threads)))
    return out


def _run_block(
    src: NDArray[Any],
    target: NDArray[Any],
    strategy: Strategy,
    direct: Direct,
    work: np.dtype[Any],
    scratch: Scratch,
) -> None:
    if src.dtype == work:  # f32 or f64
        strategy.run(src, target, scratch)
        direct.repair(src, target, lambda planes, means: strategy.run(planes, means, scratch))
        return
    converted = scratch.array(-1, src.shape, work)
    np.copyto(converted, src, casting="unsafe")
    values = scratch.array(-2, target.shape, work)
    strategy.run(converted, values, scratch)
    if exact(src.dtype):  # integers: finite, summed exactly in f64
        _finish(values, direct.divisor, target)
        return
    direct.repair(converted, values, lambda planes, means: strategy.run(planes, means, scratch))
    _finish(values, None, target)


def release_scratch() -> None:
    """Free this thread's kept buffers (for long-lived processes, and to measure cold calls)."""
    _local.scratch = None


def _scratch() -> Scratch:
    scratch: Scratch | None = getattr(_local, "scratch", None)
    if scratch is None:
        scratch = _local.scratch = Scratch()
    return scratch


def _deal(spans: list[tuple[int, int]], threads: int) -> Iterator[list[tuple[int, int]]]:
    for index in range(threads):
        yield spans[index::threads]


def _workers() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(THREADS, thread_name_prefix="irpool")
        return _pool


def _finish(
    values: NDArray[Any], divisor: NDArray[np.float64] | None, target: NDArray[Any]
) -> None:
    """Exact division and half-to-even rounding for integers; one rounding for f16."""
    if divisor is not None:
        np.divide(values, divisor, out=values)
        np.rint(values, out=values)
    np.copyto(target, values, casting="unsafe")
