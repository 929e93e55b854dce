"""The causal-mask chain in one step (irpool/execute/mask_chain.py): where the shapes are a
decode's, the Select of the chain's boolean Convert of the mask at [b, k] and k <= P + s;
otherwise the chain's own kernels in order."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.kernels.select import run_select
from irpool.execute.mask_chain import CausalMask, decode_sizes
from irpool.execute.registry import OutputSpec, kernel_for, kernel_of

_BOOLEAN = (OutputSpec.of("boolean"),)


@kernel_for(CausalMask)
def run_causal_mask(
    op: CausalMask, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    cache, hidden, mask, then, otherwise = inputs
    sizes = decode_sizes(cache.shape, hidden.shape, mask.shape)
    if sizes is None:
        return run_select(op, [_chain_condition(op, inputs[:3]), then, otherwise], outputs)
    _, length, total = sizes
    assert op.convert is not None
    kept = _kernel(op.convert)(op.convert, [mask], _BOOLEAN)[0]
    assert kept is not None
    positions = np.arange(total - length, total, dtype=np.int64)  # P + s
    causal = np.arange(total, dtype=np.int64) <= positions[:, None]
    condition = np.logical_and(kept[:, None, None, :], causal)
    return run_select(op, [condition, then, otherwise], outputs)


def _chain_condition(op: CausalMask, sources: Sequence[NDArray[Any]]) -> NDArray[Any]:
    """The Select's condition as the chain's layers compute it, one kernel after another."""
    tensors: dict[tuple[int, int], Any] = {
        **op.constants,
        **dict(zip(op.sources, sources, strict=True)),
    }
    for link in op.links:
        produced = _kernel(link.op)(link.op, [tensors[ref] for ref in link.inputs], link.outputs)
        tensors.update(((link.layer_id, i), array) for i, array in enumerate(produced))
    condition: NDArray[Any] = tensors[op.condition]
    return condition


def _kernel(op: Any) -> Any:
    kernel = kernel_of(op)
    assert kernel is not None  # the chain's layers had kernels when planned
    return kernel
