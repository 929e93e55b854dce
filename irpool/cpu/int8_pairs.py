"""int8 Convolutions and MatMuls on a host without VNNI: AVX-512 without AVX512_VNNI (Skylake-SP,
or `ONEDNN_MAX_CPU_ISA=AVX512_CORE`) and AVX2 (AMD Zen2, Zen3, or `ONEDNN_MAX_CPU_ISA=AVX2`;
docs/cpu.md#int8-products-without-vnni-sum-saturated-pairs).

VNNI's vpdpbusd sums u8 x i8 products exactly in int32. Without it oneDNN takes vpmaddubsw,
which adds each two neighbouring products (input channels 2j and 2j + 1 at one tap; a MatMul's
along K) in 16 bits saturated to [-32768, 32767], and sums those pairs in int32. On an i8
Convolution (s8 data, which the kernel shifts by 128 to u8) oneDNN holds the filters halved,
rounded half to even, and doubles the sum, so that no pair saturates; on u8 data (an NNCF
layer's input, the FakeQuantize's level) the pairs saturate, and so do an i8 MatMul's by i8
weights, which are kept, on its data shifted by 128.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.isa import AVX2, AVX512_CORE, int8_isa
from irpool.ops.pooling_geometry import Window

PAIR_MIN, PAIR_MAX = -32768, 32767  # vpmaddubsw's 16-bit saturation


def without_vnni() -> bool:
    """Whether the CPU plugin's int8 Convolutions sum in vpmaddubsw's saturated pairs here:
    AVX-512 without AVX512_VNNI, and AVX2 (AMD Zen2, Zen3), measured alike."""
    return int8_isa() in (AVX512_CORE, AVX2)


def halved_filters(values: NDArray[np.float32]) -> NDArray[np.float32]:
    """An i8 Convolution's filters as the CPU multiplies them without VNNI: 2 * rne(w / 2)."""
    halved: NDArray[np.float32] = np.rint(values * np.float32(0.5)) * np.float32(2)
    return halved


@dataclass(frozen=True)
class SaturatedPairs:
    """What the 16-bit pairs of an int8 Convolution on u8 data change in its f32 result: the
    data's level is (x - low) / step, the filters' codes are `codes` [O, C, *kernel], and a sum
    of levels times codes weighs `scales` [O] in the output."""

    low: float
    step: float
    levels: int
    codes: NDArray[np.int32]
    scales: NDArray[np.float64]

    def __call__(self, x: NDArray[np.float32], windows: Sequence[Window]) -> NDArray[np.float32]:
        """The saturated sums less the exact ones, times the scales: [N, O, *out]."""
        with np.errstate(invalid="ignore"):
            level = np.rint((x.astype(np.float64) - self.low) / self.step)
        level = np.clip(np.nan_to_num(level), 0, self.levels - 1).astype(np.int32)
        codes = self.codes
        if codes.shape[1] % 2:  # the odd channel's partner is the kernel's zero padding
            level = np.concatenate([level, np.zeros_like(level[:, :1])], axis=1)
            codes = np.concatenate([codes, np.zeros_like(codes[:, :1])], axis=1)
        outputs, out = codes.shape[0], tuple(w.out for w in windows)
        change = np.zeros((x.shape[0], outputs, *out), np.int64)
        # A pair saturates only where its two levels times its codes pass 16 bits: first the
        # pairs of channels whose levels anywhere can, then by tap.
        hot = _hot_pairs(level, codes)
        level = level.reshape(level.shape[0], -1, 2, *level.shape[2:])[:, hot]
        level = level.reshape(level.shape[0], -1, *level.shape[3:])
        codes = codes.reshape(outputs, -1, 2, *codes.shape[2:])[:, hot]
        first, second = codes[:, :, 0], codes[:, :, 1]
        reach = int(level.max(initial=0)) * (np.abs(first) + np.abs(second)) > PAIR_MAX
        if reach.any():
            taps = _taps(level, windows)
            for tap in zip(*np.nonzero(reach.any(axis=(0, 1))), strict=True):
                at = (slice(None), slice(None), *tap)
                _add_saturated(change, taps[tuple(tap)], (first[at], second[at]), reach[at])
        scales = self.scales.reshape((1, -1) + (1,) * len(windows))
        return (change * scales).astype(np.float32)


def _hot_pairs(level: NDArray[np.int32], codes: NDArray[np.int32]) -> NDArray[np.intp]:
    """The pairs of channels (2j, 2j + 1) whose levels [N, 2J, *in] times the largest codes
    [O, 2J, *kernel] of any output and tap pass 16 bits somewhere."""
    spread = (1, -1) + (1,) * (level.ndim - 2)
    top = np.abs(codes).max(axis=(0, *range(2, codes.ndim))).astype(np.int32)
    bound = level[:, 0::2] * top[0::2].reshape(spread) + level[:, 1::2] * top[1::2].reshape(spread)
    return np.flatnonzero((bound > PAIR_MAX).any(axis=(0, *range(2, level.ndim))))


def _add_saturated(
    change: NDArray[np.int64],
    window: NDArray[np.int32],
    codes: tuple[NDArray[np.int32], NDArray[np.int32]],
    reach: NDArray[np.bool_],
) -> None:
    """Add to `change` [N, O, *out] what saturating the pairs of one tap takes off: the tap's
    levels `window` [N, 2J, *out], the pairs' codes (first, second) [O, J], and `reach`
    [O, J], the outputs whose codes of a pair can pass 16 bits at the highest level."""
    first, second = codes
    a, b = window[:, 0::2], window[:, 1::2]
    spread = (1, -1) + (1,) * (a.ndim - 2)
    bound = a * np.where(reach, np.abs(first), 0).max(axis=0).reshape(spread)
    bound += b * np.where(reach, np.abs(second), 0).max(axis=0).reshape(spread)
    image, pair, *position = np.nonzero(bound > PAIR_MAX)
    # Few candidates (image, pair, position): each summed again with every output; many: the
    # pairs summed at every position, each with the outputs that reach (about 8x cheaper an
    # element, as broadcast products).
    if 8 * image.size * change.shape[1] > int(reach.sum()) * (bound.size // bound.shape[1]):
        _add_saturated_pairs(change, (a, b), codes, reach)
        return
    positions = int(np.prod(a.shape[2:], dtype=np.int64))
    at = np.ravel_multi_index(tuple(position), a.shape[2:]) if position else np.zeros_like(image)
    index = (image, pair, *position)
    block = max(1, (1 << 22) // change.shape[1])
    for lo in range(0, image.size, block):
        part = slice(lo, lo + block)
        exact = a[index][part, None] * first[:, pair[part]].T
        exact += b[index][part, None] * second[:, pair[part]].T
        candidate, output = np.nonzero((exact > PAIR_MAX) | (exact < PAIR_MIN))
        taken = np.clip(exact[candidate, output], PAIR_MIN, PAIR_MAX) - exact[candidate, output]
        # [N, O, positions] flat; integers well below 2^53, so the f64 sums are exact
        flat = (image[part][candidate] * change.shape[1] + output) * positions
        flat += at[part][candidate]
        change.reshape(-1)[:] += np.bincount(flat, taken, change.size).astype(np.int64)


def _add_saturated_pairs(
    change: NDArray[np.int64],
    levels: tuple[NDArray[np.int32], NDArray[np.int32]],
    codes: tuple[NDArray[np.int32], NDArray[np.int32]],
    reach: NDArray[np.bool_],
) -> None:
    """`_add_saturated` pair by pair, each over every position."""
    (a, b), (first, second) = levels, codes
    shape = (1, -1) + (1,) * (a.ndim - 2)
    for pair in np.flatnonzero(reach.any(axis=0)):
        outputs = np.flatnonzero(reach[:, pair])
        exact = a[:, pair, None] * first[outputs, pair].reshape(shape)
        exact += b[:, pair, None] * second[outputs, pair].reshape(shape)
        change[:, outputs] += np.clip(exact, PAIR_MIN, PAIR_MAX) - exact


@dataclass(frozen=True)
class SaturatedRows:
    """The same for an int8 MatMul (a FullyConnected) of x [..., K] by codes [O, K]: a 1x1
    Convolution of the rows."""

    pairs: SaturatedPairs

    def __call__(self, x: NDArray[np.float32]) -> NDArray[np.float32]:
        depth = x.shape[-1]
        rows = x.reshape(-1, depth, 1)
        change = self.pairs(rows, (Window(1, 1, 1, 1, 1, 0),))
        return change.reshape(*x.shape[:-1], -1)


def _taps(level: NDArray[np.int32], windows: Sequence[Window]) -> dict[tuple[int, ...], Any]:
    """Each tap's levels [N, C, *out], 0 (no product) in the padding."""
    pads = [(0, 0), (0, 0)] + [
        (max(w.pad_begin, 0), max(w.tap(w.out - 1, w.kernel - 1) + 1 - w.size, 0)) for w in windows
    ]
    padded = np.pad(level, pads)
    taps = {}
    for tap in product(*(range(w.kernel) for w in windows)):
        index: list[slice] = [slice(None), slice(None)]
        for w, j, (before, _) in zip(windows, tap, pads[2:], strict=True):
            start = j * w.dilation - w.pad_begin + before
            index.append(slice(start, start + (w.out - 1) * w.stride + 1, w.stride))
        taps[tap] = padded[tuple(index)]
    return taps
