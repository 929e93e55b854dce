"""Results do not depend on IRPOOL_THREADS, bit for bit, over every committed model with
recorded inputs, on every BLAS kernel OpenBLAS loads on this machine: each OPENBLAS_CORETYPE
it accepts (hosts set it, e.g. Haswell with OPENBLAS_L2_SIZE=512 on newer EPYCs) and none.
Each kernel runs once (the one it loads unset, unset), in a fresh process (OpenBLAS reads the
variable once, when it loads), with every piece of work made small (`--split`), so the small
models go through every way irpool's threads share a computation; then the unset environment
and the hosts' setting run as they are."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.exporter_corpus import every_op_modelled

pytestmark = pytest.mark.slow  # the whole corpus, in eight processes

ROOT = Path(__file__).resolve().parent.parent
MODELS = sorted(
    str(path)
    for path in (ROOT / "tests" / "models").rglob("model.xml")
    if any(path.parent.glob("inputs-*.npz")) and every_op_modelled(path)
)
# Names OpenBLAS's DYNAMIC_ARCH builds take (driver/others/dynamic.c); each loads its own
# kernel or, where this CPU lacks its instructions, a lesser one.
CORETYPES = (
    "Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom", "Sandybridge", "Haswell",
    "SkylakeX", "Cooperlake", "SapphireRapids", "Zen", "Barcelona", "Bulldozer", "Piledriver",
    "Steamroller", "Excavator", "Opteron", "Nano",
)  # fmt: skip
BLAS_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def _environment(coretype: str | None, l2_size: str | None = None) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if k not in BLAS_VARIABLES}
    if coretype is not None:
        environment["OPENBLAS_CORETYPE"] = coretype
    if l2_size is not None:
        environment["OPENBLAS_L2_SIZE"] = l2_size
    return environment


def _loaded_kernel(coretype: str | None) -> str | None:
    """The kernel OpenBLAS loads for `coretype`, or None where it cannot run here: OpenBLAS 0.3.31
    loads SkylakeX's and Cooperlake's AVX-512 kernels on an AVX2-only CPU when told to, and
    the first product dies of an illegal instruction (NumPy itself, before any irpool code)."""
    probe = (
        "import numpy; from irpool.execute.engine import blas; "
        "a = numpy.ones((64, 64), numpy.float32); a @ a; a.astype(numpy.float64) @ a; "
        "print(blas.blas_libraries()[0].info()['architecture'])"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe], env=_environment(coretype), cwd=ROOT,
        capture_output=True, text=True,
    )  # fmt: skip
    if shown.returncode == -signal.SIGILL:
        return None
    assert shown.returncode == 0, shown.stderr
    return shown.stdout.strip()


@cache
def kernels() -> dict[str, str | None]:
    """Each distinct kernel OpenBLAS loads and runs here, with the first OPENBLAS_CORETYPE that
    loads it; the kernel it loads unset comes first, with None."""
    with ThreadPoolExecutor(2) as pool:
        loaded = list(pool.map(_loaded_kernel, (None, *CORETYPES)))
    found: dict[str, str | None] = {}
    for coretype, kernel in zip((None, *CORETYPES), loaded, strict=True):
        if kernel is not None:
            found.setdefault(kernel, coretype)
    return found


def _differences(environment: dict[str, str], split: bool) -> dict[str, Any]:
    command = [sys.executable, "-m", "tests.thread_bits", *(["--split"] if split else []), *MODELS]
    shown = subprocess.run(command, env=environment, cwd=ROOT, capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    found: dict[str, Any] = json.loads(shown.stdout)
    return found


def test_the_corpus_has_models_with_inputs() -> None:
    assert len(MODELS) >= 30


def test_every_blas_kernel_gives_the_same_bits_on_one_and_two_threads() -> None:
    # Each kernel once, split (the unset environment's first), then the unset environment and
    # the hosts' setting as they are.
    runs = [(_environment(coretype), True) for coretype in kernels().values()]
    runs += [(_environment(None), False), (_environment("Haswell", "512"), False)]
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda run: _differences(*run), runs))
    assert len(kernels()) >= 2, kernels()  # the variable was read: more than one kernel ran
    for (environment, split), found in zip(runs, results, strict=True):
        setting = {k: environment.get(k) for k in BLAS_VARIABLES}
        assert found["models"] == len(MODELS)
        assert found["shared"] > 0 or not split  # the threads really shared the work
        assert found["differ"] == [], (setting, split, found["architectures"])
    loaded = [found["architectures"] for found in results[: len(kernels())]]
    assert loaded == [[kernel] for kernel in kernels()]  # each kernel ran where it was probed
