"""Shape bombs: dims that make a tensor terabytes. `validate` works on shapes and allocates
nothing; `run` refuses before allocating, naming the layer, the shape, the bytes it would
need and the memory available."""

from __future__ import annotations

import re
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irpool
from irpool.execute import memory
from tests import ir

HUGE = 1 << 30
SMALL_INPUT = (1, 2, 4, 4)


@pytest.fixture
def peak() -> Iterator[Callable[[], int]]:
    """The peak of memory allocated through Python and NumPy since the test started."""
    tracemalloc.start()
    try:
        yield lambda: tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_validate_declared_terabytes(tmp_path: Path, peak: Callable[[], int]) -> None:
    """A [1,64,2**30,2**30] f32 Parameter (256 PiB) and a pool over it: checked, clean."""
    shape = (1, 64, HUGE, HUGE)
    model = irpool.load(ir.write(tmp_path, ir.pool_model(shape, kernel=3, pad=1)))
    assert model.validate() == []
    assert model.output_shapes()["pool"][0].values() == shape
    assert peak() < 16 << 20


def test_validate_const_of_terabytes(tmp_path: Path, peak: Callable[[], int]) -> None:
    """A Const whose shape needs 8 TiB in a 16-byte .bin: refused on sizes alone."""
    text = ir.adaptive_model().replace(
        'shape="2" offset="0" size="16"', f'shape="{HUGE},{HUGE // 128}" offset="0" size="16"'
    )
    found = irpool.load(ir.write(tmp_path, text, ir.weights((2, 2)))).validate()
    assert "IR403" in {d.code for d in found}
    assert peak() < 16 << 20


def run_refused(path: Path, inputs: dict[str, Any]) -> str:
    with pytest.raises(irpool.ExecutionError) as raised:
        irpool.load(path).run(inputs)
    return str(raised.value)


def test_run_refuses_padding_bomb(tmp_path: Path, peak: Callable[[], int]) -> None:
    """A 4x4 input padded by 100,000 on each side: a [1,2,200004,200004] output, 298 GiB."""
    path = ir.write(tmp_path, ir.pool_model(SMALL_INPUT, kernel=1, pad=100_000))
    message = run_refused(path, {"input": np.ones(SMALL_INPUT, np.float32)})
    assert re.search(
        r'^layer 1 "pool" \(AvgPool\): its output \[1,2,200004,200004\] \(f32\) needs '
        r"298\.0 GiB, .* only [\d.]+ [KMGT]?i?B of memory is available$",
        message,
    ), message
    assert peak() < 16 << 20


def test_run_refuses_output_size_bomb(tmp_path: Path, peak: Callable[[], int]) -> None:
    """AdaptiveAvgPool to 1,000,000 x 1,000,000 from a 4x4 input: 3.6 TiB per plane."""
    out = (1_000_000, 1_000_000)
    path = ir.write(tmp_path, ir.adaptive_model(SMALL_INPUT, out), ir.weights(out))
    message = run_refused(path, {"input": np.ones(SMALL_INPUT, np.float32)})
    assert '"pool" (AdaptiveAvgPool): its output [1,2,1000000,1000000] (f32) needs 7.3 TiB' in (
        message
    )
    assert peak() < 16 << 20


def test_run_counts_only_what_it_allocates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The input is already in memory: a run that adds less than what is available runs,
    however large the input itself."""
    shape = (1, 4, 64, 64)
    path = ir.write(tmp_path, ir.pool_model(shape, kernel=2))
    x = np.ones(shape, np.float32)
    out_bytes = 4 * 63 * 63 * 4
    needed = out_bytes + memory.working_bytes(shape, (1, 4, 63, 63))
    monkeypatch.setattr(memory, "physical_memory", lambda: 0)  # a machine where every run checks
    monkeypatch.setattr(memory, "available_memory", lambda: needed)
    assert irpool.load(path).run({"input": x})["output"].shape == (1, 4, 63, 63)
    monkeypatch.setattr(memory, "available_memory", lambda: needed - 1)
    assert "needs 62.0 KiB" in run_refused(path, {"input": x})
