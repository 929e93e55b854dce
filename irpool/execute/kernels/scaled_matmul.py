"""A MatMul whose constant scale OpenVINO moves onto its weights (irpool/cpu/product_fusion.py),
run as the fused graph computes it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import f32_operand
from irpool.cpu.product_fusion import ScaledMatMul
from irpool.execute.kernels.mat_mul import run_matmul
from irpool.execute.registry import OutputSpec, kernel_for


@kernel_for(ScaledMatMul)
def run_scaled_matmul(
    op: ScaledMatMul, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    """a @ (b * c) with b * c in f32, as the fused graph computes it."""
    a, b, scale = inputs
    scale = f32_operand(scale)
    if op.matmul.transposes[1] and scale.size > 1:
        scale = (scale.reshape(1, -1) if scale.ndim == 1 else scale).swapaxes(-1, -2)
    with np.errstate(over="ignore", invalid="ignore"):  # inf and NaN are values here
        weights = f32_operand(b) * scale
    return run_matmul(op.matmul, [a, weights], outputs)
