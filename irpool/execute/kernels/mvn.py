"""MVN on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it (measured,
docs/ops/MVN.md): in f32 as the activations' kernels take every type (integers wrapped,
f64 saturated), two passes held in f32 at each step: the mean (summed without overflow, so
[3e38, 3e38, -3e38] has mean 1e38), d = x - mean in f32 (-3e38 - 1e38 is -inf), the variance
of d rounded to f32 (inf when it overflows), then d / sqrt(variance + eps) (or
sqrt(variance) + eps) in f32. The sums are exact here and the CPU's are f32 in its own order:
within 1.3 * 2**-24 * (mean|x| * sqrt(n) + |d| + |x|) / sqrt(variance + eps) of the CPU
(measured). NaN or inf in the reduced elements gives NaN there as on the CPU. Integers round
to nearest, saturated for 8 bits (as measured on one row; their other cases are not compared,
docs/ops/MVN.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import F32, f32_operand, stored_from_f32
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.mvn import MVN1, MVN6
from irpool.ops.reduce import Reduce


@kernel_for(MVN6)
def run_mvn(
    op: MVN6, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data = inputs[0]
    if isinstance(op, MVN1):
        axes = op.reduced_axes(data.ndim)
    else:
        axes = Reduce.normalized_axes(inputs[1], data.ndim)
    # f64 is cast, not saturated as the elementwise kernels take it: an inf stays inf in the
    # mean (measured: a row holding inf gives -FLT_MAX, the -inf result saturated on output).
    x = data.astype(F32) if data.dtype == np.float64 else f32_operand(data)
    with np.errstate(all="ignore"):  # inf - inf and 0 / 0 are values here, as on the CPU
        mean = np.mean(x, axis=axes, keepdims=True, dtype=np.float64).astype(F32)
        centered = x - mean
        if op.normalize_variance:
            squares = np.square(centered.astype(np.float64))
            variance = np.mean(squares, axis=axes, keepdims=True).astype(F32)
            eps = F32(op.eps)
            root = np.sqrt(variance + eps) if op.eps_inside else np.sqrt(variance) + eps
            centered = centered / root
    return [stored_from_f32(centered, data.dtype)]
