"""f32 constants as the CPU plugin holds them (measured, docs/cpu.md "Subnormal f32 constants
are held as +0"): in a constant, after OpenVINO's own folding, that holds a subnormal, every
subnormal and every zero is +0 (-0 too); a constant without subnormals is kept as it is.

The one exception: a one-element constant read only by elementwise ops, which the plugin
fuses into the op as a scalar, keeps its value (x * [-1e-42] is -2e-42 for x = 2,
x * [-1e-42, -1e-42] is +0). A constant a Result returns is flushed too. Inputs and computed
values never are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.replacements import Ref
from irpool.element_types import ElementType

# The ops whose one-element constant operand the plugin fuses as a scalar (measured; Select
# of a constant all-true condition is simplified away, so its operand is flushed).
SCALAR_OPERAND_READERS = frozenset(
    {"Add", "Subtract", "Multiply", "Divide", "Mod", "FloorMod", "Power", "Greater", "Equal",
     "NotEqual", "Select"}
)  # fmt: skip


def flush_constant_subnormals(
    constants: Mapping[Ref, NDArray[Any]],
    readers: Iterable[tuple[str, Iterable[Ref]]],
    types: Mapping[Ref, ElementType],
) -> dict[Ref, NDArray[Any]]:
    """`constants` with each f32 one's subnormals and zeros +0 where it holds a subnormal,
    but for one-element constants that only SCALAR_OPERAND_READERS read; `readers`: each
    computed layer's or Result's type and inputs."""
    read_by: dict[Ref, set[str]] = {}
    for layer_type, inputs in readers:
        for ref in inputs:
            if ref in constants:
                read_by.setdefault(ref, set()).add(layer_type)
    held = dict(constants)
    for ref, layer_types in read_by.items():
        value = constants[ref]
        if types[ref].name != "f32" or value.dtype != np.float32:
            continue
        if value.size == 1 and layer_types <= SCALAR_OPERAND_READERS:
            continue
        subnormal = (value != 0) & (np.abs(value) < np.finfo(np.float32).tiny)
        if subnormal.any():
            held[ref] = np.where(subnormal | (value == 0), np.float32(0), value)
    return held
