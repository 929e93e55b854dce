"""A ReLU or Clamp whose one reader is a FakeQuantize computed as the snippet
(irpool.cpu.quantization), with the FakeQuantize's input range inside the clamp's bounds (every
input_low at or above 0 after a ReLU), changes nothing of that FakeQuantize's output, bit for
bit: the snippet clamps into the narrower range anyway, NaN gives il both ways (the ReLU or
Clamp makes it its lower bound, at or below il; the snippet's clamp il), and a zero's sign
shows only through an output_low of -0, which is left alone. So the run skips such a ReLU or
Clamp (an f32 one, whose output nothing else reads and no Result returns) and the
FakeQuantize reads its input: one pass less over the tensor, as in NNCF's Convolution -> ReLU
(or ReLU6) -> FakeQuantize chains.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import F32, f32_operand
from irpool.cpu.quantization import kernel_for_layer
from irpool.cpu.quantization_refusals import is_stripped
from irpool.cpu.replacements import ComputedLayer, Ref, Rewrite
from irpool.ops.activations import Relu1
from irpool.ops.base import Op
from irpool.ops.clamp import Clamp1
from irpool.ops.fake_quantize import FakeQuantize1


def clamps_before_quantizers(
    computed: Sequence[ComputedLayer],
    constants: Mapping[Ref, NDArray[Any]],
    returned: Collection[Ref],
) -> dict[int, Rewrite | None]:
    """The ReLUs and Clamps of `computed` the run skips (None) and their FakeQuantizes,
    reading the skipped layers' inputs instead."""
    readers = Counter(ref for candidate in computed for ref in candidate.inputs)
    readers.update(returned)
    clamps = {
        (c.layer.id, 0): c
        for c in computed
        if _bounds(c.op) is not None and c.produced[0].type.name == "f32"
    }
    rewrites: dict[int, Rewrite | None] = {}
    for candidate in computed:
        if not isinstance(candidate.op, FakeQuantize1) or len(candidate.inputs) != 5:
            continue
        clamp = clamps.get(candidate.inputs[0])
        if clamp is None or readers[candidate.inputs[0]] != 1:
            continue
        if _within(candidate.op, candidate, constants, _bounds(clamp.op)):
            rewrites[clamp.layer.id] = None
            rewrites[candidate.layer.id] = Rewrite(
                candidate.op, (clamp.inputs[0], *candidate.inputs[1:])
            )
    return rewrites


def _bounds(op: Op) -> tuple[np.float32, np.float32] | None:
    """A ReLU's or an f32 Clamp's bounds, as its kernel rounds them (None: another op)."""
    if isinstance(op, Relu1):
        return F32(0), F32(np.inf)
    if isinstance(op, Clamp1):
        with np.errstate(over="ignore"):
            return F32(op.low), F32(op.high)
    return None


def _within(
    op: FakeQuantize1,
    quantizer: ComputedLayer,
    constants: Mapping[Ref, NDArray[Any]],
    bounds: tuple[np.float32, np.float32] | None,
) -> bool:
    """Whether the FakeQuantize, on constant ranges, is a snippet whose input range lies
    within `bounds`, with no output_low of -0."""
    given = [constants.get(ref) for ref in quantizer.inputs[1:]]
    rank = quantizer.produced[0].shape.rank
    if bounds is None or rank is None or any(r is None for r in given):
        return False
    if is_stripped(op.levels, given):
        return False
    low, high, out_low, _ = ranges = [f32_operand(r) for r in given if r is not None]
    with np.errstate(all="ignore"):
        dynamic = not quantizer.produced[0].shape.is_static
        if kernel_for_layer(op.levels, ranges, rank, op.auto_broadcast, dynamic) != "snippet":
            return False
        negative_zero = np.any(np.signbit(out_low) & (out_low == 0))
        return bool(np.all(bounds[0] <= low) and np.all(high <= bounds[1]) and not negative_zero)
