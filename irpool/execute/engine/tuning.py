"""Strategy choice by measurement on the machine that runs: the cost model shortlists,
the clock decides.

The cost model's constants (`costs`) were measured on one machine (AMD EPYC); another
ranks the ways to run a pooling differently (on an Intel Xeon with AVX-512 a view+view
pass ran about 15% under the copy+cast the model picked). So the first run of an op on a
new input shape times the strategies whose estimate is within `SHORTLIST_FACTOR` of the
best, on that run's own input, and keeps the fastest for every later run (the choice is
kept with the op's other preparations, `registry.prepared`). Each candidate computes the
same contract (integers and inf/NaN placement bit for bit; float means within f32
rounding of each other: they add in other orders), so what the clock picks changes speed,
not results beyond that rounding.

Choices are also kept in the user's cache directory ($XDG_CACHE_HOME/irpool, else
~/.cache/irpool), one file per CPU model, NumPy version and irpool version, so the next
process on this machine takes the same choice without timing: its results are then the
same bits too. The file is written whole to a temporary name and renamed over the old
one, so concurrent writers never leave a torn file (the last rename wins; a lost choice
is timed again); a missing, corrupt or unwritable cache only means timing again: it
never fails a run.

IRPOOL_TUNE=0 turns this off for reproducible runs: the cost model alone decides, as on
every machine, and the cache is neither read nor written.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from functools import cache
from hashlib import sha256
from pathlib import Path
from typing import Protocol, TypeVar

from irpool.execute.errors import ExecutionError

# Candidates estimated within this factor of the best are timed, at most `SHORTLIST` of
# them: the model's errors across machines are tens of percent, not several times.
SHORTLIST_FACTOR = 2.0
SHORTLIST = 12
# Timed calls per candidate after one warm-up call (which pays its buffers' page faults),
# in rounds that call each candidate in turn, so load that comes and goes hits all alike;
# each candidate's fastest call counts, since load only ever adds time.
TIMED_CALLS = 3
# The clock: the CPU time of the whole process. The wall clock also counts the time the
# machine gives other processes, so on a loaded one a spike during one candidate's calls
# decides (im2col was kept over a Winograd twice as fast). time.thread_time would miss
# the work: with IRPOOL_THREADS=2 it runs in worker threads while the caller waits. The
# process's time counts those workers (every candidate shares its work among the same
# ones, engine/blocks.py) and also any other thread of this process computing meanwhile,
# load that comes and goes like the machine's, which the rounds' minimum discards.
clock = time.process_time
# Not timed when the shortlist's estimated time, or its warm-up calls' measured time,
# says timing would take more than this: it would cost more than a difference can save on
# the next runs (ns).
BUDGET_NS = 200e6
# The model's pick is kept unless another candidate is faster by more than this share.
MARGIN = 0.03
# Choices the cache file keeps, the latest (a model run on ever new shapes would grow it).
KEPT = 1000


class Candidate(Protocol):
    """A strategy with a stable name: what the cache stores."""

    @property
    def label(self) -> str: ...


S = TypeVar("S", bound=Candidate)
T = TypeVar("T")


def enabled() -> bool:
    """Whether choices are measured: IRPOOL_TUNE unset or 1, not 0; any other value is an
    ExecutionError (planning a model checks it, so a bad value fails the first run)."""
    text = os.environ.get("IRPOOL_TUNE", "1")
    if text not in ("0", "1"):
        raise ExecutionError(
            f"IRPOOL_TUNE={text!r}: expected 0 (the cost model decides) or 1 (measure)"
        )
    return text == "1"


def pick(
    key: str,
    candidates: Sequence[tuple[S, float]],
    run: Callable[[S], object],
) -> S:
    """The fastest of `candidates` (each with its estimated ns, the cost model's pick first)
    on this machine, for the configuration named `key`; `run(candidate)` runs the real
    input."""
    best_estimate = candidates[0][1]
    shortlist = [c for c, ns in candidates if ns <= SHORTLIST_FACTOR * best_estimate][:SHORTLIST]
    if len(shortlist) == 1 or not enabled():
        return shortlist[0]
    known = _choices().get(key)
    for candidate in shortlist:
        if candidate.label == known:
            return candidate
    if best_estimate * len(shortlist) * (1 + TIMED_CALLS) > BUDGET_NS:
        return shortlist[0]
    times = _fastest(run, shortlist)
    chosen = min(range(len(shortlist)), key=times.__getitem__) if times else 0
    if times and times[chosen] > (1 - MARGIN) * times[0]:
        chosen = 0
    label = _remember(key, shortlist[chosen].label, {c.label for c in shortlist})
    return next(c for c in shortlist if c.label == label)


def _fastest(run: Callable[[T], object], candidates: Sequence[T]) -> list[float]:
    """Each candidate's fastest call, in seconds of `clock`; none when the warm-up calls show that
    timing would exceed the budget (the estimates can be far off on another machine)."""
    start = clock()
    for candidate in candidates:
        run(candidate)
    if (clock() - start) * TIMED_CALLS > BUDGET_NS * 1e-9:
        return []
    fastest = [float("inf")] * len(candidates)
    for _ in range(TIMED_CALLS):
        for index, candidate in enumerate(candidates):
            start = clock()
            run(candidate)
            fastest[index] = min(fastest[index], clock() - start)
    return fastest


_lock = threading.Lock()
_loaded: dict[str, str] | None = None  # the cache file's choices, read once per process


def _choices() -> dict[str, str]:
    global _loaded
    with _lock:
        if _loaded is None:
            _loaded = _read(cache_file())
        return _loaded


def _remember(key: str, label: str, labels: set[str]) -> str:
    """Keep the choice for this process and, merged with what others wrote, on disk; the
    choice kept: another thread's, when it timed the same configuration first (so runs of
    one configuration in a process all take one strategy, the same bits). A kept label not
    among `labels` (written by another version of irpool) is replaced."""
    path = cache_file()
    with _lock:
        assert _loaded is not None
        if _loaded.get(key) in labels:
            return _loaded[key]
        _loaded[key] = label
        merged = _read(path)
        merged.pop(key, None)
        merged[key] = label  # the latest last
        merged = dict(list(merged.items())[-KEPT:])
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=path.name, dir=path.parent)
        except OSError:
            return label  # unwritable: this process still keeps its choices in memory
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump(merged, file)
            os.replace(temporary, path)
        except OSError:
            with contextlib.suppress(OSError):  # a full disk, say: leave no partial file
                os.unlink(temporary)
    return label


def _read(path: Path) -> dict[str, str]:
    """The choices in `path`; nothing when it is missing, unreadable or not what we write."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(found, dict):
        return {}
    return {k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, str)}


def cache_file() -> Path:
    """This machine's choices file: named by the CPU model, NumPy's and irpool's versions."""
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(home) / "irpool" / f"choices-{_machine_key()}.json"


@cache
def _machine_key() -> str:
    import numpy

    import irpool

    text = f"{cpu_model()}|numpy {numpy.__version__}|irpool {irpool.__version__}"
    return sha256(text.encode()).hexdigest()[:16]


def cpu_model() -> str:
    """The CPU's model name as /proc/cpuinfo gives it, else what the platform says."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
