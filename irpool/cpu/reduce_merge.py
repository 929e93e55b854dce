"""OpenVINO's ReduceMerge, which the CPU plugin applies when it compiles a model: a Reduce of
the output of a Reduce of the same kind and keep_dims, both with constant axes, becomes one
Reduce over both sets of axes (chains merge whole). The first still runs when something else
reads it. Measured (docs/graph-rewrites.md#reducemerge): an u8 ReduceMean over axis 2 then axis 1 of
[[1,2],[2,3]] truncates once (2, not 1), and a NaN meets ReduceMax's scan in the merged order.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from irpool.cpu.replacements import ComputedLayer, Ref, Rewrite
from irpool.ops.base import LayerContext, Op, Role, TensorInfo
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


def merged_reduce_chains(
    computed: Sequence[ComputedLayer], constants: Collection[Ref], returned: Collection[Ref]
) -> dict[int, Rewrite | None]:
    """What runs instead of each Reduce of `computed` that ends a mergeable chain: the chain
    as one step; None for a merged Reduce that nothing else reads (no step, no Result in
    `returned`)."""
    chains: dict[int, tuple[tuple[Reduce, ...], tuple[Ref, ...]]] = {}  # layer id: ops, inputs
    rewrites: dict[int, Rewrite | None] = {}
    read = set(returned)
    for candidate in computed:
        op, inputs, layer_id = candidate.op, candidate.inputs, candidate.layer.id
        if isinstance(op, Reduce) and inputs[1] in constants:
            first = chains.get(inputs[0][0])
            if first is not None and inputs[0][1] == 0 and _same_kind(first[0][-1], op):
                ops, inputs = (*first[0], op), (*first[1], inputs[1])
                rewrites[layer_id] = Rewrite(MergedReduces(ops), inputs)
            else:
                ops = (op,)
            chains[layer_id] = (ops, inputs)
        read.update(inputs)
    for candidate in computed:
        layer_id = candidate.layer.id
        sink = candidate.op.role is Role.VARIABLE  # an Assign: nothing reads it, it stays
        if not sink and not any((layer_id, i) in read for i in range(len(candidate.produced))):
            rewrites[layer_id] = None
    return rewrites


def _same_kind(first: Reduce, second: Reduce) -> bool:
    return first.reduction == second.reduction and first.keep_dims == second.keep_dims
