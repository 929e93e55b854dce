"""How OpenVINO 2026.4's CPU plugin computes a FakeQuantize (docs/cpu.md, "Quantization";
measured in docs/ops/FakeQuantize.md); what it strips and refuses of one is in
irpool.cpu.quantization_refusals, which validation imports without NumPy.

A FakeQuantize the plugin runs on its own takes one of three kernels, all in f32, chosen per
layer (`kernel_for_layer`):
- the snippet (levels other than 2, no input_low above its input_high, numpy or none, data of
  a static shape; the element-wise ops it decomposes other shapes into compute alike):
  max(x, il) (NaN gives il), min(.., ih), `x * isc - il * isc` with
  isc = (levels - 1) / (ih - il), rounded half to even, then `r * osc + ol` fused
  (osc = (oh - ol) / (levels - 1));
- its FakeQuantize node (levels 2, a crossed range or data of a dynamic shape, where it takes
  the shapes): min(x, ih) (NaN gives ih), max(.., il), `x * isc + ish` fused with
  ish = -il * (levels - 1) / (ih - il), rounded half to even, then `r * osc + ol` fused;
- OpenVINO's reference (a crossed or empty range the node does not take): the
  specification's formula.
A FakeQuantize of 255 or 256 levels that the plugin fuses into the f32 Convolution before it
(a post-op) clamps as the snippet (NaN gives il) and takes the node's level, fma(x, isc, ish).
`levels` is an unsigned 64-bit count: 0 makes levels - 1 2**64 - 1 (so the output is the input
clamped, at f32's resolution).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.quantization_refusals import EIGHT_BIT_LEVELS

F32 = np.float32
_LEVEL_SPAN = 2**64


def steps(levels: int) -> np.float32:
    """levels - 1 as the plugin computes it: in size_t, then in f32."""
    return F32((levels - 1) % _LEVEL_SPAN)


def fused_multiply_add(
    a: NDArray[np.float32],
    b: NDArray[np.float32] | np.float32,
    c: NDArray[np.float32] | np.float32 | float,
) -> NDArray[np.float32]:
    """a * b + c rounded once to f32, as the plugin's FMA instructions (computed in f64: exact
    for the products of two f32 values; the sum is rounded twice only where f64 cannot hold
    it, which changes no result the measurements met)."""
    with np.errstate(all="ignore"):
        exact = np.multiply(a, b, dtype=np.float64)
        exact += c
        return exact.astype(F32)


Kernel = Literal["snippet", "node", "reference", "post_op"]


def kernel_for_layer(
    levels: int,
    ranges: Sequence[NDArray[Any]],
    data_rank: int,
    auto_broadcast: str,
    dynamic_data: bool = False,
    after_product: bool = False,
) -> Kernel:
    """Which of its kernels the plugin runs a FakeQuantize on (docs/ops/FakeQuantize.md#values):
    the snippet (or the same arithmetic as element-wise ops) unless levels are 2, a range is
    crossed, the broadcast is pdpd or the model declares the data's shape dynamic
    (`dynamic_data`; the plugin's snippets take static shapes only); then its node where the
    node takes the shapes (data of rank 2 to 5, numpy or none, ranges per tensor or per
    channel of axis 1 or 2); else the element-wise ops, or OpenVINO's reference where some
    input_low is at or above its input_high (the decomposition refuses those). A pdpd layer
    of 15, 16, 255 or 256 levels is a numpy one (the low-precision pass rebuilds it). One of
    255 or 256 levels, no crossed range, fused into the Convolution before it
    (`after_product`) is that Convolution's post-op."""
    low, high = ranges[:2]
    if auto_broadcast == "pdpd" and levels in EIGHT_BIT_LEVELS:
        auto_broadcast = "numpy"  # its low-precision pass rewrites the layer so
    if after_product and auto_broadcast in ("numpy", "none") and not np.any(low >= high):
        return "post_op"
    snippet = levels != 2 and not np.any(low > high) and auto_broadcast in ("numpy", "none")
    if snippet and not (dynamic_data and _node_takes(ranges, data_rank, auto_broadcast)):
        return "snippet"
    if _node_takes(ranges, data_rank, auto_broadcast):
        return "node"
    return "reference" if np.any(low >= high) else "snippet"


def _node_takes(ranges: Sequence[NDArray[Any]], data_rank: int, auto_broadcast: str) -> bool:
    if not 2 <= data_rank <= 5 or auto_broadcast not in ("numpy", "none"):
        return False
    for values in ranges:
        shape = (1,) * (data_rank - values.ndim) + values.shape
        wide = [axis for axis, dim in enumerate(shape) if dim > 1]
        if len(wide) > 1 or (wide and wide[0] not in (1, 2)):
            return False
    return True


def fake_quantized(
    x: NDArray[np.float32],
    ranges: tuple[NDArray[np.float32], ...],
    levels: int,
    kernel: Kernel = "snippet",
    rounds: bool = True,
) -> NDArray[np.float32]:
    """FakeQuantize of f32 `x` by f32 `ranges` (input_low, input_high, output_low,
    output_high, each broadcast against `x`) as the plugin's `kernel` computes it; a post-op
    that does not round (`rounds` False, given only with the post_op kernel) keeps
    fma(x, isc, ish) as its level."""
    low, high, out_low, out_high = ranges
    count = steps(levels)
    with np.errstate(all="ignore"):
        if kernel == "reference":
            level = np.rint((x - low) / (high - low) * count)
            inside = level / count * (out_high - out_low) + out_low
            above = np.where(x > np.maximum(low, high), out_high, inside)
            return np.where(x <= np.minimum(low, high), out_low, above).astype(F32)
        scale = count / (high - low)
        out_scale = (out_high - out_low) / count
        if kernel in ("node", "post_op"):
            shift = (-low * count) / (high - low)
            if kernel == "post_op":  # NaN gives il
                clamped = np.fmin(np.fmax(x, low), high)
            else:
                clamped = np.fmax(np.fmin(x, high), low)
            level = fused_multiply_add(clamped, scale, shift)
            if rounds:
                level = np.rint(level)
        else:
            level = np.fmax(x, low)
            np.fmin(level, high, out=level)
            np.multiply(level, scale, out=level)
            np.subtract(level, low * scale, out=level)
            np.rint(level, out=level)
    return fused_multiply_add(level, out_scale, out_low)
