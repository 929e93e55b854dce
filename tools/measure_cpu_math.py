"""The CPU plugin's Math node functions and a kernel whose form the instruction set picks,
re-measured with the rest by tools/measure_cpu.py (which imports this module)."""

from __future__ import annotations

import numpy as np
from cpu_probe import Measurement, behaviour, observe, parameter
from ov_builders import opset1, opset4, opset7  # says how to install OpenVINO where it is missing


@behaviour("Sin and Cos are the C library's", "irpool.cpu.trigonometry")
def sin_and_cos_are_the_c_librarys() -> Measurement:
    """Rotary angles and large arguments: cos(1.0668172) is 0.48291376 (glibc's cosf), one f32
    step below the nearest (0.4829138); cos(131) is 0.5842088, not 0.58420885; and 1e10,
    3e38, -7.5e20 (reduced exactly)."""
    x = parameter("x", [9], np.float32)
    angles = [1.0668172, 1.1809167, 10.684485, 4.979885, 131.0, 193.0, 1e10, 3e38, -7.5e20]
    return observe([opset1.sin(x), opset1.cos(x)], [x], [np.array(angles, np.float32)])


@behaviour("Gelu ERF takes the instruction set's form", "irpool.cpu.isa.cpu_isa")
def gelu_erf_takes_the_instruction_sets_form() -> Measurement:
    """Gelu ERF of -5 is -1.1920929e-06 on AVX-512 (the minimax form), -1.4901161e-06 with at
    most AVX2 (Abramowitz-Stegun's); of -5.6 -0 and +0; of 0.5 0.34573123 and 0.3457312."""
    x = parameter("x", [6], np.float32)
    values = np.array([-5.0, -3.0, -1.0, 0.5, 2.0, -5.6], np.float32)
    return observe([opset7.gelu(x, "erf")], [x], [values])


@behaviour(
    "u8 stores take the instruction set's form", "irpool.cpu.numerics.stored_from_f32_eltwise"
)
def u8_stores_take_the_instruction_sets_form() -> Measurement:
    """u8 Exp of 10, 11, 12 is 255, 255, 255 on AVX-512 and 255, 0, 0 with at most AVX2 (packed
    through 16 bits); u8 Power 182**2 255 and 0, 181**2 255 on both; the Math node's u8 Acosh(0),
    NaN, 255 and 0."""
    x, a, b = (parameter(name, [4], np.uint8) for name in "xab")
    outputs = [opset1.exp(x), opset1.power(a, b), opset4.acosh(x)]
    inputs = [np.array(v, np.uint8) for v in ([10, 11, 12, 0], [181, 182, 2, 255], [2, 2, 15, 3])]
    return observe(outputs, [x, a, b], inputs)


@behaviour("bf16 layers compute in f32 with at most AVX2", "irpool.cpu.bf16_in_f32")
def bf16_layers_compute_in_f32_with_at_most_avx2() -> Measurement:
    """x -> Convert(bf16) -> MaxPool, read back through a Convert to f32 and as a bf16 output:
    with at most AVX2 the f32 values unrounded (0.3, -140.8, 1e-39; -inf and NaN give
    -3.4028235e38) and the bf16 output by OpenVINO's scalar rounding (-140.8 -> -140, 1e-39 ->
    0x000a); on AVX-512 rounded to nearest even (0.30078125, -141), subnormals flushed; a bf16
    constant's inf read by an Add is 3.4028235e38 with at most AVX2."""
    x = parameter("x", [1, 1, 8], np.float32)
    pooled = opset1.max_pool(opset1.convert(x, "bf16"), [1], [0], [0], [1])
    infinite = opset1.convert(opset1.constant(np.full([1, 1, 8], np.inf, np.float32)), "bf16")
    shifted = opset1.add(opset1.convert(x, "bf16"), infinite)
    values = [0.3, -140.8, 1e-39, -1e-39, -np.inf, np.nan, 1.01171875, 3.4e38]
    outputs = [opset1.convert(pooled, "f32"), pooled, opset1.convert(shifted, "f32")]
    return observe(outputs, [x], [np.array([[values]], np.float32)])
