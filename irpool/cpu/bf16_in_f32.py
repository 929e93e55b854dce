"""bf16 layers as a host without bf16 instructions computes them: in f32 (docs/cpu.md, "bf16
layers compute in f32 with at most AVX2").

With at most AVX2 (irpool.cpu.isa.bf16_isa) the CPU plugin has no bf16 kernels and turns
every bf16 tensor inside the model into f32 after folding constants: a layer's bf16 output
is its f32 result, unrounded; a Convert to bf16 converts to f32; a bf16 constant a layer reads
is held as f32 with ±inf saturated to ±FLT_MAX (then as any f32 constant). The model's inputs
and outputs keep their types: a bf16 output is its f32 value rounded by OpenVINO's scalar
rounding. Folded constants keep the rounding of OpenVINO's folding.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.isa import AVX512_CORE, AVX512_CORE_BF16, bf16_isa
from irpool.cpu.replacements import ComputedLayer, Ref
from irpool.cpu.subnormal_constants import flush_constant_subnormals
from irpool.element_types import BF16, F32, ElementType, element_type

F32_MAX = np.float32(np.finfo(np.float32).max)


def computes_bf16() -> bool:
    """Whether the CPU plugin computes bf16 layers in bf16 on this host (AVX-512)."""
    return bf16_isa() in (AVX512_CORE, AVX512_CORE_BF16)


def computed_type(file_type: ElementType) -> ElementType:
    """The type the CPU computes a tensor of `file_type` in: f32 for bf16 without bf16
    instructions, else the file's."""
    if file_type.name == BF16 and not computes_bf16():
        return element_type(F32)
    return file_type


def bf16_constants_in_f32(
    layers: Sequence[ComputedLayer],
    computed: Sequence[ComputedLayer],
    constants: Mapping[Ref, NDArray[Any]],
    types: Mapping[Ref, ElementType],
) -> tuple[dict[Ref, NDArray[Any]], dict[Ref, ElementType]]:
    """`constants` (of `layers`) with each bf16 one a `computed` layer reads held as a host
    without bf16 instructions holds it: saturated to the f32 range, then as an f32 constant
    (`flush_constant_subnormals`); and `types` with these constants bf16 again, so that
    nothing holds them further (a Result reading one alone returns its bits)."""
    if computes_bf16():
        return dict(constants), dict(types)
    bf16 = {
        (layer.layer.id, index)
        for layer in layers
        for index, info in enumerate(layer.produced)
        if info.element_type == BF16 and (layer.layer.id, index) in constants
    }
    readers = [
        (layer.layer.type, [ref for ref in layer.inputs if ref in bf16]) for layer in computed
    ]
    read = {ref for _, refs in readers for ref in refs}
    saturated = {ref: np.clip(constants[ref], -F32_MAX, F32_MAX) for ref in read}  # NaN stays
    f32 = dict.fromkeys(read, element_type(F32))
    held = {**constants, **flush_constant_subnormals(saturated, readers, f32)}
    return held, {**types, **dict.fromkeys(bf16, element_type(BF16))}
