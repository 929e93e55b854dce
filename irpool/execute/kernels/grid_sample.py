"""GridSample-9 on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it on AVX2 (its JIT
kernel, measured: docs/ops/GridSample.md#values).

Everything is f32 with the kernel's own operation order and fused multiply-adds: a grid value
g is unnormalized as fma(g, c, c), c = (D - 1) / 2 (align_corners), or fma(fma(g, D, D), 0.5,
-0.5); the taps (floor, floor + 1; rint for nearest; floor - 1 to floor + 2 for bicubic) are
padded as f32 coordinates (border: NaN and above D - 1 to D - 1, below 0 to 0; reflection by
an f32 remainder, inf and NaN to 0) or masked (zeros: a tap outside [0, D) reads 0); the
weights come from the fraction, so an inf or NaN grid value gives NaN in bilinear and bicubic.
Data is computed in f32 and stored back rounded (`irpool.cpu.numerics`; NaN as 0 in 8 bits
and false in boolean), except what the plugin holds as int32 (16-, 32- and 64-bit integers,
wrapped): converted to f32, the result truncated back to int32.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.isa import AVX512_CORE, cpu_isa
from irpool.cpu.numerics import f32_operand, stored_from_f32, stored_from_f32_saturated
from irpool.execute.kernels.linear_chains import fused_multiply_add as fma
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.grid_sample import GridSample9

F32 = np.float32
Floats = NDArray[np.float32]
Padding = Callable[[Floats, int], Floats]
# Held as int32 by the plugin, which the node computes on its integer path (truncating).
WHOLE = tuple(np.dtype(t) for t in (np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64))


def unnormalized(grid: Floats, size: int, align_corners: bool) -> Floats:
    """Grid values in [-1, 1] as f32 pixel coordinates on an axis of `size`."""
    dim = F32(size)
    if align_corners:
        coef = np.full_like(grid, (dim - F32(1)) / F32(2))
        return fma(grid, coef, coef)
    spread = fma(grid, np.full_like(grid, dim), np.full_like(grid, dim))
    return fma(spread, np.full_like(grid, 0.5), np.full_like(grid, -0.5))


def _remainder(x: Floats, divisor: float) -> Floats:
    """x - trunc(x / d) * d, fused, as the kernel's f32 remainder (inf gives NaN)."""
    d = np.full_like(x, divisor)
    with np.errstate(all="ignore"):
        return fma(-np.trunc(x / d), d, x)


def border(x: Floats, size: int) -> Floats:
    """Clamped into [0, size - 1]; NaN goes to size - 1 (its compare fails first)."""
    top = F32(size - 1)
    clipped = np.where(x <= top, x, top)
    return np.where(clipped > 0, clipped, F32(0)).astype(F32)


def reflection(align_corners: bool) -> Padding:
    """Reflected by the kernel's f32 remainders: about 0 and size - 1 (align_corners) or
    -0.5 and size - 0.5; inf and NaN go to 0."""

    def reflect(x: Floats, size: int) -> Floats:
        if align_corners:
            period = 1.0 if size == 1 else 2.0 * (size - 1)
            mirror = period
            folded = _remainder(np.abs(x), period)
        else:
            period, mirror = 2.0 * size, 2.0 * size - 1
            folded = _remainder(_remainder(x, period) + F32(period), period)
        with np.errstate(invalid="ignore"):
            folded = np.where((folded < F32(period)) & (folded >= 0), folded, F32(0))
            return np.where(folded < F32(size), folded, F32(mirror) - folded).astype(F32)

    return reflect


def _inside(x: Floats, size: int) -> NDArray[np.bool_]:
    with np.errstate(invalid="ignore"):
        return (x >= 0) & (x < F32(size))


class Sampler:
    """Reads taps of one batch item's data [C, H, W] at f32 tap coordinates."""

    def __init__(self, data: NDArray[Any], padding: str, align_corners: bool) -> None:
        self.data = data
        self.height, self.width = data.shape[1], data.shape[2]
        self.pad: Padding | None = {
            "border": border,
            "reflection": reflection(align_corners),
        }.get(padding)

    def tap(self, y: Floats, x: Floats) -> NDArray[Any]:
        """Values [C, *y.shape] at rows y and columns x (f32, integral or NaN)."""
        if self.pad is None:
            inside = _inside(y, self.height) & _inside(x, self.width)
            rows = np.where(inside, y, 0).astype(np.intp)
            cols = np.where(inside, x, 0).astype(np.intp)
            return np.where(inside, self.data[:, rows, cols], self.data.dtype.type(0))
        rows = self.pad(y, self.height).astype(np.intp)
        cols = self.pad(x, self.width).astype(np.intp)
        return self.data[:, rows, cols]


def cubic_weights(t: Floats) -> list[Floats]:
    """The kernel's four cubic weights (A = -0.75) for a fraction t, in its operation order:
    -0.75 (t^2 - 2t + 1) t, (1.25t - 2.25) t^2 + 1, ((1.5 - 1.25t) t + 0.75) t and
    -0.75 t^2 (1 - t), fused where it fuses: AVX-512 fuses 1.25t - 2.25 and 1.5 - 1.25t, the
    AVX2 kernel rounds 1.25t first (irpool.cpu.isa.cpu_isa)."""
    f = F32
    with np.errstate(all="ignore"):
        ones = np.ones_like(t)
        first = fma(t, t, fma(-t, np.full_like(t, 2), ones)) * t * f(-0.75)
        if cpu_isa() == AVX512_CORE:
            linear = fma(t, np.full_like(t, 1.25), np.full_like(t, -2.25))
            slope = fma(-t, np.full_like(t, 1.25), np.full_like(t, 1.5))
        else:
            linear, slope = t * f(1.25) - f(2.25), f(1.5) - t * f(1.25)
        second = fma(linear * t, t, ones)
        third = fma(slope, t, np.full_like(t, 0.75)) * t
        squared = f(-0.75) * t * t
        fourth = fma(-squared, t, squared)
    return [first, second, third, fourth]


def bilinear(sampler: Sampler, y: Floats, x: Floats) -> Floats:
    with np.errstate(all="ignore"):
        top, left = np.floor(y), np.floor(x)
        dy, dx = y - top, x - left
        bottom, right = top + F32(1), left + F32(1)
        v00, v01 = sampler.tap(top, left), sampler.tap(top, right)
        v10, v11 = sampler.tap(bottom, left), sampler.tap(bottom, right)
        dxs = np.broadcast_to(dx, v00.shape)
        q0 = fma(v01, dxs, -fma(dxs, v00, -v00))
        q1 = fma(v11, dxs, -fma(dxs, v10, -v10))
        return fma(q1 - q0, np.broadcast_to(dy, q0.shape), q0)


def bicubic(sampler: Sampler, y: Floats, x: Floats) -> Floats:
    with np.errstate(all="ignore"):
        top, left = np.floor(y), np.floor(x)
        across, down = cubic_weights(x - left), cubic_weights(y - top)
        row = top - F32(1)
        total: Floats | None = None
        for h in range(4):
            column = left - F32(1)
            line: Floats | None = None
            for w in range(4):
                value = sampler.tap(row, column)
                weight = np.broadcast_to(across[w], value.shape)
                line = value * weight if line is None else fma(value, weight, line)
                column = column + F32(1)
            assert line is not None
            weight = np.broadcast_to(down[h], line.shape)
            product = fma(line, weight, np.zeros_like(line) if total is None else total)
            total = product
            row = row + F32(1)
        assert total is not None
        return total


@kernel_for(GridSample9)
def run_grid_sample(
    op: GridSample9, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data, grid = inputs
    align = bool(op.attrs["align_corners"])
    mode, padding = op.attrs["mode"], op.attrs["padding_mode"]
    whole = data.dtype in WHOLE
    held = data.astype(np.int32) if whole else f32_operand(data)
    n, c, height, width = data.shape
    out_shape = (n, c, grid.shape[1], grid.shape[2])
    if 0 in out_shape or height == 0 or width == 0:
        return [np.zeros(out_shape, data.dtype)]
    points = np.asarray(grid, F32)
    result: NDArray[Any] = np.empty(out_shape, F32 if mode != "nearest" or not whole else np.int32)
    for item in range(n):
        y = unnormalized(points[item, ..., 1], height, align)
        x = unnormalized(points[item, ..., 0], width, align)
        sampler = Sampler(
            held[item] if mode == "nearest" else f32_operand(held[item]), padding, align
        )
        if mode == "nearest":
            with np.errstate(invalid="ignore"):
                result[item] = sampler.tap(np.rint(y), np.rint(x))
        else:
            result[item] = (bilinear if mode == "bilinear" else bicubic)(sampler, y, x)
    return [result if result.dtype == data.dtype else stored_result(result, data.dtype)]


def stored_result(values: NDArray[Any], dtype: np.dtype[Any]) -> NDArray[Any]:
    """The plugin's GridSample result (f32; int32 from nearest on an integer path) stored in
    the data's `dtype`: 16- to 64-bit integers truncated into int32 (NaN and out of range:
    INT32_MIN) and widened; 8-bit integers rounded and saturated, NaN 0; boolean true where
    the value rounds to nonzero, NaN false; floats rounded (docs/ops/GridSample.md#values)."""
    if dtype in WHOLE:
        if values.dtype != np.int32:
            values = stored_from_f32(values, np.dtype(np.int32), np.trunc)
        return values.astype(dtype)
    if dtype == np.bool_:
        return stored_from_f32(np.nan_to_num(values, nan=0.0), dtype)
    return stored_from_f32_saturated(values, dtype)  # 8-bit NaN: 0 at rank 4
