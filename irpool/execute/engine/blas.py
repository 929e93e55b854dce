"""BLAS threads while irpool computes: at most what the run may use, never more.

NumPy's BLAS (OpenBLAS in NumPy's wheels) starts one thread per core for any product above
a few thousand multiply-adds. irpool's threads (`blocks`) already share out large inputs,
and with another busy process on the machine BLAS threads wait for each other (measured
on 2 cores with one CPU-bound process: a 16384x49 matrix-vector product took 11-16 ms
instead of 0.3 ms). So while a kernel that calls BLAS runs, BLAS is held to 1 thread when
irpool's own threads split the input, else to the run's thread count (IRPOOL_THREADS,
default 1), and is given back its count when the last such kernel in the process ends.

Holding costs a few microseconds (threadpoolctl's set, twice): only calls whose largest
BLAS product reaches `THREADED_MACS`, where OpenBLAS may start threads, pay it; smaller
ones run on one BLAS thread anyway (OpenBLAS: matrix-vector products below 9216
multiply-adds, dot products of 10000 elements or fewer, matrix products below 262144).
threadpoolctl finds the process's BLAS libraries (OpenBLAS, MKL, BLIS) and sets their
threads; without it (not installed), BLAS keeps its own count.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import cache
from typing import Any

# Multiply-adds of one BLAS call from which OpenBLAS may use several threads (its lowest
# threshold, matrix-vector products, is 9216).
THREADED_MACS = 8192

_lock = threading.Lock()
_holders = 0  # kernels inside `held` right now, on any thread
_saved: list[tuple[Any, int]] = []  # each library and the thread count it had before


@cache
def _libraries() -> Sequence[Any]:
    """The BLAS libraries loaded in this process (found once: the search costs milliseconds)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return ()
    return tuple(lib for lib in ThreadpoolController().lib_controllers if lib.user_api == "blas")


def hold(threads: int) -> None:
    """Limit BLAS to `threads` until the matching `release`; calls may nest and come from
    several threads (BLAS's count is process-wide: the smallest held count wins)."""
    global _holders
    with _lock:
        _holders += 1
        if _holders == 1:
            _saved[:] = [(lib, lib.get_num_threads()) for lib in _libraries()]
        for lib, before in _saved:
            if before is not None and before > threads:
                _set(lib, threads)


def release() -> None:
    """End one `hold`; the last one gives each library back the count it had."""
    global _holders
    with _lock:
        _holders -= 1
        if _holders == 0:
            for lib, before in _saved:
                if before is not None:
                    _set(lib, before)
            _saved.clear()


def _set(lib: Any, threads: int) -> None:
    lib.set_num_threads(threads)
    clear = getattr(lib, "clear_controlling_thread", None)
    if clear is not None:
        # threadpoolctl lets one thread at a time set OpenBLAS's count (the first that sets
        # it): give that up at once, so irpool's next caller, or the application, can set it.
        clear()
