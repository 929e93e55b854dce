"""When a run frees its intermediate tensors: each right after the step that reads it last."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from irpool.execute.fold import Ref


def frees_by_step(
    reads: Sequence[Sequence[Ref]], makes: Sequence[Iterable[Ref]], never_freed: set[Ref]
) -> list[tuple[Ref, ...]]:
    """For each step (the tensors it reads and those it makes), the tensors to free after it:
    those it reads last and those it makes that no step reads, never one of `never_freed`
    (constants, a Result's sources)."""
    last_reader = {ref: index for index, refs in enumerate(reads) for ref in refs}
    frees: list[list[Ref]] = [[] for _ in reads]
    for ref, index in last_reader.items():
        if ref not in never_freed:
            frees[index].append(ref)
    for index, refs in enumerate(makes):
        frees[index].extend(
            ref for ref in refs if ref not in last_reader and ref not in never_freed
        )
    return [tuple(refs) for refs in frees]
