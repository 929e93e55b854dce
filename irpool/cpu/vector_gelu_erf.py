"""Gelu's ERF mode as the CPU plugin's vectorized kernels compute it (oneDNN's JIT eltwise
gelu_erf), bit for bit, the Gelu op and a Gelu fused into a MatMul alike, in the form the
host's instruction set takes (irpool.cpu.isa; docs/ops/Gelu.md#values-the-cpus-polynomials).

On AVX-512, the minimax form works on a = |x|: a degree-5 polynomial p in a approximates
erf(a / sqrt(2)), one of 25 chosen by the index (bits(a) + 0xC21FFFFF) >> 21 (an i32 sum,
arithmetic shift: 2 mantissa bits a binade), held to [1, 24], and 23 where a is above
0x1.62b9dcp2 (5.5425), whose polynomial is 1; it is evaluated by FMAs from the top
coefficient down, given x's sign, and Gelu = (x * (p + 1)) * 0.5. So ±inf and NaN give NaN
(a 0 coefficient times inf), and x below about -5.54 gives -0. An FMA is computed in f64 and
rounded once to f32 here (the product of two f32 is exact).

On AVX2, the Abramowitz-Stegun 7.1.26 form (an older set, not modelled, takes it without
FMAs; irpool gives it AVX2's bits): y = x * (1/sqrt(2)) and a = |y| in
f32, t = 1 / fma(0.3275911, a, 1), q = -exp(-(y * y)) * t with the CPU's exp
(irpool.cpu.vector_exp), r = a degree-4 polynomial in t by FMAs, erf = fma(q, r, 1) given x's
sign, h = x * 0.5 and Gelu = fma(erf, h, h).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.isa import AVX512_CORE, cpu_isa
from irpool.cpu.numerics import polynomial_by_fmas, polynomial_table
from irpool.cpu.quantization import fused_multiply_add
from irpool.cpu.vector_exp import by_blocks, vector_exp

F32 = np.float32
F64 = np.float64
INDEX_BIAS = np.int32(np.uint32(0xC21FFFFF).view(np.int32))
INDEX_SHIFT = 21
FIRST_INDEX, LAST_INDEX, SATURATED_INDEX = 1, 24, 23
SATURATION_BOUND = np.uint32(0x40B15CEE).view(F32)

# The f32 bits of each polynomial's coefficients, a row per degree from 0 to 5, 25 polynomials.
_COEFFICIENT_BITS = """
a6f2cb94 32827792 3381cc0c 34523d4a 351ac44d 35f36d88 36ee8229 37b8a3bb 3867a213 3940033b
3a2a5a1d 3ae35863 3b7828f2 3c08b14b 3c515ed3 bb503236 bd8d8e5e be8abcd9 bf0c19a2 beccb328
3e176ced 3f470d99 3f7abb28 3f800000 00000000
3f4c422a 3f4c421f 3f4c4207 3f4c41cb 3f4c413b 3f4c3fad 3f4c3a2f 3f4c2d40 3f4c146a 3f4bc341
3f4ad08c 3f48f8cf 3f45fac7 3f404e07 3f3b980f 3f48dff3 3f78b21b 3fbb0704 40019c32 3fe536d6
3f81331e 3e6c8684 3c98f936 00000000 3f800000
b62173f4 3735e4cf 37f2ff89 388c23be 3917535c 39ab2ab0 3a60fadb 3af9b960 3b6e5491 3c0a4ec5
3ca5aa8c 3d2138d9 3d8737d4 3ddfb660 3e0f27ab 3d94004b be0efdeb bf1d96c3 bf89db58 bf6d9897
bef69fb8 bdc4f8a8 bbde6422 00000000 00000000
be081a19 be084570 be08639b be089837 be08f409 be09ab95 be0b66d0 be0e400a be124df8 be1bde02
be2f19c9 be4931bf be685fbc be89c95f be96cbca be8044aa be0550f2 3dcfd6a1 3e94c826 3e79345f
3decec91 3ca46568 3aa1e00a 00000000 00000000
ba3d61db 39f097a3 3a5845dc 3ab1fa35 3b0cefb8 3b653ab6 3bcae527 3c221712 3c6c5840 3cc0a703
3d1dcc19 3d63656d 3d955907 3dbf9910 3dd53f69 3db7dcef 3d639ebe ba6ede48 bd22be69 bd041cf1
bc64f5ab bb097a32 b8ebf380 00000000 00000000
3cb7d80c 3c9b6050 3c978d11 3c92e850 3c8d058b 3c848454 3c6cd623 3c4c824b 3c2a7935 3be0b390
3b0651ac bb232f53 bbd42fa0 bc2c5366 bc492c9e bc2a7aa6 bbd55d04 ba823a76 3b102aa8 3ae25a7e
3a31f792 38b84375 3689bb5a 00000000 00000000
"""
# COEFFICIENTS[degree, polynomial], f32 values held in f64
COEFFICIENTS = polynomial_table(_COEFFICIENT_BITS, 6)

# Abramowitz-Stegun 7.1.26: p, then a1 to a5 (erf ~ 1 - (a1 t + ... + a5 t**5) exp(-y * y)).
_AS_BITS = "3ea7ba05 3e827906 be91a98e 3fb5f0e3 bfba00e3 3f87dc22"
AS_P, *AS_COEFFICIENTS = polynomial_table(_AS_BITS, 6)[:, 0]
ONE_OVER_SQRT_2 = np.uint32(0x3F3504F3).view(F32)


def _gelu_erf_block(x: NDArray[np.float32], out: NDArray[np.float32]) -> None:
    """`out` = the CPU's Gelu ERF of `x` (one block)."""
    magnitude = np.abs(x)
    index = magnitude.view(np.int32) + INDEX_BIAS  # wraps as the CPU's i32 add does
    index >>= INDEX_SHIFT
    np.clip(index, FIRST_INDEX, LAST_INDEX, out=index)
    index[magnitude > SATURATION_BOUND] = SATURATED_INDEX
    rows = index.astype(np.intp)
    polynomial_by_fmas(COEFFICIENTS, rows, magnitude.astype(F64), out)
    np.negative(out, out=out, where=np.signbit(x))
    out += F32(1)
    out *= x
    out *= F32(0.5)


def _gelu_erf_avx2_block(x: NDArray[np.float32], out: NDArray[np.float32]) -> None:
    """`out` = the CPU's Gelu ERF of `x` on AVX2 (one block)."""
    y = x * ONE_OVER_SQRT_2
    t = F32(1) / fused_multiply_add(np.abs(y), AS_P, 1)
    q = vector_exp(-(y * y))
    np.negative(q, out=q)
    q *= t
    r = np.full(x.shape, AS_COEFFICIENTS[-1], F32)
    for coefficient in reversed(AS_COEFFICIENTS[:-1]):
        r = fused_multiply_add(r, t, coefficient)
    erf = fused_multiply_add(q, r, 1)
    np.negative(erf, out=erf, where=np.signbit(x))
    half = x * F32(0.5)
    out[:] = fused_multiply_add(erf, half, half)


def vector_gelu_erf(x: NDArray[np.float32]) -> NDArray[np.float32]:
    """The CPU's Gelu ERF of f32 values (a new array of x's shape), in this host's form."""
    block = _gelu_erf_block if cpu_isa() == AVX512_CORE else _gelu_erf_avx2_block
    return by_blocks(x, block)
