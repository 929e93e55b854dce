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
Where the Convolution also takes a residual Add (its sum post-op) and a FakeQuantize after
it, the plugin drops the first FakeQuantize's rounding
(docs/cpu.md#a-fakequantize-before-a-residual-sum-is-not-rounded).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from copy import copy
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.compressed_weights import QUANTIZATION_MOVES_THROUGH
from irpool.cpu.int8_pairs import SaturatedPairs, SaturatedRows, without_vnni
from irpool.cpu.replacements import ComputedLayer, Ref, Rewrite
from irpool.ops.convolution import Convolution1
from irpool.ops.fake_quantize import FakeQuantize1
from irpool.ops.mat_mul import MatMul1

INT8_LEVELS = frozenset({255, 256})
INT8_TYPES = frozenset({"i8", "u8"})
# The layers between a Convolution and a FakeQuantize fused into it that were measured.
_POST_OPS = frozenset({"Add", "ReLU"})


def marked_int8_products(layers: Sequence[ComputedLayer]) -> dict[int, Rewrite | None]:
    """The f32 Convolutions of `layers` (every layer of the model but its inputs and outputs,
    constants included) that the CPU runs on int8 operands, each with its own op (layers of
    equal attributes share one) marked `int8_on_cpu`, and `int8_saturation` on those, on such
    MatMuls and on i8 MatMuls by i8 weights where the CPU's int8 sums saturate
    (irpool/cpu/int8_pairs.py)."""
    by_id = {layer.layer.id: layer for layer in layers}
    rewrites: dict[int, Rewrite | None] = {}
    for layer in layers:
        if isinstance(layer.op, MatMul1) and without_vnni():
            rows = _i8_rows(layer, by_id)
            if rows is not None:
                matmul = copy(layer.op)
                matmul.int8_saturation = rows
                rewrites[layer.layer.id] = Rewrite(matmul, layer.inputs)
        if not isinstance(layer.op, Convolution1 | MatMul1) or layer.produced[0].type.name != "f32":
            continue
        data, filters = layer.inputs
        moves = QUANTIZATION_MOVES_THROUGH if isinstance(layer.op, MatMul1) else frozenset()
        quantizer, weights = _quantizer(data, by_id, moves), _int8_weights(filters, by_id)
        if quantizer is None or weights is None:
            continue
        op = copy(layer.op)
        if isinstance(op, Convolution1):
            op.int8_on_cpu = True
            pairs = _saturated_pairs(quantizer, weights, by_id) if without_vnni() else None
            op.int8_saturation = None if pairs is None else pairs.add_into
        elif without_vnni() and op.transposes == (False, True):
            pairs = _saturated_pairs(quantizer, weights, by_id)
            if pairs is not None and pairs.codes.ndim == 2:  # [O, K]: a 1x1 Convolution's
                op.int8_saturation = SaturatedRows(replace(pairs, codes=pairs.codes[..., None]))
        rewrites[layer.layer.id] = Rewrite(op, layer.inputs)
    return rewrites


def _i8_rows(layer: ComputedLayer, by_id: Mapping[int, ComputedLayer]) -> SaturatedRows | None:
    """The pairs of an i8 MatMul of i8 data by an i8 Const [O, K] (or [K, O] not transposed):
    the CPU shifts the data by 128 to u8, so its levels are x + 128, and the sum weighs 1."""
    stored = by_id.get(layer.inputs[1][0])
    if layer.produced[0].type.name != "i8" or stored is None or stored.layer.type != "Const":
        return None
    codes = stored.produced[0].value
    if stored.produced[0].type.name != "i8" or codes is None or codes.ndim != 2:
        return None
    assert isinstance(layer.op, MatMul1)
    codes = codes if layer.op.transposes[1] else codes.T
    ones = np.ones(codes.shape[0])
    return SaturatedRows(
        SaturatedPairs(-128.0, 1.0, 256, codes.astype(np.int8, copy=False)[..., None], ones)
    )


def _quantizer(
    ref: Ref, by_id: Mapping[int, ComputedLayer], moves: frozenset[str]
) -> ComputedLayer | None:
    """The FakeQuantize of 255 or 256 levels that gives `ref`: directly, through a MaxPool or
    through layers of `moves` (which move its levels)."""
    source = by_id.get(ref[0])
    if source is not None and source.layer.type == "MaxPool" and ref[1] == 0:
        source = by_id.get(source.inputs[0][0])
    while source is not None and source.layer.type in moves:
        source = by_id.get(source.inputs[0][0])
    if source is None or not isinstance(source.op, FakeQuantize1):
        return None
    return source if source.op.levels in INT8_LEVELS else None


@dataclass(frozen=True)
class _Weights:
    stored: ComputedLayer  # the i8 or u8 Const
    zero_point: bool  # a Subtract between its Convert and the Multiply
    scale: ComputedLayer  # the Multiply's Const


def _int8_weights(ref: Ref, by_id: Mapping[int, ComputedLayer]) -> _Weights | None:
    """Multiply(Convert(Const i8 or u8) [- zero point], constant scale)."""
    scaled = by_id.get(ref[0])
    if scaled is None or scaled.layer.type != "Multiply":
        return None
    for index, part in enumerate(scaled.inputs):
        other = by_id.get(scaled.inputs[1 - index][0])
        if other is None or other.layer.type != "Const":
            continue
        source = by_id.get(part[0])
        zero_point = source is not None and source.layer.type == "Subtract"
        if source is not None and zero_point:
            source = by_id.get(source.inputs[0][0])
        if source is None or source.layer.type != "Convert":
            continue
        stored = by_id.get(source.inputs[0][0])
        if stored is not None and stored.layer.type == "Const":
            int8 = stored.produced[0].type.name in INT8_TYPES
            return _Weights(stored, zero_point, other) if int8 else None
    return None


def _saturated_pairs(
    quantizer: ComputedLayer, weights: _Weights, by_id: Mapping[int, ComputedLayer]
) -> SaturatedPairs | None:
    """The pairs of a Convolution of i8 codes (u8 ones with a zero point run in f32) on the
    levels of a FakeQuantize of one output range."""
    low, high = (_value(quantizer.inputs[port], by_id) for port in (3, 4))
    codes, scale = weights.stored.produced[0].value, weights.scale.produced[0].value
    stored_type = weights.stored.produced[0].type.name
    if low is None or high is None or codes is None or scale is None or weights.zero_point:
        return None
    if stored_type != "i8" or low.size != 1 or high.size != 1:
        return None
    outputs = codes.shape[0]
    if scale.size not in (1, outputs) or (scale.size > 1 and scale.shape[0] != outputs):
        return None
    assert isinstance(quantizer.op, FakeQuantize1)
    levels = quantizer.op.levels
    step = (float(high.ravel()[0]) - float(low.ravel()[0])) / (levels - 1)
    scales = np.broadcast_to(scale.astype(np.float64).reshape(-1), (outputs,)) * step
    return SaturatedPairs(
        float(low.ravel()[0]), step, levels, codes.astype(np.int8, copy=False), scales
    )


def _value(ref: Ref, by_id: Mapping[int, ComputedLayer]) -> NDArray[Any] | None:
    source = by_id.get(ref[0])
    return None if source is None else source.produced[ref[1]].value


def quantizers_after_convolutions(
    layers: Sequence[ComputedLayer], read_by: Counter[Ref]
) -> dict[int, Rewrite | None]:
    """The FakeQuantizes of `layers` that the CPU runs as a post-op of the f32 Convolution
    before them, each with its own op (layers alike share one) marked `after_product`: each
    layer between read by nothing else (`read_by` counts every reader, the model's outputs
    included), an Add with a Const operand or a ReLU; and those whose rounding the CPU drops
    (`_mark_unrounded`)."""
    by_id = {layer.layer.id: layer for layer in layers}
    marked: dict[int, FakeQuantize1] = {}
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
            _own_op(layer, marked).after_product = True
    _mark_unrounded(layers, by_id, read_by, marked)
    return {i: Rewrite(op, by_id[i].inputs) for i, op in marked.items()}


def _own_op(layer: ComputedLayer, marked: dict[int, FakeQuantize1]) -> FakeQuantize1:
    """`layer`'s FakeQuantize op, copied once to be marked: layers alike share one object."""
    if layer.layer.id not in marked:
        assert isinstance(layer.op, FakeQuantize1)
        marked[layer.layer.id] = copy(layer.op)
    return marked[layer.layer.id]


def _mark_unrounded(
    layers: Sequence[ComputedLayer],
    by_id: Mapping[int, ComputedLayer],
    read_by: Counter[Ref],
    marked: dict[int, FakeQuantize1],
) -> None:
    """Clear `rounds` on the FakeQuantize directly after a Convolution that the plugin fuses
    with a residual Add (two operands of one shape) and a FakeQuantize after it (through a
    ReLU): its Add's first such operand, as the plugin merges the sum into the first branch
    when both are quantized."""
    readers: dict[Ref, list[ComputedLayer]] = {}
    for layer in layers:
        for ref in layer.inputs:
            readers.setdefault(ref, []).append(layer)
    for add in layers:
        if add.layer.type != "Add" or len(add.inputs) != 2:
            continue
        if not _quantized(add, readers, read_by):
            continue
        operands = [by_id.get(ref[0]) for ref in add.inputs]  # None: a Parameter
        known = [(o, ref) for o, ref in zip(operands, add.inputs, strict=True) if o is not None]
        if any(
            o.layer.type == "Const" or o.produced[ref[1]].shape != add.produced[0].shape
            for o, ref in known
        ):
            continue
        for ref, operand in zip(add.inputs, operands, strict=True):
            if operand is not None and read_by[ref] == 1 and _first_post_op(operand, by_id, marked):
                _own_op(operand, marked).rounds = False
                break


def _quantized(
    layer: ComputedLayer, readers: Mapping[Ref, list[ComputedLayer]], read_by: Counter[Ref]
) -> bool:
    """Whether `layer`'s output goes to a FakeQuantize of 255 or 256 levels, directly or
    through a ReLU, each read by nothing else (`read_by` counts the model's outputs too)."""
    for _ in range(2):
        reader = readers.get((layer.layer.id, 0), [None])[0]
        if reader is None or read_by[(layer.layer.id, 0)] != 1:
            return False
        if isinstance(reader.op, FakeQuantize1):
            return reader.op.levels in INT8_LEVELS
        if reader.layer.type != "ReLU":
            return False
        layer = reader
    return False


def _first_post_op(
    layer: ComputedLayer, by_id: Mapping[int, ComputedLayer], marked: Mapping[int, FakeQuantize1]
) -> bool:
    """A FakeQuantize run as the post-op (`marked` after_product) of the int8 Convolution (i8
    filters without a zero point) it reads directly; an f32 one takes no sum post-op there."""
    source = by_id.get(layer.inputs[0][0])
    quantizer = marked.get(layer.layer.id)
    if quantizer is None or not quantizer.after_product or source is None:
        return False
    if not isinstance(source.op, Convolution1) or not source.op.int8_on_cpu:
        return False
    weights = _int8_weights(source.inputs[1], by_id)
    if weights is None or weights.zero_point:
        return False
    return weights.stored.produced[0].type.name == "i8"


def _post_op(layer: ComputedLayer, by_id: Mapping[int, ComputedLayer]) -> bool:
    if layer.layer.type not in _POST_OPS or layer.produced[0].type.name != "f32":
        return False
    sources = [by_id.get(ref[0]) for ref in layer.inputs]
    if any(source is None for source in sources):
        return False
    constants = sum(source.layer.type == "Const" for source in sources if source is not None)
    return constants == len(sources) - 1
