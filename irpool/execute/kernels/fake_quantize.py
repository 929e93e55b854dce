"""FakeQuantize on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it (measured,
docs/ops/FakeQuantize.md): the data and the ranges taken to f32 (f16 and bf16 data computed in
f32 and rounded back), and the CPU's arithmetic (irpool.cpu.quantization: its kernel per
layer, clamp order, NaN handling, rounding half to even and fused multiply-adds). Under pdpd
the CPU aligns the ranges from the last axis, numpy's way (its reference alone, for a crossed
range, from axis 0). A FakeQuantize the plugin strips (65536 levels, output ranges equal to
the input ones) gives its input, unclamped.

What a layer's ranges decide (stripped or not, the CPU's kernel, the snippet's constants:
irpool.cpu.quantization_snippet) is prepared once per layer and ranges, not per run.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import f32_operand, f32_result_buffer, moved_as_held, stored_from_f32
from irpool.cpu.quantization import Kernel, fake_quantized, kernel_for_layer
from irpool.cpu.quantization_refusals import is_stripped
from irpool.cpu.quantization_snippet import SnippetSteps, quantize_into, snippet_steps
from irpool.execute.engine.scratch import Slot, thread_scratch
from irpool.execute.errors import ExecutionError
from irpool.execute.kernels.arithmetic import pdpd_aligned
from irpool.execute.registry import OutputSpec, kernel_for, prepared
from irpool.ops.fake_quantize import FakeQuantize1


@dataclass(frozen=True, slots=True)
class _Layer:
    """What a layer computes on data of one shape, given its ranges."""

    stripped: bool
    kernel: Kernel
    ranges: tuple[NDArray[np.float32], ...]  # f32, aligned as the kernel broadcasts them
    snippet: SnippetSteps | None  # the snippet's passes, where they apply
    rounds: bool  # False: a post-op kernel's level kept unrounded (quantized_convolutions)


@kernel_for(FakeQuantize1)
def run_fake_quantize(
    op: FakeQuantize1, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data = inputs[0]
    key: Hashable = (data.shape, *((r.dtype.str, r.shape, r.tobytes()) for r in inputs[1:]))
    layer = prepared(op, key, lambda: _prepared(op, inputs[1:], data.shape))
    if layer.stripped:
        return [moved_as_held(data.copy())]
    x = f32_operand(data)
    if layer.snippet is not None:
        out = f32_result_buffer(x, data, outputs[0].overwrites_input)
        wide = None
        if layer.snippet.widens:
            wide = thread_scratch().array(Slot.WIDENED, x.shape, np.dtype(np.float64))
        return [stored_from_f32(quantize_into(x, out, layer.snippet, wide), data.dtype)]
    quantized = fake_quantized(x, layer.ranges, op.levels, layer.kernel, layer.rounds)
    return [stored_from_f32(quantized, data.dtype)]


def _prepared(op: FakeQuantize1, given: Sequence[NDArray[Any]], shape: tuple[int, ...]) -> _Layer:
    ranges = tuple(f32_operand(r) for r in given)
    if is_stripped(op.levels, given):
        return _Layer(True, "snippet", ranges, None, True)
    kernel = kernel_for_layer(
        op.levels, ranges, len(shape), op.auto_broadcast, op.dynamic_data, op.after_product
    )
    if op.auto_broadcast == "pdpd" and kernel == "reference":
        ranges = tuple(pdpd_aligned(r, len(shape)) for r in ranges)
    broadcast = np.broadcast_shapes(shape, *(r.shape for r in ranges))
    if broadcast != shape:
        raise ExecutionError(
            f"irpool does not run a FakeQuantize whose ranges broadcast {list(shape)} "
            f"to {list(broadcast)}"
        )
    rounds = op.rounds or kernel != "post_op"  # only the post-op kernel keeps a level unrounded
    snippet = None if kernel == "reference" else snippet_steps(ranges, op.levels, kernel, rounds)
    return _Layer(False, kernel, ranges, snippet, rounds)
