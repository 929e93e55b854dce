"""Swish and Sigmoid right after a Convolution or GroupConvolution take NumPy's exp.

The CPU runs such an activation as the convolution's eltwise post-op, with the same polynomial
exp as everywhere (irpool.cpu.vector_exp). irpool's convolution sums are BLAS's or
Winograd's, whose last bits are not the CPU's, so these activations' inputs already differ
from the CPU's: the polynomial, about 7 times NumPy's exp on a feature map (yolov8n 640:
229-247 ms a run against 142-144 ms, 2026-12-07, AMD EPYC family 25 model 17), would buy no
bits there. NumPy's exp is within 9 ulp of it, and below `EXP_UNDERFLOW` both give 0.
Every other Swish and Sigmoid (an LLM's MLP, whose inputs are the CPU's bits; a TopK's
scores) computes the polynomial.
"""

from __future__ import annotations

from collections.abc import Sequence
from copy import copy

from irpool.cpu.replacements import ComputedLayer, Rewrite
from irpool.ops.activations import Sigmoid1, Swish4

CONVOLUTIONS = frozenset({"Convolution", "GroupConvolution"})


def activations_after_convolutions(computed: Sequence[ComputedLayer]) -> dict[int, Rewrite | None]:
    """The Swish and Sigmoid layers whose data is a convolution's output, with their op's
    `after_convolution` set."""
    types = {candidate.layer.id: candidate.layer.type for candidate in computed}
    rewrites: dict[int, Rewrite | None] = {}
    for candidate in computed:
        if not isinstance(candidate.op, (Swish4, Sigmoid1)):
            continue
        if types.get(candidate.inputs[0][0]) in CONVOLUTIONS:
            op = copy(candidate.op)
            op.after_convolution = True
            rewrites[candidate.layer.id] = Rewrite(op, candidate.inputs)
    return rewrites
