"""The CPU plugin's sums of products by compressed weights, re-measured with the rest by
tools/measure_cpu.py (which imports this module; its sections close docs/cpu.md)."""

from __future__ import annotations

import numpy as np
from cpu_probe import Measurement, behaviour, constant, observe, parameter
from ov_builders import opset1  # says how to install OpenVINO where it is missing


@behaviour(
    "A MatMul by weights grouped by 16 sums one FMA chain",
    "irpool.cpu.compressed_weights.sums_in_one_chain",
)
def matmul_by_grouped_weights_sums_one_fma_chain() -> Measurement:
    """x @ w.T, w = Convert(u8 Const [2, 2, 16] of ones) * 1 (f16) -> Reshape [2, 32], two
    rows of x = [1, 2**-24, 2**-24, 0, ..., -1] (group 16: not quantized): one chain from
    x[0] rounds each 1 + 2**-24 back to 1 and ends at 0 (exact: 2**-23; OpenBLAS's sgemm
    gives 2**-24)."""
    depth, group = 32, 16
    x = parameter("x", [2, depth], np.float32)
    quantized = opset1.constant(np.ones((2, depth // group, group), np.uint8))
    scales = opset1.constant(np.ones((2, depth // group, 1), np.float16))
    grouped = opset1.multiply(opset1.convert(quantized, "f16"), scales)
    flat = opset1.reshape(grouped, constant([2, depth], np.int64), False)
    product = opset1.matmul(x, opset1.convert(flat, "f32"), False, True)
    row = np.zeros(depth, np.float32)
    row[:3], row[-1] = [1, 2**-24, 2**-24], -1
    return observe([product], [x], [np.stack([row, row])])
