"""f16 constant arithmetic as the CPU plugin folds it: in f32 (docs/cpu.md, "f16 constant
arithmetic folds in f32").

The plugin turns the model's f16 ops into f32 ones before it folds constants, so an f16
Subtract, Multiply or Add of constants that a Convert widens to f32 gives the f32 result, not
one rounded to f16. NNCF's compressed weights of a Convolution or GroupConvolution in an fp16
file (`nncf.compress_weights`, then `save_model` with its default fp16 compression) are such a
chain: u8 -> Convert(f16) [-> Subtract(zero point)] -> Multiply(f16 scale) -> Convert(f32).
MatMul chains are irpool.cpu.compressed_weights' (the same values).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.replacements import ComputedLayer, Ref

ARITHMETIC: dict[str, Callable[..., NDArray[Any]]] = {
    "Add": np.add,
    "Subtract": np.subtract,
    "Multiply": np.multiply,
}
RESHAPING = frozenset({"Reshape", "Squeeze", "Unsqueeze"})
# Widened to f32 exactly: the plugin reads them so whatever op follows.
EXACT_IN_F32 = frozenset({"f16", "f32", "u1", "u2", "u3", "u4", "u6", "u8", "i4", "i8"})


def f16_constants_in_f32(
    layers: Sequence[ComputedLayer], constants: Mapping[Ref, NDArray[Any]]
) -> dict[Ref, NDArray[Any]]:
    """`constants` with each Convert to f32 of folded f16 arithmetic computed in f32."""
    producers = {(layer.layer.id, 0): layer for layer in layers}
    updated = dict(constants)
    for layer in layers:
        ref = (layer.layer.id, 0)
        if layer.layer.type != "Convert" or layer.produced[0].element_type != "f32":
            continue
        source = producers.get(layer.inputs[0])
        if ref not in constants or source is None or source.produced[0].element_type != "f16":
            continue
        if source.layer.type in ARITHMETIC or source.layer.type in RESHAPING:
            value = _in_f32(layer.inputs[0], producers, constants)
            if value is not None:
                updated[ref] = value.reshape(constants[ref].shape)
    return updated


def _in_f32(
    ref: Ref, producers: Mapping[Ref, ComputedLayer], constants: Mapping[Ref, NDArray[Any]]
) -> NDArray[np.float32] | None:
    """The folded value of `ref` computed in f32, or None where the chain holds another op."""
    layer = producers.get(ref)
    if layer is None or ref not in constants:
        return None
    kind, element_type = layer.layer.type, layer.produced[0].element_type
    if kind == "Const":
        return constants[ref].astype(np.float32) if element_type in EXACT_IN_F32 else None
    if kind == "Convert" and element_type in ("f16", "f32"):
        return _in_f32(layer.inputs[0], producers, constants)
    if kind in RESHAPING:
        value = _in_f32(layer.inputs[0], producers, constants)
        return None if value is None else value.reshape(constants[ref].shape)
    if kind in ARITHMETIC:
        operands = [_in_f32(source, producers, constants) for source in layer.inputs]
        if any(operand is None for operand in operands):
            return None
        with np.errstate(all="ignore"):
            result: NDArray[np.float32] = ARITHMETIC[kind](*operands, dtype=np.float32)
        return result
    return None
