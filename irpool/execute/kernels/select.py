"""Select on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it (measured,
docs/ops/Select.md): a copy of `then` or `else` per element (NaN and -0
kept), NumPy's broadcasting; `pdpd` aligns `else` and `cond` with `then` from axis 0. Values
are held as the CPU holds the type: f64 saturated to ±FLT_MAX and rounded to f32, 64-bit
integers wrapped to int32 (i64 2**40 + 5 gives 5), as in the activations' kernels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import moved_as_held
from irpool.execute.kernels.arithmetic import pdpd_aligned
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.select import Select1


@kernel_for(Select1)
def run_select(
    op: Select1, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    cond, then, otherwise = inputs
    if op.auto_broadcast == "pdpd":
        otherwise, cond = pdpd_aligned(otherwise, then.ndim), pdpd_aligned(cond, then.ndim)
    return [moved_as_held(np.where(cond, then, otherwise))]
