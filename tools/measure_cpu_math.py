"""The CPU plugin's Math node functions, re-measured with the rest by tools/measure_cpu.py
(which imports this module; its sections close docs/cpu.md)."""

from __future__ import annotations

import numpy as np
from cpu_probe import Measurement, behaviour, observe, parameter
from ov_builders import opset1  # says how to install OpenVINO where it is missing


@behaviour("Sin and Cos are the C library's", "irpool.cpu.trigonometry")
def sin_and_cos_are_the_c_librarys() -> Measurement:
    """Rotary angles and large arguments: cos(1.0668172) is 0.48291376 (glibc's cosf), one f32
    step below the nearest (0.4829138); cos(131) is 0.5842088, not 0.58420885; and 1e10,
    3e38, -7.5e20 (reduced exactly)."""
    x = parameter("x", [9], np.float32)
    angles = [1.0668172, 1.1809167, 10.684485, 4.979885, 131.0, 193.0, 1e10, 3e38, -7.5e20]
    return observe([opset1.sin(x), opset1.cos(x)], [x], [np.array(angles, np.float32)])
