"""The Python API from several threads: `load` on different models and `run` on one model
give exactly what a serial pass gives, and the engine's own worker threads (IRPOOL_THREADS)
give what one thread gives."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irpool
from irpool.diagnostics import Diagnostic
from irpool.execute.engine import blocks
from irpool.execute.engine.matmul import Matmul
from irpool.execute.engine.sliding import Sliding
from irpool.execute.engine.whole import Whole
from irpool.execute.kernels import max_pool as max_pool_module
from irpool.execute.kernels.max_pool import max_pool
from irpool.ops.pooling_geometry import Window
from tests.graph.plain_reader import source_text_reading

ROOT = Path(__file__).resolve().parent.parent
IR_FILES = sorted(p for folder in ("examples", "tests") for p in (ROOT / folder).rglob("*.xml"))
CHAIN = ROOT / "examples" / "valid" / "chain_avgpool_adaptive.xml"  # f32 [1,3,32,32]
THREADS, ROUNDS = 8, 3
LOADING_ROUNDS = 2  # each over every file, interleaved across the threads


def _diagnostics(path: Path) -> list[Diagnostic]:
    try:
        return irpool.load(path).validate()
    except irpool.IRError as error:
        return error.diagnostics


def test_the_repository_holds_many_ir_files() -> None:
    assert len(IR_FILES) > 200


@cache
def _serial_pass() -> list[list[Diagnostic]]:
    """Every file's findings, loaded one after another as its size decides (7 s of CPU)."""
    return [_diagnostics(path) for path in IR_FILES]


@pytest.mark.parametrize("source_text", [False, True], ids=["as-sized", "source-text"])
def test_loading_from_threads_finds_what_a_serial_pass_finds(
    source_text: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`source-text`: every file also read from its text on a worker, as large ones are,
    finds what the serial pass as sized finds."""
    serial = _serial_pass()
    assert any(d.code == "IR105" for found in serial for d in found)  # the schema is exercised
    if source_text:
        source_text_reading(monkeypatch)
    with ThreadPoolExecutor(THREADS) as pool:
        for _ in range(LOADING_ROUNDS):
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


CORPUS = ROOT / "tests" / "models" / "torchvision"


@pytest.mark.parametrize(
    "case",
    [  # depthwise layouts and Clamp; Pad, Broadcast, Roll, Slice and bounds; attention, Gelu
        "mobilenet_v2-default-fp32",
        "swin_t-default-fp16",
        "vit_b_16-default-fp32",
    ],
)
def test_a_whole_model_planned_and_run_from_threads_gives_what_it_gives_alone(case: str) -> None:
    """Threads race to plan the model (its first run) and then run it together, on inputs
    holding inf and NaN: every output is bit for bit the serial one."""
    path = CORPUS / case / "model.xml"
    with np.load(CORPUS / case / "inputs-randn.npz") as recorded:
        (name,) = recorded.files
        base = recorded[name]
    samples = [base * (1 + seed / 8) for seed in range(2 * THREADS)]
    samples[1] = np.where(np.arange(base.size).reshape(base.shape) % 97 == 0, np.inf, base)
    samples[2] = np.where(np.arange(base.size).reshape(base.shape) % 89 == 0, np.nan, base)
    alone_model = irpool.load(path)
    serial = [alone_model.run({name: x}) for x in samples]
    model = irpool.load(path)
    with ThreadPoolExecutor(THREADS) as pool:
        for _ in range(ROUNDS):
            threaded = list(pool.map(lambda x: model.run({name: x}), samples))
            for alone, together in zip(serial, threaded, strict=True):
                assert together.keys() == alone.keys()
                for key in alone:
                    np.testing.assert_array_equal(together[key], alone[key])


def small_blocks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every pooling strategy's blocks made a few planes and shared from any size, so even
    the small models' inputs go through the worker threads; the thread counts dealt to."""
    for strategy in (Whole, Sliding, Matmul):
        monkeypatch.setattr(strategy, "chunk_bytes", 1 << 12)
    monkeypatch.setattr(blocks, "PARALLEL_MIN_BYTES", 0)
    dealt: list[int] = []
    deal = blocks._deal
    monkeypatch.setattr(blocks, "_deal", lambda pieces, n: dealt.append(n) or deal(pieces, n))
    return dealt


@pytest.mark.parametrize("callers", [1, 4])
def test_worker_threads_give_what_one_thread_gives(
    monkeypatch: pytest.MonkeyPatch, callers: int
) -> None:
    """IRPOOL_THREADS=2, set after irpool is imported (a run reads it), shares the blocks
    between two workers: the blocks are those of one thread, so the values are its bits."""
    dealt = small_blocks(monkeypatch)
    monkeypatch.delenv("IRPOOL_THREADS", raising=False)  # the default first: one thread
    model = irpool.load(CHAIN)
    seeds = range(8)
    alone = [model.run(_inputs(seed))["output"] for seed in seeds]
    assert not dealt
    monkeypatch.setenv("IRPOOL_THREADS", "2")
    with ThreadPoolExecutor(callers) as pool:
        split = list(pool.map(lambda seed: model.run(_inputs(seed))["output"], seeds))
    assert dealt and set(dealt) == {2}
    for one, two in zip(alone, split, strict=True):
        assert one.tobytes() == two.tobytes()
    dealt.clear()
    monkeypatch.setenv("IRPOOL_THREADS", "1")
    model.run(_inputs(0))
    assert not dealt  # the next run reads the variable again
    monkeypatch.setenv("IRPOOL_THREADS", "0")
    with pytest.raises(irpool.ExecutionError, match="IRPOOL_THREADS='0'"):
        model.run(_inputs(0))  # a bad value is refused where a run splits


def test_max_pool_runs_on_the_worker_threads_bit_for_bit(monkeypatch: pytest.MonkeyPatch) -> None:
    """MaxPool's blocks go through the same loop: on two threads, values and indices are
    those of one thread, bit for bit (a window's maximum does not depend on the blocks)."""
    x = np.random.default_rng(0).standard_normal((2, 16, 32, 32)).astype(np.float32)
    x[0, 3, 5, 7], x[1, 9, 0, 0] = np.nan, -np.inf
    windows = [Window(32, 16, 3, 2, 1, 1), Window(32, 16, 3, 2, 1, 1)]
    alone = max_pool(x, windows, indices=True)
    dealt: list[int] = []
    deal = blocks._deal
    monkeypatch.setattr(blocks, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(blocks, "_deal", lambda spans, n: dealt.append(n) or deal(spans, n))
    monkeypatch.setattr(max_pool_module, "CHUNK_BYTES", 32 * 32 * 4 * 3)  # 3 planes a block
    monkeypatch.setenv("IRPOOL_THREADS", "2")
    split = max_pool(x, windows, indices=True)
    assert dealt == [2]
    for one, two in zip(alone, split, strict=True):
        assert one is not None and two is not None
        assert one.tobytes() == two.tobytes()


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
