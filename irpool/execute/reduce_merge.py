"""OpenVINO's ReduceMerge, which the CPU plugin applies when it compiles a model: a Reduce of
the output of a Reduce of the same kind and keep_dims, both with constant axes, becomes one
Reduce over both sets of axes (chains merge whole). The first still runs when something else
reads it. Measured (docs/semantics.md §9.4): an u8 ReduceMean over axis 2 then axis 1 of
[[1,2],[2,3]] truncates once (2, not 1), and a NaN meets ReduceMax's scan in the merged order.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.fold import Candidate, Ref
from irpool.execute.kernels.reduce import run_reduce
from irpool.execute.registry import OutputSpec
from irpool.ops.base import LayerContext, Op, TensorInfo
from irpool.ops.reduce import Reduce


class MergedReduces(Op):
    """A chain of Reduces as one step: its inputs are the first's data, then each op's axes;
    `infer` runs the chain's inference (a run re-infers dynamic models step by step)."""

    type_name = "ReduceMerge"

    def __init__(self, ops: tuple[Reduce, ...]) -> None:
        super().__init__(ops[-1].attrs)
        self.ops = ops

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        current = inputs[0]
        for op, axes in zip(self.ops, inputs[1:], strict=True):
            current = op.infer([current, axes], ctx)[0]
        return [current]


def merge_reduce_chains(
    computed: list[Candidate], constants: Collection[Ref], returned: Collection[Ref]
) -> list[Candidate]:
    """`computed` with each mergeable chain of Reduces run as one step; a merged Reduce that
    nothing else reads (no step, no Result in `returned`) is dropped."""
    chains: dict[int, tuple[tuple[Reduce, ...], tuple[Ref, ...]]] = {}  # layer id: ops, inputs
    merged: list[Candidate] = []
    for candidate in computed:
        op, inputs = candidate.op, candidate.inputs
        if isinstance(op, Reduce) and inputs[1] in constants:
            first = chains.get(inputs[0][0])
            if first is not None and inputs[0][1] == 0 and _same_kind(first[0][-1], op):
                ops, sources = (*first[0], op), (*first[1], inputs[1])
                candidate = replace(
                    candidate, op=MergedReduces(ops), kernel=run_merged_reduces, inputs=sources
                )
            else:
                ops, sources = (op,), inputs
            chains[candidate.layer.id] = (ops, sources)
        merged.append(candidate)
    read = {ref for candidate in merged for ref in candidate.inputs} | set(returned)
    return [
        candidate
        for candidate in merged
        if any((candidate.layer.id, i) in read for i in range(len(candidate.outputs)))
    ]


def _same_kind(first: Reduce, second: Reduce) -> bool:
    return first.reduction == second.reduction and first.keep_dims == second.keep_dims


def run_merged_reduces(
    op: Op, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    """The chain of `op` (a MergedReduces) on `inputs` (the data, then each op's axes) as
    one Reduce over the union of their axes, mapped back to the data's axes."""
    assert isinstance(op, MergedReduces)
    data, axes_inputs, last = inputs[0], inputs[1:], op.ops[-1]
    if data.ndim == 0:  # a scalar stays a scalar through every step
        return run_reduce(last, [data, axes_inputs[-1]], outputs)
    positions = list(range(data.ndim))  # the data axis each axis of the current step is
    union: set[int] = set()
    for reduce, axes in zip(op.ops, axes_inputs, strict=True):
        normalized = reduce.normalized_axes(axes, len(positions))
        union |= {positions[axis] for axis in normalized}
        if not reduce.keep_dims:
            positions = [p for axis, p in enumerate(positions) if axis not in normalized]
    return run_reduce(last, [data, np.array(sorted(union), np.int64)], outputs)
