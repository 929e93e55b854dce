"""Swish and Sigmoid right after a product whose sums BLAS computes take NumPy's exp.

The CPU computes every Swish and Sigmoid with its polynomial exp (irpool.cpu.vector_exp),
after a Convolution or a MatMul as that product's post-op. irpool computes a Convolution's,
a GroupConvolution's and an f32 MatMul's sums by BLAS (or Winograd), whose last bits are not
the CPU's, so an activation reading one already has other inputs than the CPU's: there the
polynomial, about 7 times NumPy's exp (yolov8n at 640: 229-247 ms a run with it against
139-144 ms, 2026-12-07, AMD EPYC family 25 model 17), would buy no bits, and irpool takes
NumPy's exp (within 9 ulp, 0 below `EXP_UNDERFLOW` as on the CPU). After a MatMul whose
activations the CPU quantizes (`activation_group`: its sums are emulated to the bit), as in
an int8 or int4 LLM's MLP, or whose grouped compressed weights it sums as one FMA chain
(emulated too: `sums_in_one_chain`, an int4 LLM in groups of 16), and after anything else
(a TopK's scores), the polynomial.
"""

from __future__ import annotations

from collections.abc import Sequence
from copy import copy
from typing import Any

from irpool.cpu.compressed_weights import sums_in_one_chain
from irpool.cpu.replacements import ComputedLayer, Rewrite
from irpool.ops.activations import Sigmoid1, Swish4
from irpool.ops.base import Op
from irpool.ops.convolution import ConvolutionBase
from irpool.ops.mat_mul import MatMul1

_SEVERAL_ROWS = 2  # a prompt's: a single row's products are BLAS's


def activations_after_blas_products(
    computed: Sequence[ComputedLayer],
) -> dict[int, Rewrite | None]:
    """The Swish and Sigmoid layers whose data a product's BLAS sums give, with their op's
    `after_blas_product` set."""
    ops = {candidate.layer.id: candidate.op for candidate in computed}
    rewrites: dict[int, Rewrite | None] = {}
    for candidate in computed:
        if not isinstance(candidate.op, (Swish4, Sigmoid1)):
            continue
        if _sums_by_blas(ops.get(candidate.inputs[0][0])):
            op = copy(candidate.op)
            op.after_blas_product = True
            rewrites[candidate.layer.id] = Rewrite(op, candidate.inputs)
    return rewrites


def _sums_by_blas(op: Op | None) -> bool:
    if isinstance(op, MatMul1):
        return op.activation_group is None and not _chains_sums(op.compressed_weights)
    return isinstance(op, ConvolutionBase)


def _chains_sums(weights: Any) -> bool:
    """Whether a product by the weights a run holds (a CompressedWeights) sums several rows
    as one FMA chain, which is emulated (on a single row, BLAS's sums cost the polynomial
    only a row's worth)."""
    return weights is not None and sums_in_one_chain(
        weights.element_type, _SEVERAL_ROWS, weights.depth, weights.group
    )
