"""FakeQuantize on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it (measured,
docs/ops/FakeQuantize.md): the data and the ranges taken to f32 (f16 and bf16 data computed in
f32 and rounded back), and the CPU's arithmetic (irpool.cpu.quantization: its kernel per
layer, clamp order, NaN handling, rounding half to even and fused multiply-adds). Under pdpd
the CPU aligns the ranges from the last axis, numpy's way (its reference alone, for a crossed
range, from axis 0). A FakeQuantize the plugin strips (65536 levels, output ranges equal to
the input ones) gives its input, unclamped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import f32_operand, moved_as_held, stored_from_f32
from irpool.cpu.quantization import fake_quantized, kernel_for_layer
from irpool.cpu.quantization_refusals import is_stripped
from irpool.execute.errors import ExecutionError
from irpool.execute.kernels.arithmetic import pdpd_aligned
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.fake_quantize import FakeQuantize1


@kernel_for(FakeQuantize1)
def run_fake_quantize(
    op: FakeQuantize1, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data = inputs[0]
    if is_stripped(op.levels, inputs[1:]):
        return [moved_as_held(data.copy())]
    ranges = [f32_operand(r) for r in inputs[1:]]
    kernel = kernel_for_layer(op.levels, ranges, data.ndim, op.auto_broadcast)
    if op.auto_broadcast == "pdpd" and kernel == "reference":
        ranges = [pdpd_aligned(r, data.ndim) for r in ranges]
    shape = np.broadcast_shapes(data.shape, *(r.shape for r in ranges))
    if shape != data.shape:
        raise ExecutionError(
            f"irpool does not run a FakeQuantize whose ranges broadcast {list(data.shape)} "
            f"to {list(shape)}"
        )
    low, high, out_low, out_high = ranges
    quantized = fake_quantized(f32_operand(data), (low, high, out_low, out_high), op.levels, kernel)
    return [stored_from_f32(quantized, data.dtype)]
