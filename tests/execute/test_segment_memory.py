"""A dynamic run's memory check replays its allocations from each step's inference
(irpool/execute/segment_memory.py): the peak `memory.replay` finds on the shapes, and its
refusal."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pytest

import irpool
from irpool.execute import memory, run, segment_memory
from irpool.execute.plan import ExecutionPlan, Ref, Step
from irpool.ops.base import TensorInfo

LLAMA = Path(__file__).resolve().parent.parent / "models" / "language" / "llama-fp16"


class _Checked(NamedTuple):
    """One segment's check: the peak from its inferences, the replay's on its shapes, and
    the bound of all its outputs (with what the run held)."""

    peak: int
    replayed: int
    most: int


def _recorded(monkeypatch: pytest.MonkeyPatch) -> list[_Checked]:
    """Each segment's check as the runs go (the check itself made too)."""
    checked: list[_Checked] = []
    check = segment_memory.check_segment

    def recording(
        plan: ExecutionPlan,
        steps: Sequence[Step],
        infos: Mapping[Ref, TensorInfo],
        inferred: Sequence[segment_memory.StepMemory],
        keep: bool,
        held: int,
    ) -> None:
        shapes = {ref: info.shape for ref, info in infos.items()}
        checked.append(
            _Checked(
                segment_memory._replayed_peak(steps, inferred, keep, held),
                memory.replay(steps, shapes, plan.types, keep=keep, live=held),
                held + segment_memory.most_bytes(inferred),
            )
        )
        check(plan, steps, infos, inferred, keep, held)

    monkeypatch.setattr(run, "check_segment", recording)
    return checked


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
    checked = _recorded(monkeypatch)
    model = irpool.load(LLAMA / "openvino_model.xml")
    if keep:
        for length in (4, 1):
            model.run(_decode_inputs(0, length), intermediates=True)
    else:
        request = model.create_infer_request()
        for position, length in ((0, 4), (4, 1), (5, 1), (6, 1)):
            request.infer(_decode_inputs(position, length))
    assert len(checked) >= 2 and all(c.peak == c.replayed for c in checked)


def test_a_run_fits_up_to_its_peak_and_is_refused_past_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Refused as the replay on the shapes refuses (naming the layer), only when the peak,
    not the bound of all the outputs, exceeds the memory available."""
    model = irpool.load(LLAMA / "openvino_model.xml")
    inputs = _decode_inputs(0, 4)
    checked = _recorded(monkeypatch)
    monkeypatch.setattr(memory, "physical_memory", lambda: 1 << 20)  # every run is checked
    model.run(inputs)
    ((peak, _, most),) = checked
    assert 0 < peak < most
    monkeypatch.setattr(memory, "available_memory", lambda: peak)
    model.run(inputs)
    monkeypatch.setattr(memory, "available_memory", lambda: peak - 1)
    with pytest.raises(irpool.ExecutionError, match=r"layer .* of memory is available"):
        model.run(inputs)
