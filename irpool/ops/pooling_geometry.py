"""Pooling geometry, the one home for it: checking (ops/) and running (execute/) both import it.

At check time an `Axis` resolves one spatial axis from the attributes (kernel, strides,
dilations, pads, auto_pad, rounding_type) and the input dim, which may be dynamic: the
effective pads and the output size, as OpenVINO 2026.4 computes them
(docs/ops/AvgPool.md#shape-inference).
At run time a `Window` is the same axis with concrete sizes: which input index each tap of
each output reads and which taps are real (not padding); execute/window_arrays.py gives
the kernels the same as NumPy arrays (tap indices, 0/1 matrices, exclude-pad divisors), so
checking a model never imports NumPy. Adaptive pooling's boxes are here too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from irpool.ops.base import ShapeError
from irpool.shape import Dim

AUTO_PADS = ("explicit", "same_upper", "same_lower", "valid")
# auto_pad values under which the runtime computes the pads and never reads the declared ones
COMPUTED_PADS = {"auto_pad": AUTO_PADS[1:]}
ROUNDINGS = ("floor", "ceil", "ceil_torch")
# A negative list value wraps around 2**64 when OpenVINO reads it; anything this large is one.
WRAPPED = 1 << 63
UINT64 = 1 << 64


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def csv(values: Iterable[int]) -> str:
    """Integers as an IR attribute writes them: "1,2,3"."""
    return ",".join(str(int(v)) for v in values)


@dataclass(frozen=True)
class Window:
    """One spatial axis with concrete sizes: output `o` reads taps
    `o*stride - pad_begin + j*dilation` for `j < kernel`; taps outside [0, size) are padding.

    Everything here depends on one axis only, so kernels can treat a multi-dimensional window
    as a product of one-dimensional ones (the real-tap count of a box is the product of the
    per-axis counts, which makes every divisor separable).
    """

    size: int
    out: int
    kernel: int
    stride: int
    dilation: int
    pad_begin: int

    def tap(self, o: int, j: int) -> int:
        """Input index of tap `j` of output `o` (may lie in the padding)."""
        return o * self.stride - self.pad_begin + j * self.dilation

    def real_taps(self, o: int) -> list[int]:
        """Input indices of the real (non-padding) taps of output `o`."""
        return [t for t in (self.tap(o, j) for j in range(self.kernel)) if 0 <= t < self.size]

    def tap_outputs(self, j: int) -> tuple[int, int]:
        """The outputs [lo, hi) for which tap `j` is real (hi may equal lo)."""
        offset = j * self.dilation - self.pad_begin
        lo = min(self.out, max(0, cdiv(-offset, self.stride)))
        hi = min(self.out, (self.size - 1 - offset) // self.stride + 1)
        return lo, max(lo, hi)

    @cached_property
    def interior(self) -> tuple[int, int]:
        """The outputs [lo, hi) whose taps are all real; the rest are border outputs."""
        lo, hi = self.tap_outputs(0)
        last_lo, last_hi = self.tap_outputs(self.kernel - 1)
        lo, hi = max(lo, last_lo), min(hi, last_hi)
        return lo, max(lo, hi)

    @property
    def borders(self) -> list[int]:
        lo, hi = self.interior
        return [*range(lo), *range(hi, self.out)]

    def covers_all(self) -> bool:
        """One output whose real taps are exactly the whole axis."""
        return self.out == 1 and self.real_taps(0) == list(range(self.size))


@dataclass(frozen=True, slots=True)
class Axis:
    """One spatial axis of a pooling layer as the runtime resolves it (dims may be dynamic)."""

    kernel: int
    stride: int
    dilation: int
    pad_begin: int
    pad_end: int
    size: Dim
    out: Dim

    @property
    def dilated_kernel(self) -> int:
        return (self.kernel - 1) * self.dilation + 1

    def window(self) -> Window:
        """The run-time geometry; only for static sizes."""
        assert self.size.value is not None and self.out.value is not None
        return Window(
            self.size.value, self.out.value, self.kernel, self.stride, self.dilation, self.pad_begin
        )


def effective_pads(
    size: Dim, kernel: int, stride: int, dilation: int, pads: tuple[int, int], auto_pad: str
) -> tuple[int, int]:
    """The pads the runtime uses: declared (explicit), zero (valid), or computed (same_*)."""
    if auto_pad == "explicit":
        return pads
    if auto_pad == "valid" or not size.is_static:
        return 0, 0
    dilated = (kernel - 1) * dilation + 1
    total = max(0, (cdiv(size.value, stride) - 1) * stride + dilated - size.value)
    low, high = total // 2, total - total // 2
    return (low, high) if auto_pad == "same_upper" else (high, low)


def _out_length(
    length: int, pad_begin: int, dilated: int, stride: int, rounding: str, size: int
) -> int:
    """Output length for one bound; `length` is the padded size L, `size` the real size D."""
    if stride >= WRAPPED:
        return 1  # the runtime's arithmetic on a wrapped stride leaves a single window
    span = max(length - dilated, 0)
    if rounding == "floor":
        return span // stride + 1
    windows = cdiv(span, stride)
    if rounding == "ceil":
        return windows + 1
    # ceil_torch: the last window must start inside the data or the begin padding. The
    # runtime computes D + pads_begin - 1 unsigned, so at 0 it wraps and keeps the window.
    limit = (size + pad_begin - 1) % UINT64
    return windows + 1 if windows * stride <= limit else windows


def padding_total(pads: tuple[int, int]) -> int | None:
    """pads_begin + pads_end as the runtime adds them to a dim: a signed 64-bit sum, where -1
    (a wrapped negative pad) makes the dim dynamic and lower sums count as 0."""
    total = sum(pads) % UINT64
    if total >= WRAPPED:
        total -= UINT64
    return None if total == -1 else max(total, 0)


def resolve_axis(
    size: Dim,
    kernel: int,
    stride: int,
    dilation: int,
    pads: tuple[int, int],
    auto_pad: str,
    rounding: str,
) -> Axis:
    """An axis from its attributes (`pads` as declared) and input dim: the effective pads
    and the output dim."""
    effective = effective_pads(size, kernel, stride, dilation, pads, auto_pad)
    if auto_pad in ("same_upper", "same_lower") and not size.is_static:
        return Axis(kernel, stride, dilation, *effective, size, Dim.dynamic())
    padding = padding_total(effective)
    bounded = size
    if padding is None:
        if size.is_static:
            raise ShapeError(
                "pads_begin + pads_end is -1 after wrapping negative pads; OpenVINO fails "
                "(Cannot get length of dynamic dimension)",
                attribute="pads_end",
            )
        bounded, padding = Dim(size.low, None), 0
    dilated = (kernel - 1) * dilation + 1

    def bound(value: int) -> int:
        return _out_length(value + padding, effective[0], dilated, stride, rounding, value)

    high = None if bounded.high is None else bound(bounded.high)
    return Axis(kernel, stride, dilation, *effective, size, Dim(bound(bounded.low), high))


def adaptive_box(i: int, size: int, out: int) -> range:
    """The input indices of adaptive box `i` of `out` on an axis of `size`:
    [floor(i*size/out), ceil((i+1)*size/out))."""
    return range((i * size) // out, cdiv((i + 1) * size, out))
