"""OpenVINO's PullUnsqueezeThroughReduce and PullReshapeThroughReduce, which the CPU plugin
applies when it compiles a model: an Unsqueeze, or a Reshape that only inserts 1s, moves below
the Reduce it feeds (docs/cpu.md, "Reduce after inserted 1s keeps its axes as written").

In OpenVINO 2026.4 the rewrite keeps the Reduce's axes constant as written when renumbering
leaves its normalized axes unchanged, so a negative axis then counts from the end of the
smaller input, and it renumbers the inserted 1s past the reduced axes even with keep_dims. The
model then fails to compile ("Axis -3 out of the tensor rank range") or returns another shape
and other values. `pulled_through_reduce` replays the rewrite (measured on 2,000
configurations, every one predicted: docs/graph-rewrites.md#reduce-after-unsqueeze-or-reshape).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Literal

Outcome = Literal["compile", "wrong"]


def pulled_through_reduce(
    before: Sequence[Hashable], ones: Sequence[int], written: Sequence[int], keep_dims: bool
) -> Outcome | None:
    """What the CPU makes of Reduce(axes=`written`) over `before` with 1s inserted at `ones`
    (sorted output positions): None when it computes what is written. `before` holds the
    input's dims (distinct labels for dynamic ones)."""
    rank, full_rank = len(before), len(before) + len(ones)
    if not all(-full_rank <= a < full_rank for a in written):
        return None  # shape inference refuses it anyway (IR303)
    reduced = sorted({a % full_rank for a in written})
    if set(ones) & set(reduced):
        return None  # the rewrite does not apply
    moved = _renumbered(reduced, ones)
    used = list(written) if moved == reduced else moved  # the constant reused as written
    if not all(-rank <= a < rank for a in used):
        return "compile"
    cpu_axes = sorted({a % rank for a in used}) if rank else []
    cpu_shape = _reduced(list(before), cpu_axes, keep_dims)
    for position in _renumbered(list(ones), reduced):
        cpu_shape.insert(position, 1)
    full: list[Hashable] = list(before)
    for position in ones:
        full.insert(position, 1)
    if cpu_axes != moved or cpu_shape != _reduced(full, reduced, keep_dims):
        return "wrong"
    return None


def _renumbered(axes: Sequence[int], removed: Sequence[int]) -> list[int]:
    """OpenVINO's adjust_axes: each axis less the number of `removed` axes before it."""
    return [a - sum(r < a for r in removed) for a in axes]


def _reduced(dims: list[Hashable], axes: Sequence[int], keep_dims: bool) -> list[Hashable]:
    if keep_dims:
        return [1 if i in axes else d for i, d in enumerate(dims)]
    return [d for i, d in enumerate(dims) if i not in axes]


def ones_of_reshape(target: tuple[int, ...], source: tuple[int, ...]) -> list[int]:
    """OpenVINO's try_get_unsqueeze_axes_from_reshape: where a Reshape from `source` to
    `target` inserts 1s, or [] when it does more than that."""
    if not source:
        return list(range(len(target)))
    ones: list[int] = []
    index = 0
    for position, dim in enumerate(target):
        if dim == source[index] and index + 1 < len(source):
            index += 1
        elif dim == 1 and (position >= len(source) + len(ones) or source[index] != 1):
            ones.append(position)
    return ones if index == len(source) - 1 else []
