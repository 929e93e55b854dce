"""The steps of a run whose variables are all held: a ReadValue's initializer gives the
variable's first value only (docs/ops/ReadValue.md), so once an infer request holds every
variable a ReadValue initializes (each run after the first), the steps that compute nothing
but initializers have no reader. The CPU plugin runs a ReadValue's initializing subgraph
only when its state is reset; a decode step of an optimum export skips 18 of its 204 steps
a token (the zeros of each KV cache's first value, their shapes and the shape they read)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from irpool.execute.frees import frees_by_step

if TYPE_CHECKING:
    from irpool.execute.fold import Ref
    from irpool.execute.plan import Step


@dataclass(frozen=True, slots=True)
class HeldSteps:
    """The steps a run takes when it holds every one of `variables` (each a ReadValue's with
    an initializer) and nothing observes or keeps the run's tensors."""

    variables: frozenset[str]
    steps: list[Step]


def steps_when_held(steps: Sequence[Step], never_freed: Iterable[Ref]) -> HeldSteps | None:
    """The run's steps without those whose outputs only initializers read, directly or
    through other such steps (never a Result's source, a ReadValue or an Assign); each
    ReadValue with an initializer reads nothing, and each tensor is freed after its last
    reader among the steps left. None: no step to skip."""
    returned = set(never_freed)
    readers: dict[Ref, list[int]] = {}
    initializing: set[Ref] = set()
    for position, step in enumerate(steps):
        if _initialized(step):
            initializing.add(step.inputs[0])
        for ref in step.inputs[1:] if _initialized(step) else step.inputs:
            readers.setdefault(ref, []).append(position)
    skipped: set[int] = set()
    for position in range(len(steps) - 1, -1, -1):  # readers come after their sources
        step = steps[position]
        if step.reads_variable is not None or step.assign is not None:
            continue
        refs = [(step.layer.id, index) for index in step.kept]
        read = [reader for ref in refs for reader in readers.get(ref, ())]
        if (
            returned.isdisjoint(refs)
            and (read or not initializing.isdisjoint(refs))
            and all(reader in skipped for reader in read)
        ):
            skipped.add(position)
    if not skipped:
        return None
    variables = frozenset(s.reads_variable for s in steps if s.reads_variable and s.inputs)
    left = [
        replace(step, inputs=(), frees=(), overwriting=None) if _initialized(step) else step
        for position, step in enumerate(steps)
        if position not in skipped
    ]
    return HeldSteps(variables, _freed_again(left, returned))


def _freed_again(steps: list[Step], returned: set[Ref]) -> list[Step]:
    """The steps, each freeing the tensors it reads last, and those it makes that no step
    reads (a skipped step did), but never a constant or a Result's source."""
    makes = [[(step.layer.id, output) for output in step.kept] for step in steps]
    frees = frees_by_step([step.inputs for step in steps], makes, returned)
    return [
        step if frees[index] == step.frees else replace(step, frees=frees[index])
        for index, step in enumerate(steps)
    ]


def _initialized(step: Step) -> bool:
    """Whether a step is a ReadValue with an initializer."""
    return step.reads_variable is not None and bool(step.inputs)
