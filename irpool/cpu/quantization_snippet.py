"""The CPU's snippet FakeQuantize (irpool.cpu.quantization, `fake_quantized`) in a few f32
passes over one buffer, the input's own where the run lets a kernel overwrite it.

The level is computed by the same f32 operations as `fake_quantized` (clamp, `x * isc`,
`- il * isc`, round half to even); a NaN stays NaN through them and is given, at the end,
what `fake_quantized` gives a NaN. The output fma(level, osc, ol) needs one rounding; a layer
can give only the integer levels between those of il and ih, so each layer's steps try every
one of them against the f64 formula and take the cheapest f32 form that equals it on all:
`level * osc + ol` (always exact when ol is 0), or osc split into a high part whose products
with the levels are exact and the low rest, `(level * hi + ol) + level * lo`; else the f64
formula itself. Ranges that are not finite, that give too many levels to try, or an output_low
of -0 (where the sign of a zero level shows; the clamp here keeps x = -0 as -0) are left to
`fake_quantized`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.quantization import F32, fake_quantized, fused_multiply_add, steps

# Layers whose levels span more than this are left to `fake_quantized` (trying each level
# would cost more than it saves).
MOST_LEVELS_TRIED = 1 << 16
# The low mantissa bits of osc split off as `lo`: the high part keeps 15 of f32's 24 bits, so
# its products with levels below 2**9 are exact.
_LOW_BITS = 9

OutputForm = Literal["product", "split", "wide"]
Array = NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class SnippetSteps:
    """One snippet FakeQuantize layer's constants, each broadcast against the data."""

    low: Array
    high: Array
    scale: Array  # isc
    shift: Array  # il * isc
    form: OutputForm
    factors: tuple[Array, ...]  # osc ("product", "wide") or its high and low parts ("split")
    out_low: Array
    nan_output: Array  # what a NaN element gives


def snippet_steps(ranges: tuple[Array, ...], levels: int) -> SnippetSteps | None:
    """The steps of a snippet layer with these f32 `ranges` (input_low, input_high,
    output_low, output_high), or None where `fake_quantized` must compute it."""
    low, high, out_low, out_high = ranges
    count = steps(levels)
    with np.errstate(all="ignore"):
        scale = count / (high - low)
        shift = low * scale
        out_scale = (out_high - out_low) / count
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
    form, factors = _output_form(tried, out_scale, out_low)
    nan = np.full((1, *np.broadcast_shapes(*(r.shape for r in ranges))), np.nan, F32)
    nan_output = fake_quantized(nan, ranges, levels)[0]  # a leading axis: never a 0-d result
    return SnippetSteps(low, high, scale, shift, form, factors, out_low, nan_output)


def _output_form(
    tried: Array, out_scale: Array, out_low: Array
) -> tuple[OutputForm, tuple[Array, ...]]:
    exact = fused_multiply_add(tried, out_scale, out_low).view(np.int32)
    if np.array_equal((tried * out_scale + out_low).view(np.int32), exact):
        return "product", (out_scale,)
    high_part = (out_scale.view(np.int32) & np.int32(-(1 << _LOW_BITS))).view(F32)
    low_part = out_scale - high_part
    split = (tried * high_part + out_low) + tried * low_part
    if np.array_equal(split.view(np.int32), exact):
        return "split", (high_part, low_part)
    return "wide", (out_scale.astype(np.float64),)


def quantize_into(x: Array, out: Array, layer: SnippetSteps) -> Array:
    """`fake_quantized(x, ranges, levels)` of the layer, written into `out` (`x` itself may
    be `out`)."""
    with np.errstate(all="ignore"):
        np.clip(x, layer.low, layer.high, out=out)  # NaN stays NaN, unlike fmax
        np.multiply(out, layer.scale, out=out)
        np.subtract(out, layer.shift, out=out)
        np.rint(out, out=out)
        if layer.form == "product":
            np.multiply(out, layer.factors[0], out=out)
            np.add(out, layer.out_low, out=out)
        elif layer.form == "split":
            low_products = np.multiply(out, layer.factors[1])
            np.multiply(out, layer.factors[0], out=out)
            np.add(out, layer.out_low, out=out)
            np.add(out, low_products, out=out)
        else:
            products = np.multiply(out, layer.factors[0], dtype=np.float64)
            np.add(products, layer.out_low.astype(np.float64), out=out, casting="unsafe")
        if out.size and np.isnan(out.min()):
            np.copyto(out, np.broadcast_to(layer.nan_output, out.shape), where=np.isnan(out))
    return out
