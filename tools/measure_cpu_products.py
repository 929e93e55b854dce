"""The CPU plugin's sums of products by compressed weights, re-measured with the rest by
tools/measure_cpu.py (which imports this module; its sections close docs/cpu.md), how the
constants of compressed weights fold, and the FakeQuantize a Convolution runs as its post-op."""

from __future__ import annotations

import numpy as np
from cpu_probe import Measurement, behaviour, constant, fake_quantize, observe, parameter
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


@behaviour("f16 constant arithmetic folds in f32", "irpool.cpu.f16_constants.f16_constants_in_f32")
def f16_constant_arithmetic_folds_in_f32() -> Measurement:
    """x + Convert(f32)((u8 [200, 7] - u8 128) * f16 0.0123): 0.88549805 and -1.4881287, the
    f32 products; rounded to f16 they would be 0.8857422 and -1.4882812."""
    x = parameter("x", [2], np.float32)
    codes = opset1.convert(constant([200, 7], np.uint8), "f16")
    shifted = opset1.subtract(codes, opset1.convert(constant([128], np.uint8), "f16"))
    weights = opset1.multiply(shifted, constant([0.0123], np.float16))
    return observe([opset1.add(x, opset1.convert(weights, "f32"))], [x], [np.zeros(2, np.float32)])


@behaviour(
    "A FakeQuantize fused into a Convolution rounds its level once",
    "irpool.cpu.quantized_convolutions.quantizers_after_convolutions",
)
def fake_quantize_fused_into_a_convolution_rounds_its_level_once() -> Measurement:
    """Convolution (1x1, weight 1) -> FakeQuantize [-0.3, 1.7] of 256 levels: x = -0.2882353
    and -0.272549 (ties of `x * isc - il * isc`) give levels 1 and 3, fma(x, isc, ish)'s,
    not 2 and 4; NaN gives il. A Parameter's FakeQuantize gives 2 and 4."""
    x = parameter("x", [1, 1, 1, 5], np.float32)
    one = constant(np.ones((1, 1, 1, 1)), np.float32)
    product = opset1.convolution(x, one, [1, 1], [0, 0], [0, 0], [1, 1])
    ranges = (-0.3, 1.7, -0.3, 1.7)
    outputs = [fake_quantize(product, ranges, 256, "numpy"), fake_quantize(x, ranges, 256, "numpy")]
    data = np.array([[[[-0.28823530673980713, -0.272549033164978, np.nan, np.inf, 3e38]]]])
    return observe(outputs, [x], [data.astype(np.float32)])


@behaviour(
    "A FakeQuantize before a residual sum is not rounded",
    "irpool.cpu.quantized_convolutions.quantizers_after_convolutions",
)
def fake_quantize_before_a_residual_sum_is_not_rounded() -> Measurement:
    """FakeQuantize [0, 2.55] -> Convolution (1x1) by i8 code 1 times 0.45 (an int8 one) ->
    FakeQuantize A [-1.28, 1.27] -> Add of r -> ReLU -> FakeQuantize B [0, 2.55], each of
    256 levels (steps 0.01): x = 0.03 and 0.05 (products 0.0135 and 0.0225) with r = 0.004
    give B's 0.02 and 0.03, A unrounded; A rounded to 0.01 and 0.02 would give 0.01, 0.02."""
    x = parameter("x", [1, 1, 1, 4], np.float32)
    r = parameter("r", [1, 1, 1, 4], np.float32)
    levels = fake_quantize(x, (0, 2.55, 0, 2.55), 256, "numpy")
    code = opset1.convert(constant(np.ones((1, 1, 1, 1)), np.int8), "f32")
    weight = opset1.multiply(code, constant(np.full((1, 1, 1, 1), 0.45), np.float32))
    product = opset1.convolution(levels, weight, [1, 1], [0, 0], [0, 0], [1, 1])
    first = fake_quantize(product, (-1.28, 1.27, -1.28, 1.27), 256, "numpy")
    summed = opset1.relu(opset1.add(first, r))
    out = fake_quantize(summed, (0, 2.55, 0, 2.55), 256, "numpy")
    data = np.array([0.03, 0.05, 0.5, np.nan], np.float32).reshape(1, 1, 1, 4)
    residual = np.array([0.004, 0.004, 0, 0], np.float32).reshape(1, 1, 1, 4)
    return observe([out], [x, r], [data, residual])


@behaviour("int8 products without VNNI sum saturated pairs", "irpool.cpu.int8_pairs")
def int8_products_without_vnni_sum_saturated_pairs() -> Measurement:
    """An i8 Convolution of x = 1 by filters 1, 3, 5, -5 (1x1, one output each) is 1, 3, 5,
    -5 with AVX512_VNNI and 0, 4, 4, -4 without (filters 2 * rne(w / 2)); a FakeQuantize of
    levels 0..255 -> Convolution 1x1 and MatMul by i8 codes 127, 127 (times 1) of level 255
    is 64770 with VNNI and 32767 without (the pair saturated in 16 bits)."""
    x = parameter("x", [1, 4, 1, 1], np.int8)
    filters = constant(np.array([1, 3, 5, -5]).reshape(4, 1, 1, 1), np.int8)
    i8 = opset1.group_convolution(
        x,
        opset1.reshape(filters, constant([4, 1, 1, 1, 1], np.int64), False),
        [1, 1],
        [0, 0],
        [0, 0],
        [1, 1],
    )
    levels = parameter("levels", [1, 2, 1, 1], np.float32)
    quantized = fake_quantize(levels, (0, 255, 0, 255), 256, "numpy")
    products = []
    for shape in ((1, 2, 1, 1), (1, 2)):
        codes = opset1.convert(constant(np.full(shape, 127), np.int8), "f32")
        weights = opset1.multiply(codes, constant(np.ones((1,) * len(shape)), np.float32))
        if len(shape) == 2:
            rows = opset1.reshape(quantized, constant([1, 2], np.int64), False)
            products.append(opset1.matmul(rows, weights, False, True))
        else:
            products.append(opset1.convolution(quantized, weights, [1, 1], [0, 0], [0, 0], [1, 1]))
    inputs = [np.ones((1, 4, 1, 1), np.int8), np.full((1, 2, 1, 1), 255, np.float32)]
    return observe([i8, *products], [x, levels], inputs)


@behaviour(
    "An AVX2 host quantizes no activations",
    "irpool.cpu.compressed_weights.quantizes_activations",
)
def avx2_host_quantizes_no_activations() -> Measurement:
    """x @ w.T, w = (Convert(u8 Const [3, 100]) - zero point) * scale (f16, one per row), two
    rows of randn: on AVX-512 the activations are quantized per 32 (K above 32, one scale per
    row); with at most AVX2 (no VNNI) not: each output one FMA chain over K's first 96 and one
    over its last 4, added. The first output is 1.1836369 on AVX-512 and 1.1755291 with
    `ONEDNN_MAX_CPU_ISA=AVX2` (and DYNAMIC_QUANTIZATION_GROUP_SIZE 0, as an AVX2 host)."""
    rows, depth = 3, 100
    rng = np.random.default_rng(0)
    x = parameter("x", [2, depth], np.float32)
    codes = opset1.convert(constant(rng.integers(0, 256, (rows, depth)), np.uint8), "f16")
    points = opset1.convert(constant(rng.integers(100, 156, (rows, 1)), np.uint8), "f16")
    scales = constant(rng.uniform(0.001, 0.01, (rows, 1)), np.float16)
    weights = opset1.multiply(opset1.subtract(codes, points), scales)
    product = opset1.matmul(x, opset1.convert(weights, "f32"), False, True)
    return observe([product], [x], [rng.standard_normal((2, depth)).astype(np.float32)])
