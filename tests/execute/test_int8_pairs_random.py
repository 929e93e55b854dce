"""The saturated pairs' correction (irpool/cpu/int8_pairs.py) on seeded random 2-D layers
against every pair summed by NumPy, bit for bit: small layers, and layers whose input is
large enough for the ways' sample, the levels taken by chunks and the dense way's blocks
(levels about the middle, codes that fill the i8 range, as on yolov8n_int8)."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from irpool.cpu.int8_pairs import SaturatedPairs
from irpool.ops.pooling_geometry import Window

SEEDS = range(160)


def _reference_levels(x: np.ndarray, low: float, step: float, levels: int) -> np.ndarray:
    """rint((x - low) / step) in f64, NaN as 0, clipped to the levels."""
    with np.errstate(divide="ignore", invalid="ignore"):
        level = np.rint((x.astype(np.float64) - low) / step)
    return np.clip(np.nan_to_num(level, nan=0.0, posinf=levels - 1, neginf=0), 0, levels - 1)


def _summed_pairs(
    level: np.ndarray, codes: np.ndarray, windows: tuple[Window, Window]
) -> np.ndarray:
    """Each output's pairs summed saturated less summed exactly [N, O, *out] (int64)."""
    images, channels = level.shape[:2]
    pairs = channels // 2
    outs = tuple(w.out for w in windows)
    change = np.zeros((images, codes.shape[0], *outs), np.int64)
    for taps in product(*(range(w.kernel) for w in windows)):
        inputs = [
            np.arange(w.out) * w.stride - w.pad_begin + j * w.dilation
            for w, j in zip(windows, taps, strict=True)
        ]
        real = [(i >= 0) & (i < w.size) for i, w in zip(inputs, windows, strict=True)]
        rows, cols = (np.clip(i, 0, w.size - 1) for i, w in zip(inputs, windows, strict=True))
        seen = level[:, : 2 * pairs][:, :, rows][:, :, :, cols] * np.outer(*real)  # [N, 2J, *out]
        a, b = seen[:, 0::2].astype(np.int64), seen[:, 1::2].astype(np.int64)
        c = codes[:, 0 : 2 * pairs : 2][(..., *taps)].astype(np.int64)  # [O, J]
        d = codes[:, 1 : 2 * pairs : 2][(..., *taps)].astype(np.int64)
        exact = a[:, None] * c[None, :, :, None, None] + b[:, None] * d[None, :, :, None, None]
        change += (np.clip(exact, -32768, 32767) - exact).sum(axis=2)
    return change


def _window(size: int, kernel: int, stride: int, dilation: int, pad: int) -> Window:
    out = (size + 2 * pad - dilation * (kernel - 1) - 1) // stride + 1
    return Window(size, out, kernel, stride, dilation, pad)


def _layer(seed: int) -> tuple[SaturatedPairs, np.ndarray, tuple[Window, Window], np.ndarray]:
    rng = np.random.default_rng(seed)
    large = seed % 3 == 0  # 64x64 to 96x96 inputs: sampled, levels by chunks, dense blocks
    size = (
        (int(rng.integers(64, 97)), int(rng.integers(64, 97)))
        if large
        else tuple(int(v) for v in rng.integers(3, 20, 2))
    )
    channels, outputs = int(rng.integers(2, 25 if large else 12)), int(rng.integers(1, 20))
    kernel, stride = int(rng.choice([1, 3, 5])), int(rng.choice([1, 1, 2, 3]))
    dilation, pad = int(rng.choice([1, 1, 2])), int(rng.integers(0, kernel))
    if min(size) + 2 * pad < dilation * (kernel - 1) + 1:
        kernel, pad = 1, 0
    windows = (
        _window(size[0], kernel, stride, dilation, pad),
        _window(size[1], kernel, stride, dilation, pad),
    )
    levels = int(rng.choice([255, 256]))
    centre, spread = rng.choice([40.0, 128.0, 128.0, 200.0]), rng.choice([8.0, 30.0, 80.0])
    level = np.clip(
        np.rint(rng.normal(centre, spread, (int(rng.integers(1, 3)), channels, *size))),
        0,
        levels - 1,
    )
    low, step = float(np.float32(rng.uniform(-3, 1))), float(rng.choice([0.5, 0.0123, 1.0, 3e-5]))
    x = (low + (level + rng.uniform(-0.45, 0.45, level.shape)) * step).astype(np.float32)
    extreme = rng.random(x.shape) < 0.003
    x[extreme] = rng.choice(
        np.array([np.nan, np.inf, -np.inf, 1e30, -1e30, 3e38], np.float32), int(extreme.sum())
    )
    codes = np.clip(
        np.rint(
            rng.normal(0, rng.choice([20.0, 60.0, 127.0]), (outputs, channels, kernel, kernel))
        ),
        -128,
        127,
    )
    scales = rng.choice([0.5, -0.25, 1e-3, 0.0], outputs)
    pairs = SaturatedPairs(low, step, levels, codes.astype(np.int8), scales)
    return pairs, x, windows, _reference_levels(x, low, step, levels)


@pytest.mark.parametrize("seed", SEEDS)
def test_saturated_pairs_equal_every_pair_summed(seed: int) -> None:
    pairs, x, windows, level = _layer(seed)
    change = _summed_pairs(level, pairs.codes, windows)
    expected = (change * pairs.scales.reshape(1, -1, 1, 1)).astype(np.float32)
    np.testing.assert_array_equal(pairs(x, windows).view(np.int32), expected.view(np.int32))
