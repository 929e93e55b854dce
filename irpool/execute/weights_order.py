"""The memory order a run holds the constant B of its matrix products in.

Exporters write a Linear layer as MatMul(x, W, transpose_b=true), W of [N, K] in row order. A
run that holds W so reads its transpose [K, N] against the rows' direction: a one-row product
(a decode step's) is then BLAS's dot-product gemv, which streams W at about half the memory
bandwidth of the row-wise gemv that reads W in column order (measured: 2.4 ms against 1.1 ms
for a [32000, 256] f32 lm_head cold from memory, OpenBLAS SkylakeX kernel, one thread). So W is
held in column order: the same values and shape (shape inference and every kernel see the
same array), only its order. Products of several rows (gemm) give the same bits either way;
a one-row product's sums are BLAS's other order, within MatMul's tolerance
(docs/ops/MatMul.md#numerics-and-tolerances).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.fold import Ref
from irpool.ops.mat_mul import MatMul1

if TYPE_CHECKING:
    from irpool.execute.plan import Step

__all__ = ["in_product_order"]


def in_product_order(steps: list[Step], constants: dict[Ref, NDArray[Any]]) -> None:
    """Hold each f32 matrix of `constants` that only MatMuls read, as their transposed B, in
    column order, in place: each copy replaces its array as it is made, so planning never
    holds two of them. Only arrays the plan owns (a decompressed or folded value, not a view
    of the weights file) are reordered, so no copy doubles the weights."""
    readers: dict[Ref, list[tuple[Step, int]]] = defaultdict(list)
    for step in steps:
        for port, ref in enumerate(step.inputs):
            if ref in constants:
                readers[ref].append((step, port))
    for ref, reading in readers.items():
        value = constants[ref]
        if (
            value.ndim == 2
            and value.dtype == np.float32
            and value.base is None
            and value.flags.c_contiguous
            and all(_reads_as_transposed_b(step, port) for step, port in reading)
        ):
            constants[ref] = np.asfortranarray(value)
        del value


def _reads_as_transposed_b(step: Step, port: int) -> bool:
    """Whether a step reads the input at `port` as the transposed B of a plain MatMul."""
    op = step.op
    return (
        port == 1
        and type(op) is MatMul1
        and op.transposes[1]
        and op.compressed_weights is None
        and op.activation_group is None
    )
