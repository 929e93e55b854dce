"""The one loop over blocks of N×C planes, on worker threads when the input is large.

Every kernel that works plane by plane runs through `for_each_block`: blocks bound the
memory a kernel holds besides its input and output, and threads share the blocks (NumPy and
BLAS release the GIL). The thread count is IRPOOL_THREADS as it is when a large input is
split (one thread by default, so irpool is compared with single-thread runtimes; 2 uses
both cores). Planning a model checks it too, so a bad value fails the first run whatever
its inputs. It is not read on every run: reading an unset variable costs over a
microsecond, a tenth of a tiny run, and only large inputs are split.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from irpool.execute.engine import blas
from irpool.execute.engine.costs import PARALLEL_MIN_BYTES
from irpool.execute.engine.scratch import Scratch, thread_scratch
from irpool.execute.errors import ExecutionError

# Computes planes [start, stop) of a block with the calling thread's scratch.
BlockWork = Callable[[int, int, Scratch], None]

_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_pool_lock = threading.Lock()  # callers on several threads create one pool between them


def threads_from_environment() -> int:
    """IRPOOL_THREADS as it is now: a whole number >= 1, or an ExecutionError."""
    text = os.environ.get("IRPOOL_THREADS", "1")
    # ASCII digits only, as every number irpool reads (int() would take "２").
    if not (text.isascii() and text.isdigit() and int(text) >= 1):
        raise ExecutionError(f"IRPOOL_THREADS={text!r}: expected a whole number of threads >= 1")
    return int(text)


def on_run_threads(macs: int, compute: Callable[[], object]) -> None:
    """`compute`, whose BLAS products make `macs` multiply-adds, with BLAS on the run's
    threads (IRPOOL_THREADS), never more; below `blas.THREADED_MACS` it is not held."""
    if macs < blas.THREADED_MACS:
        compute()
        return
    blas.hold(threads_from_environment())
    try:
        compute()
    finally:
        blas.release()


def for_each_block(
    planes: int, plane_bytes: int, chunk_bytes: int, work: BlockWork, blas_macs: int = 0
) -> None:
    """Call `work` on blocks of at most `chunk_bytes` of planes (at least one plane each),
    dealt to the run's threads when the input is large enough to pay for them; floating
    overflow and invalid operations are the computation's own business, not warnings.
    `blas_macs`: the multiply-adds per plane of the BLAS calls `work` makes, if any; BLAS
    then runs on 1 thread when irpool's threads share the blocks, else on the run's."""
    threads = 1
    if planes * plane_bytes >= PARALLEL_MIN_BYTES:
        threads = threads_from_environment()
    # Each thread holds its own blocks: share the block budget so memory stays the same.
    block = max(1, min(-(-planes // threads), chunk_bytes // (plane_bytes * threads)))
    if block * blas_macs < blas.THREADED_MACS:
        _run(planes, block, threads, work)
        return
    blas.hold(threads if block >= planes else 1)
    try:
        _run(planes, block, threads, work)
    finally:
        blas.release()


def _run(planes: int, block: int, threads: int, work: BlockWork) -> None:
    if block >= planes:  # one block, the whole input (most calls): the short way
        with np.errstate(over="ignore", invalid="ignore"):
            work(0, planes, thread_scratch())
        return
    spans = [(start, min(planes, start + block)) for start in range(0, planes, block)]

    def work_on(share: list[tuple[int, int]]) -> None:
        scratch = thread_scratch()
        with np.errstate(over="ignore", invalid="ignore"):
            for start, stop in share:
                work(start, stop, scratch)

    if threads == 1:
        work_on(spans)
    else:
        list(_workers(threads).map(work_on, _deal(spans, threads)))


def _deal(spans: list[tuple[int, int]], threads: int) -> Iterator[list[tuple[int, int]]]:
    for index in range(threads):
        yield spans[index::threads]


def _workers(threads: int) -> ThreadPoolExecutor:
    """The worker pool, grown when a run asks for more threads than it has."""
    global _pool, _pool_size
    with _pool_lock:
        # A smaller pool is not shut down: another run may be handing it work; its idle
        # threads end once nothing refers to it.
        if _pool is None or _pool_size < threads:
            _pool, _pool_size = ThreadPoolExecutor(threads, thread_name_prefix="irpool"), threads
        return _pool
