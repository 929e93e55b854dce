"""The Convolutions the CPU plugin runs on int8 operands, as `nncf.quantize` writes them
(docs/ops/FakeQuantize.md#int8-models-as-nncf-writes-them): data quantized by a FakeQuantize
of 255 or 256 levels (directly, or through a MaxPool, which its low-precision pass moves the
quantization across), and filters that are an i8 or u8 Const decompressed by Convert,
(Subtract of a zero point,) Multiply by a scale. The plugin sums u8 x i8 in int32 and
rescales, so its results leave the f32 formula by up to a step of the next FakeQuantize
(docs/ops/FakeQuantize.md#the-bound-on-a-whole-nncf-model); irpool computes the formula in
f32 and lets such a layer's kernel round more (Winograd F(4x4, 3x3),
docs/ops/Convolution.md#winograd).

A FakeQuantize of 255 or 256 levels after an f32 Convolution (through an Add of a constant
and a ReLU, each read by nothing else) runs as the Convolution's post-op, whose level is the
FakeQuantize node's fma (docs/ops/FakeQuantize.md#a-fakequantize-fused-into-a-convolution).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from irpool.cpu.replacements import ComputedLayer, Ref
from irpool.ops.convolution import Convolution1
from irpool.ops.fake_quantize import FakeQuantize1

INT8_LEVELS = frozenset({255, 256})
INT8_TYPES = frozenset({"i8", "u8"})
# The layers between a Convolution and a FakeQuantize fused into it that were measured.
_POST_OPS = frozenset({"Add", "ReLU"})


def mark_int8_convolutions(layers: Sequence[ComputedLayer]) -> None:
    """Set `int8_on_cpu` on the f32 Convolutions of `layers` (every layer of the model but
    its inputs and outputs, constants included) that the CPU runs on int8 operands."""
    by_id = {layer.layer.id: layer for layer in layers}
    for layer in layers:
        op = layer.op
        if not isinstance(op, Convolution1) or layer.produced[0].type.name != "f32":
            continue
        data, filters = layer.inputs
        if _quantized(data, by_id) and _int8_weights(filters, by_id):
            op.int8_on_cpu = True


def _quantized(ref: Ref, by_id: Mapping[int, ComputedLayer]) -> bool:
    source = by_id.get(ref[0])
    if source is not None and source.layer.type == "MaxPool" and ref[1] == 0:
        source = by_id.get(source.inputs[0][0])
    return (
        source is not None
        and isinstance(source.op, FakeQuantize1)
        and source.op.levels in INT8_LEVELS
    )


def _int8_weights(ref: Ref, by_id: Mapping[int, ComputedLayer]) -> bool:
    """Multiply(Convert(Const i8 or u8) [- zero point], constant scale)."""
    scaled = by_id.get(ref[0])
    if scaled is None or scaled.layer.type != "Multiply":
        return False
    for index, part in enumerate(scaled.inputs):
        other = by_id.get(scaled.inputs[1 - index][0])
        if other is None or other.layer.type != "Const":
            continue
        source = by_id.get(part[0])
        if source is not None and source.layer.type == "Subtract":
            source = by_id.get(source.inputs[0][0])
        if source is None or source.layer.type != "Convert":
            continue
        stored = by_id.get(source.inputs[0][0])
        if stored is not None and stored.layer.type == "Const":
            return stored.produced[0].type.name in INT8_TYPES
    return False


def mark_quantizers_after_convolutions(
    layers: Sequence[ComputedLayer], read_by: Counter[Ref]
) -> None:
    """Set `after_product` on the FakeQuantizes of `layers` that the CPU runs as a post-op of
    the f32 Convolution before them: each layer between read by nothing else (`read_by`
    counts every reader, the model's outputs included), an Add with a Const operand or a
    ReLU."""
    by_id = {layer.layer.id: layer for layer in layers}
    for layer in layers:
        if not isinstance(layer.op, FakeQuantize1) or layer.op.levels not in INT8_LEVELS:
            continue
        ref = layer.inputs[0]
        source = by_id.get(ref[0])
        while source is not None and read_by[ref] == 1 and _post_op(source, by_id):
            ref = next(r for r in source.inputs if by_id[r[0]].layer.type != "Const")
            source = by_id.get(ref[0])
        if (
            source is not None
            and read_by[ref] == 1
            and isinstance(source.op, Convolution1)
            and source.produced[0].type.name == "f32"
        ):
            layer.op.after_product = True


def _post_op(layer: ComputedLayer, by_id: Mapping[int, ComputedLayer]) -> bool:
    if layer.layer.type not in _POST_OPS or layer.produced[0].type.name != "f32":
        return False
    sources = [by_id.get(ref[0]) for ref in layer.inputs]
    if any(source is None for source in sources):
        return False
    constants = sum(source.layer.type == "Const" for source in sources if source is not None)
    return constants == len(sources) - 1
