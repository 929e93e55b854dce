"""ReLU, Sigmoid, Swish, HSwish, HSigmoid, Floor, Gelu, Elu, PReLU and Round on NumPy arrays, as
OpenVINO 2026.4's CPU plugin computes them (docs/elementwise.md).

Every type is computed in f32 and stored as the CPU stores it (`irpool.cpu.numerics`): so ReLU
of the i32 16777217 is 16777216, and f64 results saturate to ±FLT_MAX.

The formulas are the CPU's, bit for bit where it uses no exp: HSigmoid multiplies by the f32
just below 1/6 (0x3E2AAAAA), so HSigmoid(0) is 0.49999997; HSwish is x * clip(x * (1/6) +
0.5, 0, 1), so HSwish(-inf) is NaN. ReLU and HSigmoid of NaN are 0. Sigmoid and Swish
(x * sigmoid(beta * x)) are the CPU's too (irpool.cpu.vector_exp: its polynomial exp; Swish
of a large negative x is -0), but right after a product whose sums BLAS computes they take
NumPy's exp (irpool.cpu.product_activations says why), and a Swish whose beta is known only when run
its reference kernel's (irpool.cpu.scalar_exp.reference_swish). Gelu ERF is
the CPU's form for the host's instruction set (irpool.cpu.vector_gelu_erf), TANH its f32 steps
and tanh polynomial (irpool.cpu.vector_tanh): both bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.isa import AVX512_CORE, cpu_isa
from irpool.cpu.numerics import EXP_UNDERFLOW, f32_operand, f32_result_buffer, stored_from_f32
from irpool.cpu.prelu_slope import slope_layout
from irpool.cpu.scalar_exp import reference_swish
from irpool.cpu.vector_exp import logistic, swish_into
from irpool.cpu.vector_gelu_erf import vector_gelu_erf
from irpool.cpu.vector_tanh import vector_tanh
from irpool.execute.engine.blocks import for_each_block
from irpool.execute.engine.costs import SPAN_BYTES
from irpool.execute.engine.scratch import Scratch
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.activations import (
    Activation,
    Elu1,
    Floor1,
    Gelu2,
    HSigmoid5,
    HSwish4,
    PRelu1,
    Relu1,
    Round5,
    Sigmoid1,
    Swish4,
)

F32 = np.float32
# The f32 the CPU multiplies by for HSigmoid: one ulp below the nearest f32 to 1/6.
SIXTH_BELOW = np.uint32(0x3E2AAAAA).view(F32)
SIXTH = F32(1 / 6)
GELU_CUBIC = F32(0.044715)  # Gelu TANH's constants as the CPU holds them: in f32
GELU_SCALE = F32(math.sqrt(2 / math.pi))
INF_BITS = np.int32(0x7F800000)  # +inf's f32 bits: above them, only NaNs

Formula = Callable[[NDArray[np.float32]], NDArray[np.float32]]


def relu(x: NDArray[np.float32], out: NDArray[np.float32] | None = None) -> NDArray[np.float32]:
    return clamped(x, F32(0), F32(np.inf), np.empty_like(x) if out is None else out)


def clamped(
    x: NDArray[np.float32], low: np.float32, high: np.float32, out: NDArray[np.float32]
) -> NDArray[np.float32]:
    """`min(max(x, low), high)` in `out` as the CPU's comparisons `t = x > low ? x : low;
    t < high ? t : high` give it, for bounds neither NaN nor -0: NaN gives low (then high if
    below it), equal values are one value but for a zero, where the CPU keeps the bound (+0
    here). From a low of +0 or more, on the f32 bits as int32 (`clamped_bits`); else,
    without NaN (max propagates it: a read-only pass), np.clip, which is minimum(maximum(x,
    low), high) and vectorized, then +0 where a bound is 0 (adding +0 makes -0 +0): 0.26 ms
    on 4.8 MB where fmax, +0 and fmin took 0.87 (measured); with NaN, fmax and fmin, which
    give the bound for NaN."""
    bits = bound_bits(low, high) if x.size else None
    if bits is not None and clamped_bits(x, *bits, out):
        return out
    if x.size and not np.isnan(x.max()):
        result = np.clip(x, low, high, out=out)
        if low == 0 or high == 0:
            np.add(result, F32(0), out=result)
        return result
    result = np.fmax(x, low, out=out)
    if low == 0:
        np.add(result, low, out=result)
    np.fmin(result, high, out=result)
    if high == 0:
        np.add(result, high, out=result)
    return result


def bound_bits(low: np.float32, high: np.float32) -> tuple[np.int32, np.int32] | None:
    """The bounds' f32 bits where `clamped_bits` may clamp by them: a low of +0 or more."""
    if low >= 0 and not np.signbit(low):
        return low.view(np.int32), high.view(np.int32)
    return None


def clamped_bits(
    x: NDArray[np.float32], low: np.int32, high: np.int32, out: NDArray[np.float32]
) -> bool:
    """Clamp to a low of +0 or more (`low`, `high`: the f32 bounds' bits) as int32 clip of
    the f32 bits, where x holds no NaN with its sign bit clear (whether one does: one
    read-only pass). The bits of floats from +0 up (+inf included) order as the floats do;
    every float with its sign bit set (-0, negative NaN included) is a negative int32, below
    low, and gives low, as on the CPU. Bits, not values, are copied, so nothing else
    changes: 0.15 ms on 4.8 MB where max, clip and +0 took 0.25 (measured). False, with
    `out` untouched, where x holds such a NaN."""
    bits = x.view(np.int32)
    if bits.max() > INF_BITS:
        return False
    bits.clip(low, high, out=out.view(np.int32))
    return True


def numpy_sigmoid(x: NDArray[np.float32]) -> NDArray[np.float32]:
    """1 / (1 + exp(-x)) by NumPy's exp (within 9 ulp of the CPU's polynomial), 0 below
    `EXP_UNDERFLOW` as on the CPU, in one new array; the mask pass only where some x is below
    it or NaN. For activations after BLAS's sums (irpool.cpu.product_activations)."""
    result = np.negative(x, out=np.empty_like(x))
    np.exp(result, out=result)
    np.add(result, F32(1), out=result)
    np.divide(F32(1), result, out=result)
    if x.size and not x.min() >= EXP_UNDERFLOW:
        np.copyto(result, F32(0), where=x < EXP_UNDERFLOW)
    return result


def hswish(x: NDArray[np.float32]) -> NDArray[np.float32]:
    gate: NDArray[np.float32] = np.clip(x * SIXTH + F32(0.5), F32(0), F32(1))
    return x * gate


def hsigmoid(x: NDArray[np.float32]) -> NDArray[np.float32]:
    # max/min written so that NaN gives 0, as on CPU.
    shifted = np.where(x + F32(3) > 0, x + F32(3), F32(0))
    return np.where(shifted < 6, shifted, F32(6)) * SIXTH_BELOW


FORMULAS: dict[type[Activation], Formula] = {
    Relu1: relu,
    Sigmoid1: logistic,
    HSwish4: hswish,
    HSigmoid5: hsigmoid,
    Floor1: np.floor,
}


@kernel_for(Relu1, Sigmoid1, HSwish4, HSigmoid5, Floor1)
def run_activation(
    op: Activation, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data = inputs[0]
    with np.errstate(all="ignore"):  # inf and NaN are values here, as on CPU
        x = f32_operand(data)
        if isinstance(op, Relu1):
            out = f32_result_buffer(x, data, outputs[0].overwrites_input)
            return [stored_from_f32(relu(x, out), data.dtype)]
        if isinstance(op, Sigmoid1) and op.after_blas_product:
            return [stored_from_f32(numpy_sigmoid(x), data.dtype)]
        return [stored_from_f32(FORMULAS[type(op)](x), data.dtype)]


@kernel_for(Swish4)
def run_swish(
    op: Swish4, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data = inputs[0]
    x = np.require(f32_operand(data), requirements="C")  # a scalar stays 0-d
    beta = f32_operand(inputs[1]) if len(inputs) > 1 else None
    out = f32_result_buffer(x, data, outputs[0].overwrites_input)
    flat, flat_out = x.reshape(-1), out.reshape(-1)

    def block(start: int, stop: int, _: Scratch) -> None:  # elementwise: the same bits
        with np.errstate(all="ignore"):
            part = flat[start:stop]
            if op.beta_at_run_time and beta is not None:
                flat_out[start:stop] = reference_swish(part, beta)
                return
            if not op.after_blas_product:
                swish_into(part, beta, flat_out[start:stop])
                return
            gate = numpy_sigmoid(part * beta if beta is not None else part)
            np.multiply(part, gate, out=flat_out[start:stop])

    # Blocks of about the L2's size, shared by the run's threads (Swish was 12% of yolov8n).
    for_each_block(flat.size, x.itemsize, SPAN_BYTES, block)
    with np.errstate(all="ignore"):
        return [stored_from_f32(out, data.dtype)]


@kernel_for(Gelu2)
def run_gelu(
    op: Gelu2, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    """ERF: the CPU's form for the host's instruction set (`vector_gelu_erf`); TANH: its steps
    in f32, `gelu_tanh`; both bit for bit, in blocks shared by the run's threads."""
    data = inputs[0]
    x = np.require(f32_operand(data), requirements="C")  # a scalar stays 0-d
    out = f32_result_buffer(x, data, outputs[0].overwrites_input)
    flat, flat_out = x.reshape(-1), out.reshape(-1)
    gelu = gelu_tanh if op.approximation == "TANH" else vector_gelu_erf

    def block(start: int, stop: int, _: Scratch) -> None:  # elementwise: the same bits
        flat_out[start:stop] = gelu(flat[start:stop])

    for_each_block(flat.size, x.itemsize, SPAN_BYTES, block)
    with np.errstate(all="ignore"):
        return [stored_from_f32(out, data.dtype)]


def gelu_tanh(x: NDArray[np.float32]) -> NDArray[np.float32]:
    """Gelu's TANH approximation in the CPU's f32 steps, bit for bit (docs/ops/Gelu.md):
    g = fma(x * x, 0.044715, 1) * x * sqrt(2 / pi), then ((tanh(g) + 1) * 0.5) * x with the
    CPU's tanh polynomial (`vector_tanh`); so -inf gives NaN, and -0 from where tanh(g) is -1."""
    with np.errstate(all="ignore"):
        # fma(x * x, c, 1): the product of two f32 values is exact in f64
        cubic = (np.multiply(x * x, GELU_CUBIC, dtype=np.float64) + 1).astype(F32)
        inner = cubic * x * GELU_SCALE
        tanh = vector_tanh(inner)
        result: NDArray[np.float32] = ((tanh + F32(1)) * F32(0.5)) * x
    return result


@kernel_for(Elu1)
def run_elu(
    op: Elu1, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    """The CPU's alpha * (exp(x) - 1) in f32, with exp in f64 rounded to f32 (the CPU's is
    within 2**-22 of it: docs/ops/Elu.md), so near 0 it cancels as the CPU's does."""
    data = inputs[0]
    return [stored_from_f32(elu(op, f32_operand(data)), data.dtype)]


def elu(op: Elu1, x: NDArray[np.float32]) -> NDArray[np.float32]:
    """Elu on values held in f32 (what a fused chain carries)."""
    with np.errstate(all="ignore"):
        grown = np.exp(x.astype(np.float64)).astype(F32) - F32(1)
        result: NDArray[np.float32] = np.where(x > 0, x, F32(op.alpha) * grown)
    return result


@kernel_for(PRelu1)
def run_prelu(
    op: PRelu1, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data, slope = inputs
    x, k = f32_operand(data), f32_operand(slope)
    layout = slope_layout(x.shape, k.shape)
    if layout == "channel":
        k = k.reshape((1, k.size, *([1] * (x.ndim - 2))))
    elif layout in ("one", "last"):
        k = k.reshape(-1)[-1]
    # AVX-512 takes the slope where x < 0; AVX2 where not x > 0 (±0 too: 0 * NaN is NaN)
    sloped = x < 0 if cpu_isa() == AVX512_CORE else ~(x > 0)
    with np.errstate(all="ignore"):
        return [stored_from_f32(np.where(sloped, x * k, x), data.dtype)]


@kernel_for(Round5)
def run_round(
    op: Round5, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    """In f32 as the CPU rounds (docs/ops/Round.md): half_to_even is rint; half_away_from_zero
    is sign(x) * floor(|x| + 0.5), so 0.49999997 gives 1 (the sum rounds up) and -0 gives +0.
    Booleans pass unchanged; integers go through f32 (i32 16777217 gives 16777216)."""
    data = inputs[0]
    if data.dtype == np.bool_:
        return [data.copy()]
    x = f32_operand(data)
    with np.errstate(invalid="ignore"):
        if op.mode == "half_to_even":
            rounded: NDArray[np.float32] = np.rint(x)
        else:
            rounded = np.sign(x) * np.floor(np.abs(x) + F32(0.5))
    return [stored_from_f32(rounded, data.dtype)]
