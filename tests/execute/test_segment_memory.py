"""A dynamic run's memory check replays its allocations from each step's inference
(irpool/execute/segment_memory.py): the peak `memory.replay` finds on the shapes, and its
refusal."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irpool
from irpool.execute import memory, run, segment_memory
from irpool.execute.plan import ExecutionPlan, Ref, Step
from irpool.ops.base import TensorInfo

LLAMA = Path(__file__).resolve().parent.parent / "models" / "language" / "llama-fp16"


def _decode_inputs(position: int, length: int = 1) -> dict[str | int, Any]:
    return {
        "input_ids": np.arange(5, 5 + length, dtype=np.int64)[None],
        "attention_mask": np.ones((1, position + length), np.int64),
        "position_ids": np.arange(position, position + length, dtype=np.int64)[None],
        "beam_idx": np.zeros(1, np.int32),
    }


@pytest.mark.parametrize("keep", [False, True])
def test_the_peak_is_the_replays_on_the_shapes(monkeypatch: pytest.MonkeyPatch, keep: bool) -> None:
    """At every token (the prompt, then steps whose inferences are remembered), and keeping
    every tensor or not."""
    peaks: list[tuple[int, int]] = []

    def compared(
        plan: ExecutionPlan,
        steps: Sequence[Step],
        infos: Mapping[Ref, TensorInfo],
        inferred: Sequence[segment_memory.StepMemory],
        keep: bool,
        held: int,
    ) -> None:
        shapes = {ref: info.shape for ref, info in infos.items()}
        replayed = memory.replay(steps, shapes, plan.types, keep=keep, live=held)
        peaks.append((segment_memory._replayed_peak(steps, inferred, keep, held), replayed))

    monkeypatch.setattr(run, "check_segment", compared)
    model = irpool.load(LLAMA / "openvino_model.xml")
    if keep:
        for length in (4, 1):
            model.run(_decode_inputs(0, length), intermediates=True)
    else:
        request = model.create_infer_request()
        for position, length in ((0, 4), (4, 1), (5, 1), (6, 1)):
            request.infer(_decode_inputs(position, length))
    assert len(peaks) >= 2 and all(found == replayed for found, replayed in peaks)


def test_a_run_beyond_the_memory_available_is_refused_at_its_first_layer_that_does_not_fit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = irpool.load(LLAMA / "openvino_model.xml")
    request = model.create_infer_request()
    request.infer(_decode_inputs(0, 4))
    monkeypatch.setattr(memory, "physical_memory", lambda: 1 << 20)
    monkeypatch.setattr(memory, "available_memory", lambda: 1 << 10)
    with pytest.raises(irpool.ExecutionError, match=r"of memory is available"):
        request.infer(_decode_inputs(4))
    monkeypatch.setattr(memory, "available_memory", lambda: 1 << 30)
    request.infer(_decode_inputs(4))  # the same run fits when the memory is there
