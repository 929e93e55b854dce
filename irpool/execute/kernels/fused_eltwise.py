"""The steps the CPU plugin's elementwise fusion runs (irpool/cpu/eltwise_fusion.py): a fused
chain computed in f32 and stored once, and an op OpenVINO removes, which passes its input on."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.eltwise_fusion import CHAIN_FIRST, FusedEltwise, RemovedEltwise
from irpool.cpu.numerics import f32_operand, stored_from_f32
from irpool.execute.kernels.activations import FORMULAS, elu
from irpool.execute.kernels.arithmetic import float_result
from irpool.execute.kernels.binary_math import f32_result
from irpool.execute.kernels.comparison import run_comparison
from irpool.execute.kernels.unary_math import f32_formula
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.activations import Activation, Elu1
from irpool.ops.arithmetic import Binary
from irpool.ops.binary_math import BinaryMath
from irpool.ops.comparison import Comparison
from irpool.ops.unary_math import UnaryMath


@kernel_for(RemovedEltwise)
def run_removed(
    op: RemovedEltwise, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    return [inputs[op.port].copy()]


@kernel_for(FusedEltwise)
def run_fused(
    op: FusedEltwise, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    """The chain on `inputs` in f32, stored once at its end, rounded to nearest (even): the
    fraction a Power carries is rounded there (-1/3 floormod 3 is 3, -1/2 floormod 5 is 4)."""
    first, *later = op.ops
    assert isinstance(first, Binary)
    integer = inputs[0].dtype.kind in "iu"
    x, y = f32_operand(inputs[0]), f32_operand(inputs[1])
    if isinstance(first, BinaryMath):
        value = f32_result(first, x, y)
    else:
        value = float_result(first, x, y, integer=integer)
    others = iter(inputs[2:])
    for step, swapped in zip(later, op.swapped, strict=True):
        if isinstance(step, UnaryMath):  # on the carried f32 value
            value = f32_formula(step, value)
            continue
        if isinstance(step, Elu1):
            value = elu(step, value)
            continue
        if isinstance(step, Activation):
            with np.errstate(all="ignore"):
                value = FORMULAS[type(step)](value)
            continue
        other = next(others)
        other_first = swapped and not isinstance(step, CHAIN_FIRST)
        pair = [f32_operand(other), value] if other_first else [value, f32_operand(other)]
        if isinstance(step, Comparison):
            return run_comparison(step, pair, outputs)
        if isinstance(step, BinaryMath):
            value = f32_result(step, pair[0], pair[1])
            continue
        value = float_result(step, pair[0], pair[1], integer=integer)
    held = outputs[0].type.held_dtype
    assert held is not None
    return [stored_from_f32(value, np.dtype(held))]
