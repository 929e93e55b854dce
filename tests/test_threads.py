"""The Python API from several threads: `load` on different models and `run` on one model
give exactly what a serial pass gives, and the engine's own worker threads (IRPOOL_THREADS)
give what one thread gives."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irpool
from irpool.diagnostics import Diagnostic
from irpool.execute.engine import driver

ROOT = Path(__file__).resolve().parent.parent
IR_FILES = sorted(p for folder in ("examples", "tests") for p in (ROOT / folder).rglob("*.xml"))
CHAIN = ROOT / "examples" / "valid" / "chain_avgpool_adaptive.xml"  # f32 [1,3,32,32]
THREADS, ROUNDS = 8, 3


def _diagnostics(path: Path) -> list[Diagnostic]:
    try:
        return irpool.load(path).validate()
    except irpool.IRError as error:
        return error.diagnostics


def test_the_repository_holds_many_ir_files() -> None:
    assert len(IR_FILES) > 200


def test_loading_from_threads_finds_what_a_serial_pass_finds() -> None:
    serial = [_diagnostics(path) for path in IR_FILES]
    assert any(d.code == "IR105" for found in serial for d in found)  # the schema is exercised
    with ThreadPoolExecutor(THREADS) as pool:
        for _ in range(ROUNDS):
            assert list(pool.map(_diagnostics, IR_FILES)) == serial


def _inputs(seed: int) -> dict[str, Any]:
    values = np.random.default_rng(seed).standard_normal((1, 3, 32, 32))
    return {"input": values.astype(np.float32)}


def test_one_model_runs_from_threads_as_it_runs_alone() -> None:
    model = irpool.load(CHAIN)
    seeds = range(4 * THREADS)
    serial = [model.run(_inputs(seed))["output"] for seed in seeds]
    with ThreadPoolExecutor(THREADS) as pool:
        for _ in range(ROUNDS):
            threaded = pool.map(lambda seed: model.run(_inputs(seed))["output"], seeds)
            for alone, together in zip(serial, threaded, strict=True):
                np.testing.assert_array_equal(together, alone)


@pytest.mark.parametrize("callers", [1, 4])
def test_worker_threads_give_what_one_thread_gives(
    monkeypatch: pytest.MonkeyPatch, callers: int
) -> None:
    """IRPOOL_THREADS=2 (read once, at import) splits the planes between two workers; the
    smallest input is made worth splitting so the two-worker path really runs. Blocks of
    other sizes may be summed by BLAS in another order: equal to f32 rounding, not bits."""
    model = irpool.load(CHAIN)
    seeds = range(8)
    alone = [model.run(_inputs(seed))["output"] for seed in seeds]
    dealt: list[int] = []
    deal = driver._deal
    monkeypatch.setattr(driver, "THREADS", 2)
    monkeypatch.setattr(driver, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(driver, "_deal", lambda spans, n: dealt.append(n) or deal(spans, n))
    with ThreadPoolExecutor(callers) as pool:
        split = list(pool.map(lambda seed: model.run(_inputs(seed))["output"], seeds))
    assert dealt and set(dealt) == {2}
    for one, two in zip(alone, split, strict=True):
        np.testing.assert_allclose(two, one, rtol=1e-6, atol=1e-7)


def test_the_environment_sets_the_worker_threads() -> None:
    """What the monkeypatched test above stands for: IRPOOL_THREADS, read at import."""
    probe = "from irpool.execute.engine import driver; print(driver.THREADS)"
    environment = {**os.environ, "IRPOOL_THREADS": "2"}
    shown = subprocess.run(
        [sys.executable, "-c", probe], env=environment, capture_output=True, text=True, check=True
    )
    assert shown.stdout.strip() == "2"


@pytest.mark.parametrize("value", ["0", "two", "\uff12", "-1", ""])
def test_a_bad_thread_count_is_a_clear_run_error(value: str) -> None:
    model = ROOT / "examples" / "valid" / "avgpool1_4d.xml"
    environment = {**os.environ, "IRPOOL_THREADS": value}
    shown = subprocess.run(
        [sys.executable, "-m", "irpool", "run", str(model), "--input",
         str(model.with_suffix(".input.npy"))],
        env=environment, capture_output=True, text=True,
    )  # fmt: skip
    assert shown.returncode == 1, shown.stderr
    assert "IRPOOL_THREADS" in shown.stderr and "Traceback" not in shown.stderr
    assert "internal error" not in shown.stderr
