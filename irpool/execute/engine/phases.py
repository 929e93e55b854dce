"""Stride phases laid out contiguously, for the separable passes of AvgPool (`sliding`) and
MaxPool: with stride s, output o reads input o*s + t for tap t = q*s + r, which is element
o + q of phase r (input positions r, r + s, ...). NumPy combines contiguous phases at full
speed where strided views of the input go through its buffer (`costs.BUFFER`)."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from numpy.typing import NDArray

# The low word of a uint64 pair is its first float (phases by casting need it).
CAST_OK = sys.byteorder == "little"


def lay_out_phase(
    rows: NDArray[Any], phase: NDArray[Any], r: int, stride: int, valid: int, cast: bool
) -> None:
    """Phase r of `rows` [lead, size(, inner)] into the first `valid` entries of each row of
    `phase` [lead, length(, inner)]: by row copies, or with `cast` (a last axis of 4-byte
    elements, stride 2, `rows` contiguous) by one uint64 -> uint32 cast over the whole block,
    which keeps one float of each pair twice as fast as a strided copy (measured)."""
    if cast:
        cast_phase(rows.reshape(-1), phase.reshape(-1), r)
    else:
        np.copyto(phase[:, :valid], rows[:, r::stride][:, :valid])


def cast_phase(flat: NDArray[Any], phase: NDArray[Any], r: int) -> None:
    """Phase r (0 or 1) of a last axis with stride 2: one uint32 word of each uint64 pair."""
    words = phase.view(np.uint32)
    if r == 0:
        np.copyto(words, flat.view(np.uint64), casting="unsafe")
        return
    # Pairs starting at element 1; the last odd element has no partner inside the block.
    np.copyto(words[:-1], flat[1:-1].view(np.uint64), casting="unsafe")
    words[-1] = flat[-1:].view(np.uint32)[0]
