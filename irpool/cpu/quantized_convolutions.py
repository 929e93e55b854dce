"""The Convolutions the CPU plugin runs on int8 operands, as `nncf.quantize` writes them
(docs/ops/FakeQuantize.md#int8-models-as-nncf-writes-them): data quantized by a FakeQuantize
of 255 or 256 levels (directly, or through a MaxPool, which its low-precision pass moves the
quantization across), and filters that are an i8 or u8 Const decompressed by Convert,
(Subtract of a zero point,) Multiply by a scale. The plugin sums u8 x i8 in int32 and
rescales, so its results leave the f32 formula by up to a step of the next FakeQuantize
(docs/ops/FakeQuantize.md#the-bound-on-a-whole-nncf-model); irpool computes the formula in
f32 and lets such a layer's kernel round more (Winograd F(4x4, 3x3),
docs/ops/Convolution.md#winograd).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from irpool.cpu.replacements import ComputedLayer, Ref
from irpool.ops.convolution import Convolution1
from irpool.ops.fake_quantize import FakeQuantize1

INT8_LEVELS = frozenset({255, 256})
INT8_TYPES = frozenset({"i8", "u8"})


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
