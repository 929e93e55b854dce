"""Greater, Equal and NotEqual on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes them
(measured, docs/elementwise.md): both inputs converted
as the arithmetic kernels convert them (integers wrapped to int32, then f32; f64 saturated),
then compared in f32. So i32 16777217 equals 16777216 and is not greater; Greater is
`not (a <= b)`, true when either side is NaN; NaN equals nothing (NotEqual is true for it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import f32_operand
from irpool.execute.kernels.arithmetic import pdpd_aligned
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.comparison import Comparison, Equal1, Greater1


@kernel_for(Comparison)
def run_comparison(
    op: Comparison, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    a, b = inputs
    if op.auto_broadcast == "pdpd":
        b = pdpd_aligned(b, a.ndim)
    x, y = f32_operand(a), f32_operand(b)
    with np.errstate(invalid="ignore"):
        if isinstance(op, Greater1):
            return [np.asarray(~(x <= y))]
        if isinstance(op, Equal1):
            return [np.asarray(x == y)]
        return [np.asarray(x != y)]
