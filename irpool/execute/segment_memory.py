"""The memory check of a dynamic model's run, from what its re-inference found per step
(irpool/execute/reinfer.py): each output's bytes and the kernel's working memory, counted
once when the step is inferred, so that a run whose inferences are remembered (a decode
step's thousands of layers) replays its allocations over ints, not over shapes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from irpool.execute import memory
from irpool.execute.plan import ExecutionPlan, Ref, Step
from irpool.ops.base import TensorInfo


class StepMemory(Protocol):
    """What a step's inference found it takes: each output's bytes (in the held type) and
    their sum, and what its kernel needs besides (irpool/execute/memory.py)."""

    @property
    def output_sizes(self) -> tuple[int, ...]: ...

    @property
    def output_bytes(self) -> int: ...

    @property
    def working_bytes(self) -> int: ...


def most_bytes(inferred: Sequence[StepMemory]) -> int:
    """What bounds the peak memory of these steps: all their outputs and the largest working
    memory of one."""
    return sum(i.output_bytes for i in inferred) + max(
        (i.working_bytes for i in inferred), default=0
    )


def check_segment(
    plan: ExecutionPlan,
    steps: Sequence[Step],
    infos: Mapping[Ref, TensorInfo],
    inferred: Sequence[StepMemory],
    keep: bool,
    held: int,
) -> None:
    """Refuse before allocating when the steps (each with its inference) would not fit in
    the memory available, with `held` bytes of the run's tensors alive as they begin: as
    `memory.replay` on their shapes decides, which names the first step that does not fit."""
    most = held + most_bytes(inferred)  # no peak exceeds it
    if most * memory.CHECK_SHARE <= memory.physical_memory():
        return  # far below the machine's memory: no replay
    available = memory.available_memory()
    if most <= available:
        return
    peak = _replayed_peak(steps, inferred, keep, held)
    if peak * memory.CHECK_SHARE > memory.physical_memory() and peak > available:
        # the replay on the shapes refuses at the first step that exceeds
        shapes = {ref: info.shape for ref, info in infos.items()}
        memory.replay(steps, shapes, plan.types, available, keep, held)


def _replayed_peak(
    steps: Sequence[Step], inferred: Sequence[StepMemory], keep: bool, live: int
) -> int:
    """`memory.replay`'s peak, from each step's output sizes and working memory."""
    held: dict[Ref, int] = {}
    peak = 0
    for step, found in zip(steps, inferred, strict=True):
        sizes = found.output_sizes
        peak = max(peak, live + found.output_bytes + found.working_bytes)
        layer_id = step.layer.id
        for index in step.kept:
            held[(layer_id, index)] = sizes[index]
            live += sizes[index]
        for source in () if keep else step.frees:
            live -= held.pop(source, 0)
    return peak
