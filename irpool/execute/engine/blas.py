"""BLAS threads while irpool computes: one.

NumPy's BLAS (OpenBLAS in NumPy's wheels) starts one thread per core for any product above
a few thousand multiply-adds, and on several threads it may sum in another order than on
one (measured with OpenBLAS's Haswell kernels: last-bit differences in a convolution). So
while a kernel that calls BLAS runs, BLAS is held to 1 thread, and irpool's own threads
share the work in pieces fixed by the shape (`blocks`), which keeps results independent of
the thread count; BLAS is given back its count when the last such kernel in the process
ends. One thread also keeps BLAS's threads from waiting for each other beside another busy
process (2 cores and one CPU-bound process: global pooling of 8x2048x7x7 took 11-16 ms
instead of 0.3 ms with BLAS on two).

Holding costs about a microsecond (two sets of the count; `_knob`): only calls whose BLAS
products reach `THREADED_MACS`, where OpenBLAS may start threads, pay it; smaller
ones run on one BLAS thread anyway (OpenBLAS: matrix-vector products below 9216
multiply-adds, dot products of 10000 elements or fewer, matrix products below 262144).
threadpoolctl finds the process's BLAS libraries (OpenBLAS, MKL, BLIS) and sets their
threads; without it (not installed), BLAS keeps its own count.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from functools import cache
from typing import Any

# Multiply-adds of one BLAS call from which OpenBLAS may use several threads (its lowest
# threshold, matrix-vector products, is 9216).
THREADED_MACS = 8192

# Reads and sets one library's thread count.
Knob = tuple[Callable[[], int | None], Callable[[int], object]]

_lock = threading.Lock()
_holders = 0  # kernels inside `hold` right now, on any thread
_saved: list[tuple[Knob, int | None]] = []  # each knob and the count it had (None: unknown)


@cache
def blas_libraries() -> Sequence[Any]:
    """threadpoolctl's controllers of the BLAS libraries in this process (found once: the
    search costs milliseconds); none without threadpoolctl."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return ()
    return tuple(lib for lib in ThreadpoolController().lib_controllers if lib.user_api == "blas")


@cache
def _knobs() -> Sequence[Knob]:
    return tuple(_knob(lib) for lib in blas_libraries())


def _knob(lib: Any) -> Knob:
    """OpenBLAS on its own threads (NumPy's wheels) is set by its C functions, found under
    the names threadpoolctl looks for: about 1 µs for a hold and its release, where
    threadpoolctl's set costs several (it first checks which Python thread may set the
    count). Any other library through threadpoolctl."""
    if lib.internal_api == "openblas" and lib.threading_layer == "pthreads":
        for name in lib.check_symbols:
            getter = getattr(lib.dynlib, name, None)
            setter = getattr(lib.dynlib, name.replace("_get_", "_set_"), None)
            if getter is not None and setter is not None:
                return getter, setter
    return lib.get_num_threads, lib.set_num_threads


def hold(threads: int) -> None:
    """Limit BLAS to `threads` until the matching `release`; calls may nest and come from
    several threads (BLAS's count is process-wide: the smallest held count wins)."""
    global _holders
    with _lock:
        _holders += 1
        if _holders == 1:
            _saved[:] = [(knob, knob[0]()) for knob in _knobs()]
        for (_, set_threads), before in _saved:
            if before is not None and before > threads:
                set_threads(threads)


def release() -> None:
    """End one `hold`; the last one gives each library back the count it had."""
    global _holders
    with _lock:
        _holders -= 1
        if _holders == 0:
            for (_, set_threads), before in _saved:
                if before is not None:
                    set_threads(before)
            _saved.clear()


def one_thread_for(macs: int) -> AbstractContextManager[None]:
    """BLAS held to one thread while calls of `macs` multiply-adds, where OpenBLAS may start
    its own threads (`THREADED_MACS`), run; smaller ones pay nothing (a shared do-nothing
    context: a generator's costs 1.5 µs, and a step makes dozens of small products)."""
    return _one_thread() if macs >= THREADED_MACS else _NOTHING


_NOTHING = nullcontext()


@contextmanager
def _one_thread() -> Iterator[None]:
    hold(1)
    try:
        yield
    finally:
        release()
