"""The steps OpenVINO's LinOpSequenceFusion and the CPU plugin's Multiply-Add fusion run
(irpool/cpu/linear_fusion.py): a folded chain `x * M + A`, and x86's fused multiply-add."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.linear_fusion import LinearChain, MultiplyAdd
from irpool.execute.registry import OutputSpec, kernel_for

F32 = np.float32


@kernel_for(LinearChain)
def run_linear_chain(
    op: LinearChain, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    """`x * M + A`, M and A folded link by link in f32 as the rewrites fold them."""
    x, *values = inputs
    scale: NDArray[np.float32] | None = None
    shift: NDArray[np.float32] | None = None
    with np.errstate(all="ignore"):  # inf and NaN are values here
        for link, value in zip(op.links, values, strict=True):
            constant = -value if link.negated else value
            if link.inverted:  # ConvertDivide: x / c is x * (1 / c), folded in f32
                constant = np.float32(1) / constant
            if link.kind == "add":
                shift = constant if shift is None else shift + constant
            else:
                scale = constant if scale is None else scale * constant
                shift = None if shift is None else shift * constant
        if scale is not None and shift is not None and op.fma:
            return [fused_multiply_add(x, scale, shift)]
        result = x if scale is None else x * scale
        if shift is not None:
            result = result + shift
    return [np.asarray(result, F32)]


def fused_multiply_add(
    x: NDArray[np.float32], y: NDArray[np.float32], z: NDArray[np.float32]
) -> NDArray[np.float32]:
    """x * y + z rounded once, as x86's FMA: the f32 product is exact in f64, the sum is
    rounded there and then to f32 (twice rounded, which differs from once in about 2**-29
    of the sums)."""
    with np.errstate(all="ignore"):
        wide = x.astype(np.float64) * y.astype(np.float64) + z.astype(np.float64)
        return wide.astype(F32)


@kernel_for(MultiplyAdd)
def run_multiply_add(
    op: MultiplyAdd, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    x, y, z = inputs
    return [fused_multiply_add(x, y, z)]
