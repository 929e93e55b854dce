"""The comparisons on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes them (measured,
docs/elementwise.md#comparisons): both inputs converted as the arithmetic kernels convert them
(integers wrapped to int32, then f32; f64 saturated), then compared in f32 by the rule
`CPU_RULES` names. So i32 16777217 equals 16777216 and is not greater. NaN: on AVX-512
Greater is `not (a <= b)` and GreaterEqual `not (a < b)`, true when either side is NaN; with
at most AVX2 (irpool.cpu.isa) they are `a > b` and `a >= b`, false for it. Less and LessEqual
are false for it; NaN equals nothing (NotEqual is true for it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.isa import AVX512_CORE, cpu_isa
from irpool.cpu.numerics import f32_operand
from irpool.execute.kernels.arithmetic import pdpd_aligned
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.comparison import Comparison

F32Pair = NDArray[np.float32]
CPU_RULES: dict[str, Callable[[F32Pair, F32Pair], NDArray[np.bool_]]] = {
    "Greater": lambda x, y: ~(x <= y),
    "GreaterEqual": lambda x, y: ~(x < y),
    "Less": lambda x, y: x < y,
    "LessEqual": lambda x, y: x <= y,
    "Equal": lambda x, y: x == y,
    "NotEqual": lambda x, y: x != y,
}
# The AVX2 kernels' Greater and GreaterEqual, ordered compares: false when either side is NaN.
AVX2_RULES = CPU_RULES | {"Greater": np.greater, "GreaterEqual": np.greater_equal}


@kernel_for(Comparison)
def run_comparison(
    op: Comparison, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    a, b = inputs
    if op.auto_broadcast == "pdpd":
        b = pdpd_aligned(b, a.ndim)
    with np.errstate(invalid="ignore"):
        rules = CPU_RULES if cpu_isa() == AVX512_CORE else AVX2_RULES
        return [np.asarray(rules[op.type_name](f32_operand(a), f32_operand(b)))]
