"""Sin and Cos as the CPU plugin computes them: its Math node calls the C library's sinf and
cosf, which on glibc (2.28 on) are a range reduction to [-pi/4, pi/4] and a short polynomial,
all in f64, rounded to f32 once at the end. They are not the correctly rounded values (the
f64 sin of the f32 value, rounded): 1 in 80 rotary-embedding angles differs by one ulp
(docs/ops/Sin.md). Here the same steps in NumPy f64: the reduction's product by pi/2 exact
where glibc's is one FMA (pi/2 split in two), the polynomial's FMAs as a product and a sum
(their rounding is 2**-29 of an f32 ulp: measured equal to glibc on every value tried).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]

_HALF_PI = float.fromhex("0x1.921FB54442D18p0")
_HALF_PI_HIGH = float.fromhex("0x1.921FB54442Dp0")  # 45 bits: times a quadrant < 2**8, exact
_HALF_PI_LOW = _HALF_PI - _HALF_PI_HIGH
_TWO_OVER_PI_SCALED = float.fromhex("0x1.45F306DC9C883p+23")  # 2/pi * 2**24
_PI_2_POW_MINUS_62 = float.fromhex("0x1.921FB54442D18p-62")
# Cosine polynomial c0..c4, sine polynomial s1..s3 (glibc's sincosf data).
_COSINE = (
    1.0,
    float.fromhex("-0x1.ffffffd0c621cp-2"),
    float.fromhex("0x1.55553e1068f19p-5"),
    float.fromhex("-0x1.6c087e89a359dp-10"),
    float.fromhex("0x1.99343027bf8c3p-16"),
)
_SINE = (
    float.fromhex("-0x1.555545995a603p-3"),
    float.fromhex("0x1.1107605230bc4p-7"),
    float.fromhex("-0x1.994eb3774cf24p-13"),
)
# 4/pi to 192 bits; the reduction of large values reads 32-bit windows of it, each 8 bits on.
_FOUR_OVER_PI = bytes(3) + bytes.fromhex("a2f9836e4e441529fc2757d1f534ddc0db6295993c439041")
_WINDOWS = np.array([int.from_bytes(_FOUR_OVER_PI[k : k + 4], "big") for k in range(24)], np.uint64)
# The top 12 bits (exponent and 3 of the mantissa) of |x| choose the path, as in glibc.
_TINY, _QUARTER_PI, _FAST = (
    int(np.float32(v).view(np.uint32)) >> 20 for v in (2.0**-12, np.pi / 4, 120.0)
)
_INFINITE = 0x7F8


def sinf(values: NDArray[np.float32]) -> NDArray[np.float32]:
    """glibc's sinf of each f32 value."""
    return _sine_or_cosine(values, cosine=False)


def cosf(values: NDArray[np.float32]) -> NDArray[np.float32]:
    """glibc's cosf of each f32 value."""
    return _sine_or_cosine(values, cosine=True)


# The sines and cosines of the last small input, by its shape and bytes: a rotary embedding's
# Sin and Cos read the same angles, and the two share all but the last steps.
_REMEMBERED_VALUES = 4096
_last: tuple[tuple[int, ...], bytes, NDArray[np.float32], NDArray[np.float32]] | None = None


def _sine_or_cosine(values: NDArray[np.float32], *, cosine: bool) -> NDArray[np.float32]:
    """A new array: computed alone for a large input; for a small one both, remembered."""
    global _last
    shape = np.shape(values)
    flat = np.ascontiguousarray(values, np.float32).reshape(-1)
    if flat.size > _REMEMBERED_VALUES:
        return _computed(flat, shape, (cosine,))[0]
    content = flat.tobytes()
    last = _last  # one read: another thread may replace it
    if last is None or last[0] != shape or last[1] != content:
        sine, cosine_values = _computed(flat, shape, (False, True))
        last = _last = (shape, content, sine, cosine_values)
    return (last[3] if cosine else last[2]).copy()  # the remembered arrays stay unchanged


def _computed(
    flat: NDArray[np.float32], shape: tuple[int, ...], cosines: tuple[bool, ...]
) -> list[NDArray[np.float32]]:
    """The sines (False) or cosines (True) of `flat`, shaped `shape`, in the order asked."""
    bits = flat.view(np.uint32)
    top = (bits >> 20) & 0x7FF
    with np.errstate(all="ignore"):  # inf and NaN are values here
        x = bits.view(np.float32).astype(np.float64)
        reduced, quadrant, negative = _reduced(x, bits, top)
        # quadrant + sign (large values) or quadrant: which sign and which table
        signed = (quadrant + negative) & 3
        sign = np.where((signed == 1) | (signed == 2), -1.0, 1.0)
        flipped = (signed & 2) != 0  # the 2nd table: the cosine negated
        small = top < _QUARTER_PI
        r = np.where(small, x, reduced * sign)
        sine, cosine = _polynomials(r, np.where(small, x * x, reduced * reduced))
        cosine = np.where(flipped & ~small, -cosine, cosine)
        even = (quadrant & 1) == 0
        tiny = top < _TINY
        infinite = top >= _INFINITE
        results = []
        for wanted in cosines:
            odd, at_tiny = (even, 1.0) if wanted else (~even, x)
            result = np.where(tiny, at_tiny, np.where(odd, cosine, sine))
            result = np.where(infinite, np.nan, result)
            results.append(result.astype(np.float32).reshape(shape))
    return results


def _reduced(
    x: F64, bits: NDArray[np.uint32], top: NDArray[np.integer[Any]]
) -> tuple[F64, NDArray[np.int64], NDArray[np.int64]]:
    """x reduced to [-pi/4, pi/4], its quadrant, and 1 where a large x is negative (the
    fast reduction keeps the sign in x)."""
    scaled = (x * _TWO_OVER_PI_SCALED).astype(np.int64)  # truncated, as C's (int32_t)
    near = ((scaled + 0x800000) >> 24).astype(np.int64)
    fast = (x - near * _HALF_PI_HIGH) - near * _HALF_PI_LOW
    large = top >= _FAST
    if not large.any():  # rotary angles of short prompts: skip the integer reduction
        return fast, near, np.zeros_like(near)
    far, far_quadrant = _reduced_large(bits)
    reduced = np.where(large, far, fast)
    quadrant = np.where(large, far_quadrant, near)
    negative = np.where(large, (bits >> 31).astype(np.int64), 0)
    return reduced, quadrant, negative


def _reduced_large(bits: NDArray[np.uint32]) -> tuple[F64, NDArray[np.int64]]:
    """glibc's reduce_large: |x| times 4/pi in 2.62 fixed point, in wrapping 64-bit integers."""
    wide = bits.astype(np.uint64)
    windows = (wide >> np.uint64(26)) & np.uint64(15)
    shift = (wide >> np.uint64(23)) & np.uint64(7)
    mantissa = ((wide & np.uint64(0xFFFFFF)) | np.uint64(0x800000)) << shift
    low32 = np.uint64(0xFFFFFFFF)
    first = (mantissa * _WINDOWS[windows]) & low32  # a 32-bit product in C
    second = mantissa * _WINDOWS[windows + np.uint64(4)]
    third = mantissa * _WINDOWS[windows + np.uint64(8)]
    fixed = ((third >> np.uint64(32)) | (first << np.uint64(32))) + second
    quadrant = (fixed + np.uint64(1 << 61)) >> np.uint64(62)
    remainder = (fixed - (quadrant << np.uint64(62))).view(np.int64)
    return remainder.astype(np.float64) * _PI_2_POW_MINUS_62, quadrant.astype(np.int64)


def _polynomials(x: F64, x2: F64) -> tuple[F64, F64]:
    """glibc's sinf_poly: the sine polynomial and the cosine one (its 2nd table negates the
    cosine's coefficients, which negates the result exactly)."""
    s1, s2, s3 = _SINE
    c0, c1, c2, c3, c4 = _COSINE
    x3 = x * x2
    sine = (x + x3 * s1) + (x3 * x2) * (s2 + x2 * s3)
    x4 = x2 * x2
    cosine = ((c0 + x2 * c1) + x4 * c2) + (x4 * x2) * (c3 + x2 * c4)
    return sine, cosine
