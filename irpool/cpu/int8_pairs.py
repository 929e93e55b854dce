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
from dataclasses import dataclass, field
from itertools import product
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.int8_pairs_dense import PAIR_MAX, saturated, summed, taps_of
from irpool.cpu.int8_pairs_sparse import (
    Axes,
    Tap,
    axis_outputs,
    nonzero_of,
    sparse_changes,
    split_bound,
)
from irpool.cpu.isa import AVX2, AVX512_CORE, int8_isa
from irpool.ops.pooling_geometry import Window

_SPARSE_SHARE = 0.05  # candidates of the pairs' positions the sparse way takes, measured
_F32_LEVELS = 1 << 14  # inputs from which levels take f32 first
_SAMPLE, _SAMPLED = 16, 1 << 12  # the way by every 16th position, from 4096 positions
_CHUNK = 1 << 16  # values of the input whose levels are taken at once (`level`)
_SMALL = 1 << 16  # products of (candidate, tap)s by outputs that take the sparse way anyway
_HELD = 1  # the dense way sums its changes when it holds this times 2^20 (or its outputs)
_BOTH = np.arange(2)  # a pair's two channels
# a layer's change: the whole array, its flat indices and values, or None (zero throughout)
_Change = NDArray[np.float32] | tuple[NDArray[np.intp], NDArray[np.float32]] | None


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
    data's level is (x - low) / step, the filters' i8 codes are `codes` [O, C, *kernel], and a sum
    of levels times codes weighs `scales` [O] in the output."""

    low: float
    step: float
    levels: int
    codes: NDArray[np.int8]
    scales: NDArray[np.float64]
    plan: _Plan = field(init=False, repr=False, compare=False)
    # the pairs' f32 bound (`_Plan.prefilter`; None where step is not a positive number: levels
    # then) and the outputs whose zero change is -0
    prefilter: tuple[NDArray[np.float32], NDArray[np.float32]] | None = field(
        init=False, repr=False, compare=False
    )
    negative: NDArray[np.intp] = field(init=False, repr=False, compare=False)
    # 1 / step in f32 where levels may take f32 (`level`): low an f32, 1 / step finite in f32
    inverse_step: np.float32 | None = field(init=False, repr=False, compare=False)
    # `axis_outputs` of each window, by windows (a layer sees one or a few input shapes)
    axis_outputs: dict[tuple[Window, ...], Axes] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        plan = _Plan.of(self.codes, self.levels - 1)
        object.__setattr__(self, "plan", plan)
        usual = 0 < self.step < np.inf and np.isfinite(self.low)
        object.__setattr__(
            self, "prefilter", plan.prefilter(self.low, self.step) if usual else None
        )
        object.__setattr__(self, "negative", np.flatnonzero(np.signbit(self.scales)))
        inverse = np.float32(1 / self.step if usual else np.inf)
        f32 = np.float32(self.low) == self.low and np.isfinite(inverse)
        object.__setattr__(self, "inverse_step", inverse if f32 else None)

    def __call__(self, x: NDArray[np.float32], windows: Sequence[Window]) -> NDArray[np.float32]:
        """The saturated sums less the exact ones, times the scales: [N, O, *out]."""
        return self._array(self._change(x, windows), x.shape[0], windows)

    def add_into(
        self, result: NDArray[np.float32], x: NDArray[np.float32], windows: Sequence[Window]
    ) -> None:
        """`result += self(x, windows)`, the same bits, without the array of zeros: the zero
        change added by channel, then each changed place set to its value before plus its change."""
        change = self._change(x, windows)
        if isinstance(change, np.ndarray) or not result.flags.c_contiguous:
            result += self._array(change, x.shape[0], windows)
            return
        if change is None:
            result += self.zero_change(len(windows))
            return
        at, values = change
        summed = result.reshape(-1)[at] + values
        result += self.zero_change(len(windows))
        result.reshape(-1)[at] = summed

    def _array(
        self, change: _Change, images: int, windows: Sequence[Window]
    ) -> NDArray[np.float32]:
        if isinstance(change, np.ndarray):
            return change
        result = np.zeros((images, self.plan.outputs, *(w.out for w in windows)), np.float32)
        result[:] = self.zero_change(len(windows))
        if change is not None:
            result.reshape(-1)[change[0]] = change[1]
        return result

    def zero_change(self, rank: int) -> NDArray[np.float32]:
        """The change where no pair saturates, by output channel: 0 times each scale (-0 where
        the scale is negative), shaped [1, O, 1, ...] against `rank` spatial axes."""
        zero = np.zeros(self.plan.outputs, np.float32)
        zero[self.negative] = -0.0
        return zero.reshape((1, -1) + (1,) * rank)

    def _change(self, x: NDArray[np.float32], windows: Sequence[Window]) -> _Change:
        """The change [N, O, *out] (the dense way), or where it is not zero: flat indices and
        values (the sparse way), or None where no pair saturates."""
        plan, out = self.plan, tuple(w.out for w in windows)
        flat_x = x.reshape(*x.shape[:2], -1)
        # large inputs: the way chosen by every _SAMPLE-th position first
        sample = _SAMPLE if flat_x.shape[2] >= _SAMPLED else 1
        found = self._candidates(flat_x, sample)
        if found is None:
            return None
        mask, hot, peak = found
        count = int(np.count_nonzero(mask)) * sample  # the dense way takes no indices
        if count == 0 and sample == 1:
            return None
        # Few candidates (post-ReLU data: under 2% of the pairs' positions measured): each
        # (candidate, tap) summed again with every output; many (levels about the middle):
        # tap by tap over every position (`_dense`), 2-3 times faster there.
        share = count / (x.shape[0] * plan.pairs.size * flat_x.shape[2])
        if share > _SPARSE_SHARE and count * plan.outputs > _SMALL:
            # every pair whose highest levels can saturate when sampled
            used = hot if sample > 1 else hot[mask.any(axis=(0, 2))]
            change = self._dense(x, windows, used, peak[used])
            scales = self.scales.reshape((1, -1) + (1,) * len(windows))
            shape = (x.shape[0], plan.outputs, *out)
            # f64 products rounded to f32 as they are stored: astype's bits, one pass fewer
            changed = np.empty(shape, np.float32)
            np.multiply(change.reshape(shape), scales, out=changed, casting="same_kind")
            return changed
        if sample > 1:
            found = self._candidates(flat_x)
            assert found is not None  # the same highest levels
            mask = found[0]
        image, pair, position = nonzero_of(mask)
        if image.size == 0:
            return None
        pair = hot[pair]
        channel = 2 * plan.pairs[pair]
        # both levels of each candidate in one gather and one `level` (fewer NumPy calls:
        # their overhead is most of a layer's time on resnet18_int8)
        both = self.level(flat_x[image[:, None], channel[:, None] + _BOTH, position[:, None]])
        fit = Tap(both[:, 0], both[:, 1], plan.tap_top[pair], plan.tap_sum[pair])
        candidates = (image, pair, position)
        flat, taken = sparse_changes(plan.by_tap, candidates, fit, self._axes(windows))
        at, where = np.unique(flat, return_inverse=True)
        sums = np.bincount(where, taken)
        output = at // prod(out) % plan.outputs
        return at, (sums * self.scales[output]).astype(np.float32)

    def _axes(self, windows: Sequence[Window]) -> Axes:
        key = tuple(windows)
        axes = self.axis_outputs.get(key)
        if axes is None:
            axes = tuple((w, axis_outputs(w)) for w in key)
            self.axis_outputs[key] = axes
        return axes

    def level(self, x: NDArray[np.float32], kind: type[Any] = np.int32) -> NDArray[Any]:
        """The data's levels rint((x - low) / step) in f64, as `kind`: NaN gives 0, values
        past the range its ends. Large inputs take f32 where it is sure to give the same:
        x - low rounds once (low is an f32), and times 1 / step the quotient is off by under
        4 units in its last place, far from a half where it lies 0.49 from a whole number.
        Large C-order inputs go by chunks whose temporaries stay in the caches (yolov8n_int8's
        16x320x320 input 3-4 times faster than whole, its fresh pages and passes from memory)."""
        if x.size <= _CHUNK or not x.flags.c_contiguous:
            return self._level(x, kind)
        flat, level = x.reshape(-1), np.empty(x.size, kind)
        for start in range(0, x.size, _CHUNK):
            level[start : start + _CHUNK] = self._level(flat[start : start + _CHUNK], kind)
        return level.reshape(x.shape)

    def _level(self, x: NDArray[np.float32], kind: type[Any]) -> NDArray[Any]:
        inverse = self.inverse_step
        if x.size < _F32_LEVELS or inverse is None:  # None where step is 0 or not a number
            with np.errstate(divide="ignore", invalid="ignore"):  # inf and NaN quotients
                level = np.rint((x.astype(np.float64) - self.low) / self.step)
        else:
            # C order: the fixes below write into `level` by flat index
            with np.errstate(over="ignore", invalid="ignore"):  # inf: the top level; NaN: 0
                quotient = np.subtract(x, np.float32(self.low), order="C")
                quotient *= inverse
                level = np.rint(quotient)
                quotient -= level  # in place: fresh temporaries of large inputs cost more
                near_half = np.abs(quotient, out=quotient) > 0.49
            fix = np.flatnonzero(near_half)
            if fix.size:
                exact = (x.reshape(-1)[fix].astype(np.float64) - self.low) / self.step
                level.reshape(-1)[fix] = np.rint(exact)
        # fmax and fmin take the number over NaN: NaN gives 0, -inf 0 and inf the top level
        np.fmax(level, 0, out=level)
        np.fmin(level, self.levels - 1, out=level)
        clipped: NDArray[Any] = level.astype(kind)
        return clipped

    def _candidates(
        self, x: NDArray[np.float32], sample: int = 1
    ) -> tuple[NDArray[Any], ...] | None:
        """Where in x [N, C, positions] a pair's two levels times the largest codes of its
        outputs that can saturate may pass 16 bits: a mask [N, H, positions] of the pairs `hot`
        [H] (indices into `plan.pairs`), with each pair's highest levels [P, 2] (of every
        position); None if no pair's highest levels can. The mask of every `sample`-th position
        only (the way's choice)."""
        plan = self.plan
        if plan.pairs.size == 0:
            return None
        both = x[:, : 2 * plan.channel_pairs].reshape(x.shape[0], -1, 2, x.shape[2])
        if plan.pairs.size < plan.channel_pairs:
            both = both[:, plan.pairs]
        if self.prefilter is None:  # step 0, negative or not a number: the levels first
            level = self.level(both)
            peak_level = level.max(axis=(0, 3))
            hot = np.flatnonzero((peak_level * plan.top).sum(axis=1) > PAIR_MAX)
            top, planes = plan.top[hot, :, None], level[:, hot, :, ::sample]
            mask = planes[:, :, 0] * top[:, 0] + planes[:, :, 1] * top[:, 1] > PAIR_MAX
            return mask, hot, peak_level
        # A pair of planes whose largest levels cannot saturate takes nothing (NaN: maybe).
        peak = both.max(axis=(0, 3))
        peak_level = np.where(np.isnan(peak), self.levels - 1, self.level(peak))
        hot = np.flatnonzero((peak_level * plan.top).sum(axis=1) > PAIR_MAX)
        if hot.size == 0:
            return None
        planes = both[:, hot] if hot.size < both.shape[1] else both
        planes = planes[..., ::sample]
        weight, threshold = self.prefilter
        # An overflow to inf is a candidate; inf - inf is NaN, a level of 0 in one: no candidate.
        with np.errstate(over="ignore", invalid="ignore"):
            bound = planes[:, :, 0] * weight[hot, 0, None]
            bound += planes[:, :, 1] * weight[hot, 1, None]
        return bound > threshold[hot, None], hot, peak_level

    def _dense(
        self,
        x: NDArray[np.float32],
        windows: Sequence[Window],
        pairs: NDArray[np.intp],
        peak: NDArray[np.int64],
    ) -> NDArray[Any]:
        """The change [N * O * out] (f64) of `pairs` (indices into `plan.pairs`) whose highest
        levels are `peak` [P, 2], tap by tap over every position."""
        plan = self.plan
        channels = (2 * plan.pairs[pairs][:, None] + np.arange(2)).reshape(-1)
        first_ones = channels.size > 0 and channels[-1] == channels.size - 1
        # the first channels (yolov8n_int8's large layers): a view, not a copy
        data = x[:, : channels.size] if first_ones else x[:, channels]
        # i16 levels where a |c| + b |d| fits in u16 (int8_pairs_dense.saturated)
        level = self.level(data, np.int16 if self.levels <= 256 else np.int32)
        by_pair = level.reshape(level.shape[0], -1, 2, int(np.prod(level.shape[2:])))
        peak_sum = (by_pair[:, :, 0] + by_pair[:, :, 1]).max(axis=(0, 2))
        taps = taps_of(level, windows)
        total = x.shape[0] * plan.outputs * int(np.prod([w.out for w in windows]))
        sums, found, count = np.zeros(0), [], 0
        for index, tap in enumerate(product(*(range(w.kernel) for w in windows))):
            codes = plan.by_tap[pairs, index].astype(np.int32)  # [P, 2, O]
            first, second = codes[:, 0].T, codes[:, 1].T
            bound = split_bound(np.abs(first), np.abs(second), peak[:, 0], peak[:, 1], peak_sum)
            reach = (bound > PAIR_MAX) & ((first > 0) == (second > 0))  # one sign only
            if reach.any():
                for part in saturated(taps[tap], (first, second), reach, plan.outputs):
                    found.append(part)
                    count += part[0].size
                    if count > _HELD * max(total, 1 << 20):  # memory: sum those so far
                        sums, found, count = summed(sums, found, total), [], 0
        return summed(sums, found, total)


@dataclass(frozen=True)
class _Plan:
    """What a layer's codes allow, once: the pairs of channels (2j, 2j + 1) some output's codes
    of one sign can saturate at all (a level is at most `top_level`; codes of two signs, or one
    product alone, stay within 16 bits), `pairs` [P], their codes `by_tap` [P, taps, 2, O], and
    the largest |code| of the outputs that can: `tap_top` [P, 2, taps], `top` [P, 2], and their
    largest |first| + |second| by tap, `tap_sum` [P, taps]. An odd last channel pairs with zero
    and never saturates."""

    channel_pairs: int
    outputs: int
    pairs: NDArray[np.intp]
    by_tap: NDArray[np.int8]
    tap_top: NDArray[np.int64]
    top: NDArray[np.int64]
    tap_sum: NDArray[np.int64]

    @staticmethod
    def of(codes: NDArray[np.integer[Any]], top_level: int) -> _Plan:
        outputs, channels = codes.shape[:2]
        taps = int(np.prod(codes.shape[2:]))
        pairs = codes[:, : channels - channels % 2].reshape(outputs, channels // 2, 2, taps)
        same = (pairs[:, :, 0] > 0) == (pairs[:, :, 1] > 0)
        same &= (pairs[:, :, 0] != 0) & (pairs[:, :, 1] != 0)
        size = np.abs(pairs.astype(np.int32))
        hot = same & (top_level * size.sum(axis=2) > PAIR_MAX)
        some = np.flatnonzero(hot.any(axis=(0, 2)))
        size, hot = size[:, some], hot[:, some]
        tap_top = np.where(hot[:, :, None], size, 0).max(axis=0, initial=0).astype(np.int64)
        tap_sum = np.where(hot, size.sum(axis=2), 0).max(axis=0, initial=0).astype(np.int64)
        by_tap = np.ascontiguousarray(pairs[:, some].transpose(1, 3, 2, 0).astype(np.int8))
        top = tap_top.max(axis=2, initial=0)
        return _Plan(channels // 2, outputs, some, by_tap, tap_top, top, tap_sum)

    def prefilter(self, low: float, step: float) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """f32 weights [P, 2] and thresholds [P] such that every pair of levels a, b whose
        a * top + b * top passes 16 bits has x_a * weight + x_b * weight above the threshold:
        a level is at most (x - low) / step + 0.5, a level of 0 saturates nothing, and a margin
        far above f32's rounding keeps it sure."""
        top = self.top.astype(np.float64)
        span = top.sum(axis=1)
        threshold = PAIR_MAX - 0.5 * span + low * span / step
        margin = 1 + 1e-5 * span * (256 + abs(low) / step)
        return (top / step).astype(np.float32), (threshold - margin).astype(np.float32)


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
