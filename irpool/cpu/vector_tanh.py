"""Tanh as the CPU plugin's vectorized kernels compute it (oneDNN's JIT eltwise tanh), bit for
bit (docs/ops/Gelu.md#values-the-cpus-polynomials): Gelu's TANH takes it.

It works on a = |x| and gives the sign back at the end. Below 0x1.bb67aep-12 tanh is a; from
0x1.205966p3 on it is 1; between, a degree-6 polynomial in r = a - s, where s is a with all but
its top mantissa bit cleared (the start of a half binade), chosen from 32 by the index
((bits(a) - bits(0x1p-12)) >> 22) & 31 and evaluated by FMAs from the top coefficient down.
An FMA is computed in f64 and rounded once to f32 here (the product of two f32 is exact).
NaN stays NaN (where the polynomial's blends would give ±1).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import polynomial_by_fmas, polynomial_table
from irpool.cpu.vector_exp import by_blocks

F32 = np.float32
F64 = np.float64
ABS_MASK = np.uint32(0x7FFFFFFF)
SIGN_MASK = np.uint32(0x80000000)
HALF_BINADE_MASK = np.uint32(0xFFC00000)
INDEX_BIAS = np.uint32(0x39800000)  # bits of 0x1p-12: the first polynomial's interval
INDEX_SHIFT = np.uint32(22)
LINEAR_BOUND = np.uint32(0x39DDB3D7).view(F32)
SATURATION_BOUND = np.uint32(0x41102CB3).view(F32)

# The f32 bits of each interval's coefficients, a row per degree from 0 to 6.
_COEFFICIENT_BITS = """
00000000 39bfffff 39ffffff 3a3ffffe 3a7ffffb 3abffff7 3affffeb 3b3fffdc
3b7fffab 3bbfff70 3bfffeab 3c3ffdc0 3c7ffaab 3cbff701 3cffeaad 3d3fdc08
3d7faacd 3dbf7081 3dfeacc9 3e3dc7fd 3e7acbf5 3eb77a9f 3eec9a9f 3f22991f
3f42f7d6 3f67b7cc 3f76ca83 3f7ebbe9 3f7fd40c 3f7fff32 3f7ffffc 3f800000
3f800000 3f800018 3f7fffe8 3f7fffda 3f7fffdc 3f7fffdc 3f7fffac 3f7fff70
3f7ffeec 3f7ffdc0 3f7ffbed 3f7ff704 3f7feff5 3f7fdbca 3f7fbfff 3f7f7041
3f7f009b 3f7dc36c 3f7c0aa8 3f7734b8 3f70a4de 3f5f1fd8 3f495493 3f18b9ec
3ed706cb 3e390b06 3d90b11f 3c21a053 3aaf7fdb 37ccc1a3 355c6733 00000000
00000000 be4e0ff1 3d25b1b1 3d6b6dab 3c9fb1d5 babff06f 3c07b3f6 bb3fc1bc
3a9f5921 bbbf06f2 bbb0f402 bc47db9e bc73d5e7 bca25bda bcfca780 bd40e07c
bd7dab03 bdbe4a0f bdfb14a5 be36cc8d be6bd102 be9fe7c5 beba0f10 bec206a8
bea3c388 be277d62 bd8b7960 bc209f49 baad44ca b7c6eeac b663aa41 00000000
00000000 45b3ae96 c414eb20 c450e02e c3152b4e bead2f56 c2162e02 beb4bd5a
c11a59a4 bed2f507 c020d32c 3dd0f506 bf2a75e2 bff950e3 bed47334 be809b8c
beb64532 be961a5b be9b63ac bea0d4b2 be828a77 be378612 bdc20908 3d2d3957
3dd46e89 3db3f629 3d2c5e7b 3bd20403 3a59dfae 3770af45 372cc014 00000000
00000000 cc981a1b 4a7edd3d 4ab1007c 48fedd9c 41a557b5 477ee32a 422557f5
45ff3ce4 42a55641 446e0867 c33dc19a 42915214 43af4fad 4110fe88 c1099b75
3fc8a8dc bfbeaef5 be365aad 3f4d9652 3ddfa08f 3e34e9b8 3e2d07a6 3dc63567
3cdaeb78 bcd17537 bc92829c bb43ab99 b9b471dd b6baad5a b78bafc7 00000000
00000000 52f688d5 d0505c72 d08f98e3 ce505cc9 c7162b8a cc5061d6 c7162bdf
ca50b37f c7162a3a c8422086 471a714e c5ece1f1 c70e3d90 c3eba94a 43e0c424
c21f4552 42217cc8 405e7dc4 c10dd401 3e96b602 bd1a6d2f bd393883 bd674682
bd310016 b961e269 3ba32495 3a7680d5 38b3173c 35a9deea 375c3f2a 00000000
00000000 d8995ed1 558285ea 55b2cd69 53028625 4bc9991f 5082898a 4b4999b3
4e02c07c 4ac99764 4b72c822 ca40c0e1 489413e4 49b12224 46134c4e c60c2d57
43c83910 c3c872d1 c186bc9e 42325bc3 bf2ffa4a 3d9a203c bc545a43 bae08fee
3c80225d 3b1fd1df ba36b9d1 b91de544 b71f100f b408e2ed b685fec8 00000000
"""
# COEFFICIENTS[degree, interval], f32 values held in f64
COEFFICIENTS = polynomial_table(_COEFFICIENT_BITS, 7)


def _tanh_block(x: NDArray[np.float32], out: NDArray[np.float32]) -> None:
    """`out` = the CPU's tanh of `x` (one block)."""
    bits = x.view(np.uint32)
    magnitude_bits = bits & ABS_MASK
    magnitude = magnitude_bits.view(F32)
    interval = magnitude_bits - INDEX_BIAS
    interval >>= INDEX_SHIFT
    interval &= np.uint32(31)
    rows = interval.astype(np.intp)
    start = magnitude_bits & HALF_BINADE_MASK  # of the half binade
    rest = np.subtract(magnitude, start.view(F32)).astype(F64)
    polynomial_by_fmas(COEFFICIENTS, rows, rest, out)
    np.copyto(out, F32(1), where=magnitude >= SATURATION_BOUND)  # NaN keeps the NaN it got
    np.copyto(out, magnitude, where=magnitude < LINEAR_BOUND)
    out.view(np.uint32)[...] ^= bits & SIGN_MASK


def vector_tanh(x: NDArray[np.float32]) -> NDArray[np.float32]:
    """The CPU's vectorized tanh of f32 values: ±inf gives ±1, ±0 ±0, NaN NaN."""
    return by_blocks(x, _tanh_block)
