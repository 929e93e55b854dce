"""The one way irpool's worker threads share a computation: into pieces fixed by the shape.

Every kernel that works plane by plane runs through `for_each_block`, and every large
matrix product through `for_each_tile`. Both cut their work into pieces that depend on the
shapes alone (blocks of planes that bound the memory a kernel holds besides its input and
output; spans of a product's output rows or columns), never on the thread count: the
threads only decide who computes which piece. Each output element is so computed by the
same sequence of operations, and the same BLAS call, whatever IRPOOL_THREADS is, so results
are the same bits on 1 thread and on several (BLAS's own threads are held to one: OpenBLAS
sums in another order on several, docs/threads.md).

The thread count is IRPOOL_THREADS as it is when work is shared (one thread by default, so
irpool is compared with single-thread runtimes; 2 uses both cores). Planning a model checks
it too, so a bad value fails the first run whatever its inputs. It is not read on every
run: reading an unset variable costs over a microsecond, a tenth of a tiny run, and only
large inputs are shared.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from typing import TypeVar

import numpy as np

from irpool.execute.engine import blas
from irpool.execute.engine.costs import (
    CHANNEL_SPAN_MIN,
    PARALLEL_MIN_BYTES,
    SPAN_BYTES,
    SPAN_MIN,
    TILE_MACS,
)
from irpool.execute.engine.scratch import Scratch, thread_scratch
from irpool.execute.errors import ExecutionError

# Computes planes [start, stop) of a block with the calling thread's scratch.
BlockWork = Callable[[int, int, Scratch], None]
Piece = TypeVar("Piece")

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


def _cut(length: int, step: int) -> list[tuple[int, int]]:
    """[0, length) cut into spans of `step` but the last (one, empty, for an empty range)."""
    return [(start, min(length, start + step)) for start in range(0, max(1, length), step)]


def product_spans(length: int, macs: int) -> list[tuple[int, int]]:
    """How a matrix product of `macs` multiply-adds is cut along an output axis of `length`
    rows or columns: about equal pieces of at least `TILE_MACS` multiply-adds and `SPAN_MIN`
    rows or columns (each piece repacks the other operand), from the shape alone."""
    return _spans(length, min(length // SPAN_MIN, macs // TILE_MACS))


def channel_spans(channels: int, tiles: int, macs: int) -> list[tuple[int, int]]:
    """How a convolution of `macs` multiply-adds an image cuts its `channels` output channels
    when its images and spans of output positions make `tiles` == 1 tile (a small feature
    map: resnet18's 14x14 and 7x7 layers): about equal spans of at least `TILE_MACS`
    multiply-adds and `CHANNEL_SPAN_MIN` channels, so that the threads share it; one span
    otherwise. From the shape alone, like every cut."""
    if tiles > 1:
        return [(0, channels)]
    return _spans(channels, min(channels // CHANNEL_SPAN_MIN, macs // TILE_MACS))


def _spans(length: int, parts: int) -> list[tuple[int, int]]:
    """[0, length) in about `parts` equal spans, one fewer when that is odd (but one): two
    threads then get equal shares (3 or 5 spans would leave one idle a third or a fifth of
    the time), and the count still depends on the shape alone."""
    even = parts - parts % 2 if parts > 1 else 1
    return _cut(length, max(1, -(-length // even)))


def cached_spans(length: int, macs: int, row_bytes: int, most_rows: int) -> list[tuple[int, int]]:
    """`product_spans` cut again into spans of at most `most_rows` rows and `SPAN_BYTES` of
    a buffer of `row_bytes` a row (at least one row): a product that copies its operand
    first (im2col, Winograd's transforms) then reads it from the cache."""
    step = max(1, min(most_rows, SPAN_BYTES // max(1, row_bytes)))
    return [
        (start, min(stop, start + step))
        for first, stop in product_spans(length, macs)
        for start in range(first, stop, step)
    ]


def for_each_tile(
    tiles: Sequence[Piece],
    work: Callable[[Piece, Scratch], None],
    macs: int,
    thread_macs: int = 0,
) -> None:
    """`work` on each tile of a product of `macs` multiply-adds in all, the tiles shared by
    the run's threads when there are several (by no more threads than get `thread_macs`
    each, when given: the tiles stay the same, only who computes them changes); BLAS on one
    thread."""
    threads = threads_from_environment() if len(tiles) > 1 else 1
    if thread_macs:
        threads = max(1, min(threads, macs // thread_macs))
    _share(tiles, work, threads, macs)


def for_each_block(
    planes: int,
    plane_bytes: int,
    chunk_bytes: int,
    work: BlockWork,
    blas_macs: int = 0,
    shared: bool = True,
) -> None:
    """Call `work` on blocks of at most `chunk_bytes` of planes (at least one plane each),
    shared by the run's threads when the input is large enough to pay for them (and
    `shared`: False for a kernel that a second thread measured slower); floating overflow
    and invalid operations are the computation's own business, not warnings.
    `blas_macs`: the multiply-adds per plane of the BLAS calls `work` makes, if any."""
    block = max(1, min(planes, chunk_bytes // plane_bytes))
    count = -(-planes // block)
    if count > 1 and count % 2:  # one block more, so two threads get equal shares
        block = -(-planes // (count + 1))
    blocks = _cut(planes, block)
    threads = 1
    if shared and len(blocks) > 1 and planes * plane_bytes >= PARALLEL_MIN_BYTES:
        threads = threads_from_environment()
    _share(blocks, lambda span, scratch: work(*span, scratch), threads, block * blas_macs)


def _share(
    pieces: Sequence[Piece], work: Callable[[Piece, Scratch], None], threads: int, macs: int
) -> None:
    """`work` on every piece, dealt to `threads` workers (the calling thread alone for one);
    BLAS held to one thread while calls of `macs` multiply-adds, where it may start its
    own, run."""
    with blas.one_thread_for(macs):
        if threads == 1 or len(pieces) == 1:
            _work_on(list(pieces), work)
        else:
            # The calling thread works on the first share itself: one hand-off fewer
            # (about 25 µs each on the reference machine), and no thread waits idle.
            first, *others = _deal(list(pieces), threads)
            pool = _workers(threads - 1)
            handed = [pool.submit(_work_on, share, work) for share in others]
            try:
                _work_on(first, work)
            finally:
                wait(handed)
            for done in handed:
                done.result()  # a worker's error, raised here


def _work_on(share: list[Piece], work: Callable[[Piece, Scratch], None]) -> None:
    scratch = thread_scratch()
    with np.errstate(over="ignore", invalid="ignore"):
        for piece in share:
            work(piece, scratch)


def _deal(pieces: list[Piece], threads: int) -> Iterator[list[Piece]]:
    for index in range(threads):
        yield pieces[index::threads]


def _workers(threads: int) -> ThreadPoolExecutor:
    """The worker pool, grown when a run asks for more threads than it has."""
    global _pool, _pool_size
    with _pool_lock:
        # A smaller pool is not shut down: another run may be handing it work; its idle
        # threads end once nothing refers to it.
        if _pool is None or _pool_size < threads:
            _pool, _pool_size = ThreadPoolExecutor(threads, thread_name_prefix="irpool"), threads
        return _pool
