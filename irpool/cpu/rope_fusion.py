"""OpenVINO's RoPE fusion, which the CPU plugin applies when it compiles a model: a rotary
embedding as the transformers' exporters write it (rotate-half, GPT-NeoX style),

    x * cos + Concat(Slice(x, half..) * -1, Slice(x, ..half); the last axis) * sin

all f32, runs as one RoPE kernel, which rounds one of each output's two products and fuses
the other into an FMA (one rounding): on the first half of the last axis
`fma(x, cos, rotated * sin)`, on the second `fma(rotated, sin, x * cos)`, where the layers
round both products. The last bits then differ from the layers', which decides an int8 step
of an activation on a rounding tie where a later MatMul by compressed weights quantizes it:
a Mistral `int4 --sym` export's logits were 4.95e-4 of their scale off the CPU's. Measured
2026-12-07 on AMD EPYC family 25 model 17 (AVX-512), OpenVINO 2026.4.1: head sizes 16 to 64,
ranks 3 and 4, static and dynamic shapes, either order of the Add's and the Multiply's inputs
(docs/cpu.md "RoPE runs as one kernel").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.linear_fusion import f32_numpy
from irpool.cpu.replacements import ComputedLayer, Ref, Rewrite
from irpool.ops.arithmetic import Add1, Multiply1
from irpool.ops.base import LayerContext, Op, TensorInfo
from irpool.ops.concat import Concat1
from irpool.ops.slice import Slice8


class RotaryEmbedding(Op):
    """The fused rotary embedding. Inputs: x, cos, the rotated x (the Concat), sin; or, where
    `rotates` (the rotate-half layers read by nothing else), x, cos and sin, the kernel then
    rotating x as those layers did: Concat(Slice(x, half..) * -1, Slice(x, ..half)), the -1
    the product's first operand where `minus_one_first`. `infer` runs the replaced
    Multiplies' and Add's inference (the rotated x described as x, without its value)."""

    type_name = "RoPE"

    def __init__(self, by_cos: Multiply1, by_sin: Multiply1, add: Add1) -> None:
        super().__init__(add.attrs)
        self.ops = (by_cos, by_sin, add)
        self.rotates = False
        self.minus_one_first = False

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        if self.rotates:
            x, cos, sin = inputs
            rotated = TensorInfo(x.type, x.shape, unknown=x.unknown)
        else:
            x, cos, rotated, sin = inputs
        by_cos, by_sin, add = self.ops
        return add.infer([*by_cos.infer([x, cos], ctx), *by_sin.infer([rotated, sin], ctx)], ctx)


def fused_rotary_embeddings(
    computed: Sequence[ComputedLayer],
    constants: Mapping[Ref, NDArray[Any]],
    returned: Collection[Ref],
) -> dict[int, Rewrite | None]:
    """What runs instead of each rotary embedding's Add: the RoPE step; None for its two
    Multiplies where the Add alone reads them."""
    by_id = {candidate.layer.id: candidate for candidate in computed}
    readers = Counter(ref for candidate in computed for ref in candidate.inputs)
    readers.update(returned)
    rewrites: dict[int, Rewrite | None] = {}
    for add in computed:
        if not f32_numpy(add, Add1):
            continue
        for port in (0, 1):
            found = _embedding(add.inputs[port], add.inputs[1 - port], by_id, constants)
            if found is None:
                continue
            by_cos, by_sin, inputs, rotation = found
            assert isinstance(add.op, Add1)
            assert isinstance(by_cos.op, Multiply1) and isinstance(by_sin.op, Multiply1)
            op = RotaryEmbedding(by_cos.op, by_sin.op, add.op)
            for product in (by_cos, by_sin):
                if readers[(product.layer.id, 0)] == 1:
                    rewrites[product.layer.id] = None
            if by_sin.layer.id in rewrites and rotation.read_only_here(readers):
                # no step rotates x: the kernel does (4 steps fewer, each a NumPy call)
                op.rotates, op.minus_one_first = True, rotation.minus_one_first
                rewrites.update(dict.fromkeys(layer.layer.id for layer in rotation.layers))
                inputs = (inputs[0], inputs[1], inputs[3])
            rewrites[add.layer.id] = Rewrite(op, inputs)
            break
    return rewrites


class _RotateHalf(NamedTuple):
    """Concat(Slice(x, half..) * -1, Slice(x, ..half)) as `_rotated_half_of` found it: x, the
    Concat, the Multiply by -1 and the two Slices, and whether the -1 is the product's first
    operand."""

    x: Ref
    layers: tuple[ComputedLayer, ComputedLayer, ComputedLayer, ComputedLayer]
    minus_one_first: bool

    def read_only_here(self, readers: Counter[Ref]) -> bool:
        """Whether each of the layers is read once (by the next of them, or the Concat by the
        product by sin) and the product keeps the half's rank: the kernel may rotate x."""
        _, negated, _, second = self.layers
        if any(readers[(layer.layer.id, 0)] != 1 for layer in self.layers):
            return False
        return negated.produced[0].shape.rank == second.produced[0].shape.rank


def _embedding(
    cos_ref: Ref,
    sin_ref: Ref,
    by_id: Mapping[int, ComputedLayer],
    constants: Mapping[Ref, NDArray[Any]],
) -> tuple[ComputedLayer, ComputedLayer, tuple[Ref, ...], _RotateHalf] | None:
    """The Multiplies by cos and sin, the RoPE's inputs (x, cos, rotated, sin) and the
    rotate-half layers when the Add's inputs are x * cos and rotate_half(x) * sin; else None."""
    by_cos, by_sin = by_id.get(cos_ref[0]), by_id.get(sin_ref[0])
    if by_cos is None or by_sin is None or cos_ref[1] or sin_ref[1]:
        return None
    if not (f32_numpy(by_cos, Multiply1) and f32_numpy(by_sin, Multiply1)):
        return None
    for rotated_port in (0, 1):
        rotated = by_sin.inputs[rotated_port]
        rotation = _rotated_half_of(rotated, by_id, constants)
        if rotation is None or rotation.x not in by_cos.inputs:
            continue
        x = rotation.x
        cos = by_cos.inputs[1 - by_cos.inputs.index(x)]
        return by_cos, by_sin, (x, cos, rotated, by_sin.inputs[1 - rotated_port]), rotation
    return None


def _rotated_half_of(
    rotated: Ref, by_id: Mapping[int, ComputedLayer], constants: Mapping[Ref, NDArray[Any]]
) -> _RotateHalf | None:
    """The layers when `rotated` is Concat(Slice(x, half..) * -1, Slice(x, ..half)) on the
    last axis of an x whose last dim is static and even; else None."""
    concat = by_id.get(rotated[0])
    if concat is None or not isinstance(concat.op, Concat1) or len(concat.inputs) != 2:
        return None
    rank = concat.produced[0].shape.rank
    if rank is None or concat.op.axis not in (-1, rank - 1):
        return None
    negated, first = (by_id.get(ref[0]) for ref in concat.inputs)
    if negated is None or first is None or not f32_numpy(negated, Multiply1):
        return None
    minus_one = [ref for ref in negated.inputs if _is(constants, ref, -1.0)]
    if len(minus_one) != 1:
        return None
    second = by_id.get(negated.inputs[1 - negated.inputs.index(minus_one[0])][0])
    if second is None or first.inputs[0] != second.inputs[0]:
        return None
    dims = concat.produced[0].shape.dims
    if not dims or not dims[-1].is_static or dims[-1].value % 2:
        return None
    last = dims[-1].value
    half = last // 2
    if _slice_of_last_axis(first, rank, constants) != (0, half):
        return None
    bounds = _slice_of_last_axis(second, rank, constants)
    if bounds is None or bounds[0] != half or bounds[1] < last:
        return None
    layers = (concat, negated, first, second)
    return _RotateHalf(first.inputs[0], layers, negated.inputs[0] == minus_one[0])


def _slice_of_last_axis(
    candidate: ComputedLayer, rank: int, constants: Mapping[Ref, NDArray[Any]]
) -> tuple[int, int] | None:
    """(start, stop) of a Slice-8 of step 1 along the last axis by constants; else None."""
    if not isinstance(candidate.op, Slice8) or len(candidate.inputs) != 5:
        return None
    values = [constants.get(ref) for ref in candidate.inputs[1:]]
    if any(value is None or value.size != 1 for value in values):
        return None
    start, stop, step, axis = (int(np.asarray(value).reshape(-1)[0]) for value in values)
    if step != 1 or axis not in (-1, rank - 1) or start < 0 or stop < 0:
        return None
    return start, stop


def _is(constants: Mapping[Ref, NDArray[Any]], ref: Ref, value: float) -> bool:
    constant = constants.get(ref)
    return constant is not None and constant.size == 1 and float(constant.reshape(-1)[0]) == value
