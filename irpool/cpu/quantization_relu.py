"""A ReLU whose one reader is a FakeQuantize computed as the snippet (irpool.cpu.quantization)
with every input_low at or above 0 changes nothing of that FakeQuantize's output, bit for bit:
the snippet clamps x below il to il as ReLU's 0 is, NaN gives il both ways (ReLU makes it 0,
the snippet's clamp il), and a zero's sign shows only through an output_low of -0, where the
snippet's clamp makes -0 and +0 one level. So the run skips such a ReLU (an f32 one, whose
output nothing else reads and no Result returns) and the FakeQuantize reads its input: one pass
less over the tensor, as in NNCF's Convolution -> ReLU -> FakeQuantize chains.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import f32_operand
from irpool.cpu.quantization import kernel_for_layer
from irpool.cpu.quantization_refusals import is_stripped
from irpool.cpu.replacements import ComputedLayer, Ref, Rewrite
from irpool.ops.activations import Relu1
from irpool.ops.fake_quantize import FakeQuantize1


def relus_before_quantizers(
    computed: Sequence[ComputedLayer],
    constants: Mapping[Ref, NDArray[Any]],
    returned: Collection[Ref],
) -> dict[int, Rewrite | None]:
    """The ReLUs of `computed` the run skips (None) and their FakeQuantizes, reading the
    ReLUs' inputs instead."""
    readers = Counter(ref for candidate in computed for ref in candidate.inputs)
    readers.update(returned)
    relus = {
        (c.layer.id, 0): c
        for c in computed
        if isinstance(c.op, Relu1) and c.produced[0].type.name == "f32"
    }
    rewrites: dict[int, Rewrite | None] = {}
    for candidate in computed:
        if not isinstance(candidate.op, FakeQuantize1) or len(candidate.inputs) != 5:
            continue
        relu = relus.get(candidate.inputs[0])
        if relu is None or readers[candidate.inputs[0]] != 1:
            continue
        if _keeps_relus_output(candidate.op, candidate, constants):
            rewrites[relu.layer.id] = None
            rewrites[candidate.layer.id] = Rewrite(
                candidate.op, (relu.inputs[0], *candidate.inputs[1:])
            )
    return rewrites


def _keeps_relus_output(
    op: FakeQuantize1, quantizer: ComputedLayer, constants: Mapping[Ref, NDArray[Any]]
) -> bool:
    """Whether the FakeQuantize, on constant ranges, is a snippet whose input_low is never
    below 0."""
    given = [constants.get(ref) for ref in quantizer.inputs[1:]]
    rank = quantizer.produced[0].shape.rank
    if rank is None or any(r is None for r in given) or is_stripped(op.levels, given):
        return False
    ranges = [f32_operand(r) for r in given if r is not None]
    with np.errstate(all="ignore"):
        snippet = kernel_for_layer(op.levels, ranges, rank, op.auto_broadcast) == "snippet"
        return snippet and bool(np.all(ranges[0] >= 0))
