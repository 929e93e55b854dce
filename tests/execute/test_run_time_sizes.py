"""A size known only at run time (AdaptiveAvgPool-8 / AdaptiveMaxPool-8 `output_size` fed by a
Parameter): every int64 value either runs as the CPU plugin runs it or is refused with
irpool's own error naming the layer and the value, never a bare NumPy error or MemoryError.

Measured on the CPU plugin (docs/ops/AdaptiveAvgPool.md#output-size-known-only-at-run-time): i64
sizes are wrapped to int32 (2**40
and -2**63 give an empty axis, 2**31 is negative), 0 gives an empty axis, a negative size
fails the infer request."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import irpool
from irpool.cli import cli
from irpool.execute import memory
from tests import ir
from tests.scale import examples

MODELS = Path(__file__).resolve().parent.parent / "golden" / "models"
AVG = MODELS / "adaptive8_r4_runtime_size_i64.xml"  # in f32 [1,3,16,16], output_size i64 [2]
AVG_F16 = MODELS / "adaptive8_r3_runtime_size_i32_f16_dyn_batch.xml"  # f16 [?,4,10], i32 [1]
X = np.random.default_rng(0).random((1, 3, 16, 16), dtype=np.float32)
INT64 = st.integers(-(2**63), 2**63 - 1)
FREE = 256 << 20  # more than a kernel's block allowance (64 MiB)
SIZES = INT64 | st.integers(-3, 40) | st.sampled_from([2**31, 2**32, 2**32 + 5, -(2**32) + 3])


def max_pool_model(tmp_path: Path) -> Path:
    """The AdaptiveAvgPool model as AdaptiveMaxPool-8 (i32 indices, unread)."""
    text = AVG.read_text()
    text = text.replace(
        'type="AdaptiveAvgPool" version="opset8">',
        'type="AdaptiveMaxPool" version="opset8">\n\t\t\t<data index_element_type="i32" />',
    )
    indices = ir.port(3, (1, 3, -1, -1), "I32", "indices")
    end = '</output>\n\t\t</layer>\n\t\t<layer id="3"'
    text = text.replace(end, indices + "\t\t\t" + end, 1)
    path = tmp_path / "adaptive_max_runtime_size.xml"
    path.write_text(text)
    (tmp_path / "adaptive_max_runtime_size.bin").write_bytes(AVG.with_suffix(".bin").read_bytes())
    return path


@pytest.fixture(params=["avg", "max"])
def model(request: pytest.FixtureRequest, tmp_path: Path) -> irpool.Model:
    path = AVG if request.param == "avg" else max_pool_model(tmp_path)
    loaded = irpool.load(path)
    assert not loaded.has_errors, [d.message for d in loaded.validate()]
    return loaded


def run(model: irpool.Model, size: list[int]) -> dict[str, Any]:
    return model.run({"in": X, "output_size": np.array(size, np.int64)})


@pytest.fixture
def small_memory(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A machine where every run is checked and FREE bytes are free."""
    monkeypatch.setattr(memory, "physical_memory", lambda: 0)
    monkeypatch.setattr(memory, "available_memory", lambda: FREE)
    yield


@pytest.mark.parametrize(
    ("size", "named"),
    [
        ([-1, 2], "holds -1"),
        ([-5, 2], "holds -5"),
        ([2**31, 2], "holds -2147483648 (2147483648 wrapped to int32"),
        ([2, 2**32 - 1], "holds -1 (4294967295 wrapped to int32"),
    ],
)
def test_a_negative_size_is_an_input_error_naming_the_layer_and_value(
    model: irpool.Model, size: list[int], named: str
) -> None:
    with pytest.raises(irpool.InputError) as raised:
        run(model, size)
    message = str(raised.value)
    assert '"pool"' in message
    assert named in message


@pytest.mark.parametrize("size", [[0, 2], [2**40, 2], [-(2**63), 3], [2**32, 1]])
def test_a_size_wrapping_to_zero_gives_an_empty_axis_as_on_cpu(
    model: irpool.Model, size: list[int]
) -> None:
    held = [int(v) for v in np.array(size, np.int64).astype(np.int32)]
    assert all(out.shape[2:] == tuple(held) for out in run(model, size).values())


def test_zeros_on_every_axis_fail_avg_pool_only(model: irpool.Model) -> None:
    """Measured: AdaptiveAvgPool's request fails ("Cannot get dims for non static shape"),
    AdaptiveMaxPool gives [1,3,0,0]."""
    if "max" in model.path.name:
        assert all(out.shape == (1, 3, 0, 0) for out in run(model, [0, 2**32]).values())
    else:
        with pytest.raises(irpool.InputError, match="0,4294967296 is 0 on every axis"):
            run(model, [0, 2**32])


@pytest.mark.usefixtures("small_memory")
@pytest.mark.parametrize("size", [[2**20, 2], [2**31 - 1, 2**31 - 1], [1, 2**24]])
def test_a_huge_valid_size_is_refused_by_the_memory_check(
    model: irpool.Model, size: list[int]
) -> None:
    with pytest.raises(
        irpool.ExecutionError, match=r'"pool" \(Adaptive(Avg|Max)Pool\): its output'
    ):
        run(model, size)


def test_the_memory_estimate_counts_the_per_axis_geometry() -> None:
    """An output of 2**27 f16 values on a 10-long axis needs 256 MiB; its box matrices and
    boxes several GiB more: those are in the estimate."""
    needed = memory.working_bytes((1, 4, 10), (1, 4, 2**27))
    assert needed > 2 * 10 * 8 * 2**27


@pytest.mark.usefixtures("small_memory")
def test_the_f16_dynamic_batch_model_refuses_too() -> None:
    loaded = irpool.load(AVG_F16)
    x = np.ones((2, 4, 10), np.float16)
    with pytest.raises(irpool.InputError, match="holds -7"):
        loaded.run({"in": x, "output_size": np.array([-7], np.int32)})
    with pytest.raises(irpool.ExecutionError, match="memory is available"):
        loaded.run({"in": x, "output_size": np.array([2**27], np.int32)})
    assert loaded.run({"in": x, "output_size": np.array([0], np.int32)})["out"].shape == (2, 4, 0)


@pytest.mark.parametrize(
    ("size", "code", "said"),
    [
        ([-5, 2], 1, 'layer 2 "pool" (AdaptiveAvgPool) fails: output_size -5,2 holds -5'),
        ([2**31, 2], 1, "2147483648 wrapped to int32"),
        ([2**31 - 1, 2**31 - 1], 1, "memory is available"),
        ([3, 2], 0, "shape 1x3x3x2"),
    ],
)
def test_cli_exit_code_and_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: list[int], code: int, said: str
) -> None:
    monkeypatch.setattr(memory, "physical_memory", lambda: 0)
    monkeypatch.setattr(memory, "available_memory", lambda: FREE)
    np.savez(tmp_path / "in.npz", **{"in": X, "output_size": np.array(size, np.int64)})
    result = CliRunner().invoke(cli, ["run", str(AVG), "-i", str(tmp_path / "in.npz")])
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, (ValueError, MemoryError))
    assert result.exit_code == code, result.output
    assert said in result.output


@pytest.fixture(scope="module")
def cpu() -> Any:
    ov = pytest.importorskip("openvino")
    core = ov.Core()
    return core.compile_model(core.read_model(AVG), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})


@pytest.mark.oracle
@settings(max_examples=examples(60), deadline=None)
@given(size=st.lists(SIZES, min_size=2, max_size=2))
def test_any_int64_size_runs_as_cpu_or_is_refused(cpu: Any, size: list[int]) -> None:
    loaded = irpool.load(AVG)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(memory, "physical_memory", lambda: 0)
        patch.setattr(memory, "available_memory", lambda: FREE)
        try:
            got = run(loaded, size)["out"]
        except irpool.IRError:
            return
    expected = cpu.create_infer_request().infer({0: X, 1: np.array(size, np.int64)})
    (want,) = expected.values()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_threads_with_different_sizes_at_once(model: irpool.Model) -> None:
    sizes = [[1, 1], [4, 4], [3, 7], [16, 16], [-2, 3], [0, 5], [17, 5], [2**31, 1]]
    expected: dict[int, Any] = {}
    for index, size in enumerate(sizes):
        try:
            expected[index] = {k: v.copy() for k, v in run(model, size).items()}
        except irpool.InputError as error:
            expected[index] = str(error)
    got: dict[int, Any] = {}
    barrier = threading.Barrier(len(sizes))

    def worker(index: int) -> None:
        barrier.wait()
        for _ in range(5):
            try:
                got[index] = run(model, sizes[index])
            except irpool.InputError as error:
                got[index] = str(error)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(sizes))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for index, want in expected.items():
        if isinstance(want, str):
            assert got[index] == want
        else:
            assert got[index].keys() == want.keys()
            for key, array in want.items():
                np.testing.assert_array_equal(got[index][key], array)
