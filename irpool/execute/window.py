"""The geometry a pooling kernel needs on one spatial axis, already resolved by the op."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Window:
    """Output `o` reads taps `o*stride - pad_begin + j*dilation` for `j < kernel`.

    Taps outside [0, size) are padding: they add nothing to the sum.
    """

    size: int
    out: int
    kernel: int
    stride: int
    dilation: int
    pad_begin: int
