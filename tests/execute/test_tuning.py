"""Strategy choice by measurement (irpool/execute/engine/tuning.py): whichever candidate the
clock picks, results are the same bits where the contract is exact, and the choices file in
the user's cache directory never fails a run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import irpool
from irpool.cli import cli
from irpool.execute.engine import tuning, window_max
from irpool.execute.engine.strategy import run_blocks
from irpool.execute.kernels import adaptive_avg_pool as adaptive_module
from irpool.execute.kernels import avg_pool as avg_pool_module
from irpool.execute.kernels import max_pool as max_pool_module
from irpool.ops.pooling_geometry import Window
from tests.scale import examples

from .test_against_reference import axis_windows

ROOT = Path(__file__).resolve().parents[2]
CHAIN = ROOT / "examples" / "valid" / "chain_avgpool_adaptive.xml"  # f32 [1,3,32,32]
INTEGERS = ["int32", "int8", "uint8", "int64"]
NON_FINITE = [np.inf, -np.inf, np.nan]


@pytest.fixture(autouse=True)
def own_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Each test reads and writes its own cache directory, from a fresh process's state."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("IRPOOL_TUNE", raising=False)
    monkeypatch.setattr(tuning, "_loaded", None)
    return tmp_path / "cache"


def pooled_by_each(
    x: np.ndarray, windows: tuple[Window, ...], count_padding: bool
) -> dict[str, np.ndarray]:
    """`x` pooled by every candidate `tuning` may pick from, by label."""
    planes = x.shape[0] * x.shape[1]
    found, direct = avg_pool_module.candidates(windows, count_padding, x.dtype, planes)
    out = tuple(w.out for w in windows)
    return {s.label: run_blocks(x, out, s, direct) for s, _ in found}


def assert_same_bits(results: dict[str, np.ndarray]) -> None:
    (first, want), *others = results.items()
    for label, got in others:
        assert got.dtype == want.dtype and got.shape == want.shape
        # Bit for bit: NaN equals NaN, and -0.0 would differ from 0.0.
        assert got.tobytes() == want.tobytes(), f"{label} differs from {first}"


@st.composite
def integer_cases(draw: st.DrawFn) -> tuple[np.ndarray, tuple[Window, ...], bool]:
    count_padding = draw(st.booleans())
    windows = tuple(draw(axis_windows(count_padding)) for _ in range(draw(st.integers(1, 3))))
    dtype = np.dtype(draw(st.sampled_from(INTEGERS)))
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), *(w.size for w in windows))
    info = np.iinfo(dtype)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    # Extremes of the type too, up to where a window's sum (64 taps at most here) stays
    # below 2**53, the contract's bound: sums are exact in f64 in every order.
    low, high = max(info.min, -(2**46)), min(info.max, 2**46)
    x = rng.integers(low, high, shape, endpoint=True, dtype=dtype)
    return x, windows, count_padding


@given(integer_cases())
@settings(max_examples=examples(60), deadline=None)
def test_every_candidate_gives_the_same_integers(
    case: tuple[np.ndarray, tuple[Window, ...], bool],
) -> None:
    results = pooled_by_each(*case)
    assert len(results) >= 2 or all(w.covers_all() for w in case[1])
    assert_same_bits(results)


@st.composite
def dyadic_windows(draw: st.DrawFn) -> Window:
    """An axis whose every window divides by a power of two: kernel 1, 2 or 4 with padding
    counted, so every order of the additions and every weighting is exact."""
    kernel = draw(st.sampled_from([1, 2, 4]))
    dilation, stride = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    size = draw(st.integers((kernel - 1) * dilation + 1, 12))
    pad = draw(st.integers(0, 2))
    out = (size + 2 * pad - (kernel - 1) * dilation - 1) // stride + 1
    return Window(size, out, kernel, stride, dilation, pad)


@given(
    windows=st.lists(dyadic_windows(), min_size=1, max_size=3).map(tuple),
    dtype=st.sampled_from(["float32", "float16", "float64"]),
    seed=st.integers(0, 2**32 - 1),
    marked=st.integers(0, 4),
)
@settings(max_examples=examples(80), deadline=None)
def test_every_candidate_gives_the_same_floats_on_ties_and_non_finite(
    windows: tuple[Window, ...], dtype: str, seed: int, marked: int
) -> None:
    """Small whole numbers (many ties, sums exact) with inf, -inf and NaN sprinkled in: the
    non-finite placement and every finite mean are the same bits in every candidate."""
    rng = np.random.default_rng(seed)
    shape = (1, int(rng.integers(1, 4)), *(w.size for w in windows))
    x = rng.integers(-4, 5, shape).astype(dtype)
    flat = x.reshape(-1)
    flat[rng.integers(0, flat.size, marked)] = rng.choice(NON_FINITE, marked)
    assert_same_bits(pooled_by_each(x, windows, True))


@pytest.mark.parametrize("dtype", [*INTEGERS, "float32"])
@pytest.mark.parametrize(("spatial", "output"), [((8, 12), (4, 3)), ((16, 4, 8), (2, 1, 4))])
def test_both_adaptive_candidates_give_the_same_bits(
    dtype: str, spatial: tuple[int, ...], output: tuple[int, ...]
) -> None:
    """One Kronecker product or one per axis; boxes of power-of-two lengths, small whole
    numbers and non-finite values, so every sum and weight is exact."""
    rng = np.random.default_rng(7)
    x = rng.integers(-100, 100, (2, 3, *spatial)).astype(dtype)
    if dtype == "float32":
        x.reshape(-1)[[0, 17, 40]] = NON_FINITE
    found, direct = adaptive_module.candidates(spatial, output, x.dtype, 6)
    assert {s.label for s, _ in found} == {"matmul kron", "matmul axes"}
    assert_same_bits({s.label: run_blocks(x, output, s, direct) for s, _ in found})


@st.composite
def even_stride_2(draw: st.DrawFn) -> Window:
    """An axis where stride phases can be laid out: stride 2 over an even size."""
    kernel, dilation = draw(st.integers(1, 4)), draw(st.integers(1, 2))
    dilated = (kernel - 1) * dilation + 1
    pad = draw(st.integers(0, dilated - 1))
    size = 2 * draw(st.integers(max(1, -(-(dilated - 2 * pad) // 2)), 6))
    return Window(size, (size + 2 * pad - dilated) // 2 + 1, kernel, 2, dilation, pad)


@given(
    windows=st.lists(even_stride_2() | axis_windows(False), min_size=1, max_size=3).map(tuple),
    dtype=st.sampled_from(["float32", "float16", "float64", "int8", "uint8", "int32"]),
    seed=st.integers(0, 2**32 - 1),
    marked=st.integers(0, 4),
)
@settings(max_examples=examples(80), deadline=None)
def test_every_max_pool_layout_gives_the_same_values_and_indices(
    windows: tuple[Window, ...], dtype: str, seed: int, marked: int
) -> None:
    """Few distinct values (ties: the first tap in row-major order wins) and, for floats,
    inf, -inf and NaN; axes where phases can be laid out and others."""
    rng = np.random.default_rng(seed)
    shape = (1, int(rng.integers(1, 4)), *(w.size for w in windows))
    x = rng.integers(-3, 4, shape).astype(dtype)
    if x.dtype.kind == "f":
        flat = x.reshape(-1)
        flat[rng.integers(0, flat.size, marked)] = rng.choice(NON_FINITE, marked)
    found = max_pool_module.layouts(windows, x.shape[2:], x.dtype)
    assert found[0] == window_max.rule_layout(
        window_max.axis_passes(windows), x.shape[2:], max_pool_module._work_type(x.dtype)[0]
    )
    results = {
        layout.label: max_pool_module.max_pool(x, windows, True, layout=layout) for layout in found
    }
    (first, (values, indices)), *others = results.items()
    for label, (other_values, other_indices) in others:
        assert other_values.tobytes() == values.tobytes(), f"{label} differs from {first}"
        assert other_indices is not None and indices is not None
        assert other_indices.tobytes() == indices.tobytes(), f"{label} differs from {first}"


def test_max_pool_layouts_include_phases_and_views() -> None:
    """W1's geometry (k3 s2 p1 on 112x112): both passes can go either way."""
    windows = (Window(112, 56, 3, 2, 1, 1),) * 2
    found = max_pool_module.layouts(windows, (112, 112), np.dtype(np.float32))
    assert {layout.phased for layout in found} == {
        (True, True), (False, True), (True, False), (False, False)
    }  # fmt: skip


def test_no_large_kronecker_matrix_is_built_as_a_candidate() -> None:
    """1024x1024 to 3x3: one product per axis only (the combined matrix would hold 9.4
    million entries)."""
    found, _ = adaptive_module.candidates((1024, 1024), (3, 3), np.dtype(np.float32), 1)
    assert [s.label for s, _ in found] == ["matmul axes"]


@dataclass(frozen=True)
class Fake:
    """A candidate that computes for `seconds` of CPU time."""

    label: str
    seconds: float = 0.0


def spin(seconds: float) -> None:
    """Compute for `seconds` of this thread's CPU time, however loaded the machine is."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def sleeper(calls: list[str]) -> Any:
    def run(candidate: Fake) -> None:
        calls.append(candidate.label)
        spin(candidate.seconds)

    return run


SLOW_FIRST = [(Fake("model's pick", 0.003), 1.0), (Fake("faster", 0.0), 1.5)]


def test_the_fastest_candidate_wins_and_is_kept(own_cache: Path) -> None:
    calls: list[str] = []
    assert tuning.pick("case", SLOW_FIRST, sleeper(calls)).label == "faster"
    assert calls.count("faster") == 1 + tuning.TIMED_CALLS
    kept = json.loads(tuning.cache_file().read_text())
    assert kept == {"case": "faster"} and tuning.cache_file().is_relative_to(own_cache)
    # The next process reads the choice instead of timing again.
    tuning._loaded = None
    calls.clear()
    assert tuning.pick("case", SLOW_FIRST, sleeper(calls)).label == "faster"
    assert calls == []


def test_time_the_machine_gives_other_processes_does_not_count() -> None:
    """Descheduled by a load spike (asleep, to the process) in each of its calls, the faster
    candidate still computes less, and wins: by the wall clock it would lose."""

    def run(candidate: Fake) -> None:
        spin(candidate.seconds)
        if candidate.label == "faster":
            time.sleep(0.02)

    candidates = [(Fake("model's pick", 0.006), 1.0), (Fake("faster", 0.001), 1.5)]
    assert tuning.pick("case", candidates, run).label == "faster"


def test_work_in_worker_threads_counts() -> None:
    """With IRPOOL_THREADS=2 a candidate computes in worker threads while the caller waits:
    their time is its time (the calling thread's own CPU time would be next to none)."""
    with ThreadPoolExecutor(1) as workers:

        def run(candidate: Fake) -> None:
            if candidate.label == "in a worker":
                workers.submit(spin, candidate.seconds).result()
            else:
                spin(candidate.seconds)

        candidates = [(Fake("in a worker", 0.006), 1.0), (Fake("on the caller", 0.002), 1.5)]
        assert tuning.pick("case", candidates, run).label == "on the caller"


def test_threads_timing_one_configuration_at_once_take_one_choice() -> None:
    """Four threads time at once, and half of them find the other candidate faster: the
    first to finish decides for all, so one configuration runs one strategy."""
    roles: dict[int, int] = {}
    lock = threading.Lock()

    def run(candidate: Fake) -> None:
        with lock:
            role = roles.setdefault(threading.get_ident(), len(roles) % 2)
        slow = candidate.label == ("model's pick", "faster")[role]
        spin(0.004 if slow else 0.0)

    with ThreadPoolExecutor(4) as pool:
        picked = list(pool.map(lambda _: tuning.pick("case", SLOW_FIRST, run).label, range(4)))
    assert len(roles) > 1  # both roles timed
    assert len(set(picked)) == 1 and tuning._choices()["case"] == picked[0]


def test_off_the_cost_model_decides_and_the_cache_is_untouched(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("IRPOOL_TUNE", "0")
    calls: list[str] = []
    assert tuning.pick("case", SLOW_FIRST, sleeper(calls)).label == "model's pick"
    assert calls == [] and not tuning.cache_file().parent.exists()


@pytest.mark.parametrize("value", ["off", "", "2", "０"])
def test_a_bad_setting_fails_the_first_run(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("IRPOOL_TUNE", value)
    model = irpool.load(CHAIN)
    with pytest.raises(irpool.ExecutionError, match="IRPOOL_TUNE="):
        model.run({"input": np.zeros((1, 3, 32, 32), np.float32)})


def test_the_cli_refuses_a_bad_setting(runner: CliRunner, tmp_path: Path) -> None:
    data = tmp_path / "x.npy"
    np.save(data, np.zeros((1, 3, 32, 32), np.float32))
    args = ["run", str(CHAIN), "--input", str(data), "-o", str(tmp_path / "out.npz")]
    result = runner.invoke(cli, args, env={"IRPOOL_TUNE": "off"})
    assert result.exit_code == 1
    assert "IRPOOL_TUNE='off': expected 0" in result.output and "Traceback" not in result.output


def test_candidates_far_from_the_best_estimate_are_not_timed() -> None:
    calls: list[str] = []
    far = [(Fake("best", 0.001), 1.0), (Fake("far", 0.0), 1.0 + tuning.SHORTLIST_FACTOR)]
    assert tuning.pick("case", far, sleeper(calls)).label == "best"
    assert calls == []


def test_a_long_run_is_not_timed() -> None:
    calls: list[str] = []
    long = [(Fake("a"), tuning.BUDGET_NS), (Fake("b"), tuning.BUDGET_NS)]
    assert tuning.pick("case", long, sleeper(calls)).label == "a"
    assert calls == []


def test_timing_stops_when_the_warm_up_shows_it_would_take_too_long(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Estimates within the budget, calls beyond it: the model's pick, kept."""
    monkeypatch.setattr(tuning, "BUDGET_NS", 10e6)
    calls: list[str] = []
    slow = [(Fake("model's pick", 0.004), 1.0), (Fake("faster", 0.002), 1.0)]
    assert tuning.pick("case", slow, sleeper(calls)).label == "model's pick"
    assert calls == ["model's pick", "faster"]
    assert json.loads(tuning.cache_file().read_text()) == {"case": "model's pick"}


@pytest.mark.parametrize(
    "content",
    [b"{not json", b"\xff\xfe\x00garbage", b"[1, 2]", b'{"case": 3}', b""],
    ids=["torn", "binary", "list", "wrong-type", "empty"],
)
def test_a_corrupt_cache_is_timed_again_and_rewritten(content: bytes) -> None:
    path = tuning.cache_file()
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    assert tuning.pick("case", SLOW_FIRST, sleeper([])).label == "faster"
    assert json.loads(path.read_text()) == {"case": "faster"}


def test_a_choice_no_longer_offered_is_timed_again_and_replaced() -> None:
    """A cache written by another version of irpool names a candidate this one lacks."""
    path = tuning.cache_file()
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"case": "a strategy since removed"}))
    assert tuning.pick("case", SLOW_FIRST, sleeper([])).label == "faster"
    assert json.loads(path.read_text()) == {"case": "faster"}


def test_the_cache_keeps_the_latest_choices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tuning, "KEPT", 3)
    for n in range(5):
        tuning.pick(f"case {n}", SLOW_FIRST, sleeper([]))
    tuning.pick("case 2", SLOW_FIRST, sleeper([]))  # known: not timed, not written again
    kept = json.loads(tuning.cache_file().read_text())
    assert list(kept) == ["case 2", "case 3", "case 4"]


def test_an_unwritable_cache_never_fails_a_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The cache directory's place is a file (root can write anywhere, but not under a file):
    the choice is timed, kept in memory, and the model runs."""
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert tuning.pick("case", SLOW_FIRST, sleeper([])).label == "faster"
    calls: list[str] = []
    assert tuning.pick("case", SLOW_FIRST, sleeper(calls)).label == "faster"
    assert calls == []  # remembered in this process
    model = irpool.load(CHAIN)
    x = np.random.default_rng(0).random((1, 3, 32, 32), dtype=np.float32)
    assert model.run({"input": x})["output"].shape[0] == 1


WRITER = """
import sys
from irpool.execute.engine import tuning
class Fake:
    def __init__(self, label): self.label = label
for n in range(20):
    key = f"{sys.argv[1]} {n}"
    tuning.pick(key, [(Fake("a"), 1.0), (Fake("b"), 1.0)], lambda c: None)
    assert tuning._choices()[key] in ("a", "b")
"""


def test_concurrent_writers_leave_a_whole_file() -> None:
    """Four processes write choices at once: every rename leaves a complete file, and each
    process keeps its own choices (another's rename may drop some from the file, which are
    timed again later)."""
    env = {**os.environ, "IRPOOL_TUNE": "1"}
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, f"writer{n}"], env=env) for n in range(4)
    ]
    assert [w.wait(timeout=120) for w in writers] == [0] * 4
    kept = json.loads(tuning.cache_file().read_text())
    assert kept and all(value in ("a", "b") for value in kept.values())
    assert {path.name for path in tuning.cache_file().parent.iterdir()} == {
        tuning.cache_file().name
    }


def test_the_cache_file_is_named_by_the_machine() -> None:
    here = tuning.cache_file()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tuning, "cpu_model", lambda: "Intel(R) Xeon(R) Platinum 8480+")
        tuning._machine_key.cache_clear()
        try:
            assert tuning.cache_file() != here and tuning.cache_file().parent == here.parent
        finally:
            tuning._machine_key.cache_clear()
    assert tuning.cache_file() == here


def test_a_model_times_its_first_run_of_a_shape_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Through `model.run`: the first run times the candidates, later runs reuse the choice
    (same bits), and the result agrees with the cost model's choice (IRPOOL_TUNE=0)."""
    timed: list[int] = []
    fastest = tuning._fastest
    monkeypatch.setattr(tuning, "_fastest", lambda run, c: timed.append(len(c)) or fastest(run, c))
    x = np.random.default_rng(1).standard_normal((1, 3, 32, 32)).astype(np.float32)
    tuned = irpool.load(CHAIN)
    first = tuned.run({"input": x})["output"]
    assert timed and min(timed) >= 2
    count = len(timed)
    again = tuned.run({"input": x})["output"]
    assert len(timed) == count and first.tobytes() == again.tobytes()
    monkeypatch.setenv("IRPOOL_TUNE", "0")
    plain = irpool.load(CHAIN).run({"input": x})["output"]
    np.testing.assert_allclose(first, plain, rtol=1e-6, atol=1e-7)
