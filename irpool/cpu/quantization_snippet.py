"""The CPU's snippet FakeQuantize, and its FakeQuantize node on ranges that are not crossed
(irpool.cpu.quantization, `fake_quantized`), in a few passes over one buffer, the input's own
where the run lets a kernel overwrite it.

The level is computed by the same operations as `fake_quantized` (clamp; the snippet's f32
`x * isc - il * isc` or the node's fma(x, isc, ish) in f64, the f32 product where every il
is ±0; round half to even); a NaN stays NaN through them and is given, at the end, what
`fake_quantized` gives a NaN. The output
fma(level, osc, ol) needs one rounding; a layer can give only the integer levels between
those of il and ih, so each layer's steps try every one of them against the f64 formula and
take the cheapest f32 form that equals it on all:
`level * osc + ol` (always exact when ol is 0); `(level + k) * osc` with k the integer nearest
ol / osc (NNCF's signed ranges, ol = -128 osc: the shifted level is exact and the product
rounds once); osc split into a high part whose products with the levels are exact and the
low rest, `(level * hi + ol) + level * lo`; else the f64 formula itself. Ranges that are not
finite, that give too many levels to try, or an output_low of -0 (where the sign of a zero
level shows; the clamp here keeps x = -0 as -0) are left to `fake_quantized`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.quantization import F32, Kernel, fake_quantized, fused_multiply_add, steps

# Layers whose levels span more than this are left to `fake_quantized` (trying each level
# would cost more than it saves).
MOST_LEVELS_TRIED = 1 << 16
# The low mantissa bits of osc split off as `lo`: the high part keeps 15 of f32's 24 bits, so
# its products with levels below 2**9 are exact.
_LOW_BITS = 9

OutputForm = Literal["product", "shifted", "split", "wide"]
Array = NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class SnippetSteps:
    """One snippet FakeQuantize layer's constants, each broadcast against the data."""

    low: Array
    high: Array
    scale: NDArray[Any]  # isc (the node's in f64)
    shift: NDArray[Any]  # the snippet's il * isc, subtracted; the node's ish in f64, added
    fma: bool  # the node's level fma(x, isc, ish) computed in f64; False where every il is ±0
    form: OutputForm
    # osc ("product", "wide"), k and osc ("shifted") or osc's high and low parts ("split")
    factors: tuple[Array, ...]
    out_low: Array
    nan_output: Array  # what a NaN element gives
    subtracts: bool  # False where the snippet's shift is +0 throughout (x - +0 is x, -0 too)
    rounds: bool  # False for a post-op that keeps its level unrounded

    @property
    def widens(self) -> bool:
        """Whether `quantize_into` takes an f64 buffer."""
        return self.fma or self.form == "wide"


def snippet_steps(
    ranges: tuple[Array, ...], levels: int, kernel: Kernel = "snippet", rounds: bool = True
) -> SnippetSteps | None:
    """The steps of a snippet (or node) layer with these f32 `ranges` (input_low, input_high,
    output_low, output_high), or None where `fake_quantized` must compute it; a post-op that
    does not round (`rounds` False, given only with the post_op kernel) takes the f64 output
    formula on its unrounded level."""
    low, high, out_low, out_high = ranges
    count = steps(levels)
    node = kernel in ("node", "post_op")
    if node and np.any(low > high):
        return None  # its crossed clamp
    with np.errstate(all="ignore"):
        scale = count / (high - low)
        shift = (-low * count) / (high - low) if node else low * scale
        out_scale = (out_high - out_low) / count
        if node:
            first = np.rint(fused_multiply_add(low, scale, shift))
            last = np.rint(fused_multiply_add(high, scale, shift))
        else:
            first = np.rint(low * scale - shift)
            last = np.rint(high * scale - shift)
    constants = (low, high, scale, shift, out_scale, out_low, first, last)
    if not all(np.isfinite(c).all() for c in constants):
        return None
    if np.any(np.signbit(out_low) & (out_low == 0)):
        return None  # a level of -0 (from x = -0 at il = 0, clamped by fmax to +0) shows
    if float(last.max()) - float(first.min()) >= MOST_LEVELS_TRIED:
        return None
    tried = np.arange(float(first.min()), float(last.max()) + 1, dtype=F32)
    tried = np.append(tried, F32(-0.0)).reshape((-1,) + (1,) * max(out_scale.ndim, out_low.ndim))
    if rounds:
        form, factors = _output_form(tried, out_scale, out_low)
    else:
        form, factors = "wide", (out_scale.astype(np.float64),)
    nan = np.full((1, *np.broadcast_shapes(*(r.shape for r in ranges))), np.nan, F32)
    nan_output = fake_quantized(nan, ranges, levels, kernel, rounds)[0]  # never a 0-d result
    # Where every il is ±0 (after a ReLU), ish is ∓0 and fma(x, isc, ish) is the f32 product
    # x * isc (rounded once, as from f64) plus ish: the clamp leaves x at -0 or above, so no
    # product is a negative that rounds to -0 in f32 alone; the snippet's pass subtracts -ish.
    fma = node and not bool(np.all(low == 0))
    if fma:  # f32 values multiply exactly in f64
        scale, shift = scale.astype(np.float64), shift.astype(np.float64)
    elif node:
        shift = np.negative(shift)
    subtracts = fma or bool(np.any(shift != 0) or np.any(np.signbit(shift)))
    return SnippetSteps(
        low, high, scale, shift, fma, form, factors, out_low, nan_output, subtracts, rounds
    )


def _output_form(
    tried: Array, out_scale: Array, out_low: Array
) -> tuple[OutputForm, tuple[Array, ...]]:
    exact = fused_multiply_add(tried, out_scale, out_low).view(np.int32)
    if np.array_equal((tried * out_scale + out_low).view(np.int32), exact):
        return "product", (out_scale,)
    with np.errstate(all="ignore"):
        shift = np.rint(out_low / out_scale)
    if np.isfinite(shift).all():
        shifted = (tried + shift) * out_scale
        if np.array_equal(shifted.view(np.int32), exact):
            return "shifted", (shift, out_scale)
    high_part = (out_scale.view(np.int32) & np.int32(-(1 << _LOW_BITS))).view(F32)
    low_part = out_scale - high_part
    split = (tried * high_part + out_low) + tried * low_part
    if np.array_equal(split.view(np.int32), exact):
        return "split", (high_part, low_part)
    return "wide", (out_scale.astype(np.float64),)


def quantize_into(
    x: Array, out: Array, layer: SnippetSteps, wide: NDArray[np.float64] | None = None
) -> Array:
    """`fake_quantized(x, ranges, levels, kernel)` of the layer, written into `out` (`x`
    itself may be `out`); the node's fma and the f64 output form take `wide`, an f64 buffer
    of x's shape, where given (`SnippetSteps.widens`: a fresh one of megabytes costs its page
    faults on every call)."""
    with np.errstate(all="ignore"):
        np.clip(x, layer.low, layer.high, out=out)  # NaN stays NaN, unlike fmax
        if layer.fma:  # fma(x, isc, ish) as `fused_multiply_add` computes it
            wide = out.astype(np.float64) if wide is None else wide
            np.copyto(wide, out)
            np.multiply(wide, layer.scale, out=wide)
            np.add(wide, layer.shift, out=wide)
            np.copyto(out, wide, casting="same_kind")
        else:
            np.multiply(out, layer.scale, out=out)
            if layer.subtracts:
                np.subtract(out, layer.shift, out=out)
        if layer.rounds:
            np.rint(out, out=out)
        if layer.form == "product":
            np.multiply(out, layer.factors[0], out=out)
            np.add(out, layer.out_low, out=out)
        elif layer.form == "shifted":
            np.add(out, layer.factors[0], out=out)
            np.multiply(out, layer.factors[1], out=out)
        elif layer.form == "split":
            low_products = np.multiply(out, layer.factors[1])
            np.multiply(out, layer.factors[0], out=out)
            np.add(out, layer.out_low, out=out)
            np.add(out, low_products, out=out)
        else:  # fma(level, osc, ol) in f64, in `wide` where given
            products = np.empty(out.shape, np.float64) if wide is None else wide
            np.copyto(products, out)
            np.multiply(products, layer.factors[0], out=products)
            np.add(products, layer.out_low.astype(np.float64), out=products)
            np.copyto(out, products, casting="same_kind")
        if out.size and np.isnan(out.min()):
            np.copyto(out, np.broadcast_to(layer.nan_output, out.shape), where=np.isnan(out))
    return out
