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
