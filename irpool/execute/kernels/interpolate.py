"""Interpolate on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it (measured,
docs/ops/Interpolate.md): the input zero-padded by `pads_begin`/`pads_end`, then resized one
axis at a time from per-axis tables built in float32 as the plugin's executor builds them
(`intel_cpu/src/nodes/interpolate.cpp`): a source index for `nearest`, two neighbours and
weights for `linear_onnx`, four taps for `cubic`, a triangle window (wider under antialias)
for `linear`, Pillow's normalised windows for `bilinear_pillow` and `bicubic_pillow`.
Interpolate-1 and the Interpolate-11 modes Interpolate-4 has run as the plugin converts them
(`Interpolate.cpu_form`). Nearest is exact; the weighted modes agree within the tolerance
the docs page states (the plugin's vector kernels fuse multiply-adds).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import f32_operand, stored_from_f32, stored_from_f32_product
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.interpolate import PILLOW, CpuResize, Interpolate1, Interpolate4, Interpolate11

F32 = np.float32
# The half-width of the triangle window of `linear` before antialias widens it.
LINEAR_KERNEL = 2


def source_coordinates(out_len: int, in_len: int, scale: float, mode: str) -> NDArray[np.float32]:
    """Each output position's coordinate in the (padded) input, in float32."""
    out = np.arange(out_len, dtype=F32)
    scale32 = F32(scale)
    if scale32 == 1 or in_len == out_len:
        return out
    if mode in ("half_pixel", "pytorch_half_pixel"):
        coords = (out + F32(0.5)) / scale32 - F32(0.5)
        return coords if mode == "half_pixel" or out_len > 1 else np.zeros(out_len, F32)
    if mode == "asymmetric":
        return out / scale32
    if mode == "tf_half_pixel_for_nn":
        return (out + F32(0.5)) / scale32
    if out_len <= 1:  # align_corners
        return np.zeros(out_len, F32)
    return out * (F32(in_len - 1) / F32(out_len - 1))


def _round_half_away(coords: NDArray[np.float32]) -> NDArray[np.float64]:
    """std::round: halves away from zero (computed in float64, exact for float32 inputs)."""
    wide = coords.astype(np.float64)
    return np.sign(wide) * np.floor(np.abs(wide) + 0.5)


def nearest_indices(
    coords: NDArray[np.float32], mode: str, downsample: bool, in_len: int
) -> NDArray[np.intp]:
    """The input index each output position copies, clipped into the axis."""
    if mode == "round_prefer_floor":
        tie = coords == np.trunc(coords) + F32(0.5)
        picked = np.where(tie, np.floor(coords), _round_half_away(coords))
    elif mode == "round_prefer_ceil":
        picked = _round_half_away(coords)
    elif mode == "floor":
        picked = np.floor(coords)
    elif mode == "ceil" or downsample:  # simple rounds up only when the axis shrinks
        picked = np.ceil(coords)
    else:
        picked = np.trunc(coords)
    return np.clip(picked, 0, in_len - 1).astype(np.intp)


def taken(data: NDArray[Any], axis: int, index: NDArray[np.intp]) -> NDArray[Any]:
    """`data` gathered along `axis`: a repeat where each input is copied a whole number of
    times in order (nearest upsampling by an integer scale), else a take."""
    length = data.shape[axis]
    if index.size and index.size % length == 0:
        times = index.size // length
        if np.array_equal(index, np.repeat(np.arange(length), times)):
            return np.repeat(data, times, axis=axis)
    return np.take(data, index, axis=axis)


def _along(values: NDArray[Any], axis: int, ndim: int) -> NDArray[Any]:
    """A per-position table shaped to broadcast along `axis` of an `ndim`-D array."""
    shape = [1] * ndim
    shape[axis] = -1
    return values.reshape(shape)


def linear_onnx_axis(
    data: NDArray[np.float32], axis: int, coords: NDArray[np.float32]
) -> NDArray[np.float32]:
    """linear_onnx along one axis: two clamped neighbours, weighted by the distance."""
    length = data.shape[axis]
    clamped = np.clip(coords, F32(0), F32(length - 1))
    first = np.minimum(clamped.astype(np.intp), length - 1)
    second = np.minimum(first + 1, length - 1)
    weight_second = np.abs(clamped - first.astype(F32))
    weight_first = np.abs(clamped - second.astype(F32))
    same = first == second
    weight_first = np.where(same, F32(0.5), weight_first)
    weight_second = np.where(same, F32(0.5), weight_second)
    ndim = data.ndim
    summed: NDArray[np.float32] = (
        np.take(data, first, axis=axis) * _along(weight_first, axis, ndim)
        + np.take(data, second, axis=axis) * _along(weight_second, axis, ndim)
    ).astype(F32)
    return summed


def cubic_coefficients(fraction: NDArray[np.float32], a: float) -> list[NDArray[np.float32]]:
    """The four tap weights of `cubic` at these fractional offsets (float32)."""
    m = np.abs(fraction)
    a32, one = F32(a), F32(1)
    return [
        a32 * (m - one) * (m - one) * m,
        ((a32 + F32(2)) * m - (a32 + F32(3))) * m * m + one,
        (((-a32 - F32(2)) * m + (F32(2) * a32 + F32(3))) * m - a32) * m,
        -a32 * m * m * (m - one),
    ]


def cubic_axis(
    data: NDArray[np.float32], axis: int, coords: NDArray[np.float32], a: float
) -> NDArray[np.float32]:
    """cubic along one axis: taps floor(x)-1 .. floor(x)+2, clamped into the axis."""
    length = data.shape[axis]
    base = np.floor(coords)
    weights = cubic_coefficients(coords - base, a)
    origin = base.astype(np.intp)
    result = np.zeros(1, F32)
    for tap, weight in enumerate(weights):
        index = np.clip(origin + tap - 1, 0, length - 1)
        result = result + np.take(data, index, axis=axis) * _along(weight, axis, data.ndim)
    return result.astype(F32)


def triangle_taps(
    coords: NDArray[np.float32], length: int, scale: float, antialias: bool
) -> tuple[NDArray[np.intp], NDArray[np.float32]]:
    """`linear`'s taps along one axis: indices round(x)-r .. round(x)+r and the weights
    a*max(0, 1-|a*d|) (a the scale under antialias, else 1; 0 outside the axis)."""
    stretch = F32(scale) if antialias else F32(1)
    radius = 2 if F32(scale) > 1 else int(np.ceil(F32(LINEAR_KERNEL) / stretch))
    centre = _round_half_away(coords).astype(np.intp)
    index = centre[:, None] + np.arange(-radius, radius + 1)[None, :]
    distance = coords[:, None] - index.astype(F32)
    weight = stretch * np.maximum(F32(0), F32(1) - np.abs(stretch * distance))
    weight = np.where((index < 0) | (index >= length), F32(0), weight).astype(F32)
    return index, weight


def linear_resize(
    data: NDArray[Any], plan: CpuResize, sizes: Sequence[int], scales: Sequence[float]
) -> NDArray[np.float32]:
    """`linear`: the weighted mean over each output's window (taps of zero weight skipped,
    so an inf beside the window gives no NaN); 0 where no tap has weight. The plugin builds
    its weights with `antialias` as written, even where no axis shrinks."""
    total, weights = data, np.ones((1,) * data.ndim, F32)
    for axis in range(data.ndim):
        length = data.shape[axis]
        if sizes[axis] == length:
            continue
        coords = source_coordinates(sizes[axis], length, scales[axis], plan.coordinate)
        index, weight = triangle_taps(coords, length, scales[axis], plan.antialias)
        safe = np.clip(index, 0, length - 1)
        moved_total = np.moveaxis(total, axis, -1)[..., safe]  # (..., out, taps)
        moved_weight = np.moveaxis(np.broadcast_to(weights, total.shape), axis, -1)[..., safe]
        live = weight != 0
        summed = np.where(live, moved_total * weight, F32(0)).sum(axis=-1, dtype=F32)
        total = np.moveaxis(summed, -1, axis)
        weights = np.moveaxis((moved_weight * weight).sum(axis=-1, dtype=F32), -1, axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(weights == 0, F32(0), total / weights).astype(F32)


def pillow_window(
    in_len: int, out_len: int, bicubic: bool
) -> tuple[NDArray[np.intp], NDArray[np.float32], NDArray[np.bool_]]:
    """Pillow's taps along one axis: each output's input indices (clipped), normalised
    weights and which taps lie in its window (all of them are summed, a zero weight too)."""
    scale = F32(out_len) / F32(in_len)
    clip = max(F32(1) / scale, F32(1))
    radius = F32(2 if bicubic else 1) * clip
    width = int(np.ceil(radius)) * 2 + 1
    centre = (np.arange(out_len, dtype=F32) + F32(0.5)) / scale
    low = np.maximum((centre - radius + F32(0.5)).astype(np.int32), 0)
    high = np.minimum((centre + radius + F32(0.5)).astype(np.int32), in_len)
    taps = np.arange(width)[None, :]
    index = low[:, None] + taps
    live = taps < (high - low)[:, None]
    offset = ((index.astype(F32) - centre[:, None] + F32(0.5)) * (F32(1) / clip)).astype(F32)
    weight = _pillow_bicubic(offset) if bicubic else _pillow_bilinear(offset)
    weight = np.where(live, weight, F32(0)).astype(F32)
    total = np.zeros(out_len, F32)
    for tap in range(width):
        total = total + weight[:, tap]
    weight = np.where(total[:, None] != 0, weight / np.where(total == 0, 1, total)[:, None], weight)
    return np.clip(index, 0, in_len - 1), weight.astype(F32), live


def _pillow_bilinear(m: NDArray[np.float32]) -> NDArray[np.float32]:
    m = np.abs(m)
    return np.where(m < 1, F32(1) - m, F32(0)).astype(F32)


def _pillow_bicubic(m: NDArray[np.float32]) -> NDArray[np.float32]:
    m = np.abs(m)
    wide = m.astype(np.float64)
    near = (((-0.5 + 2.0) * wide - (-0.5 + 3.0)) * wide * wide + 1.0).astype(F32)
    far = (((m - F32(5)) * m + F32(8)) * m - F32(4)) * F32(-0.5)
    return np.where(m < 1, near, np.where(m < 2, far, F32(0))).astype(F32)


def pillow_axis(
    data: NDArray[Any], axis: int, out_len: int, bicubic: bool, integral: bool
) -> NDArray[Any]:
    """One Pillow pass: each output the taps' weighted sum in float32, in tap order; an
    integer type is stored after each pass rounded to nearest (ties to even), saturated."""
    index, weight, live = pillow_window(data.shape[axis], out_len, bicubic)
    values = data.astype(F32)
    result = np.zeros(1, F32)
    for tap in range(index.shape[1]):
        picked = np.take(values, index[:, tap], axis=axis)
        inside = _along(live[:, tap], axis, data.ndim)
        result = result + np.where(inside, picked * _along(weight[:, tap], axis, data.ndim), 0)
    result = result.astype(F32)
    if not integral:
        return result
    rounded = np.rint(result)
    info = np.iinfo(data.dtype)
    return np.clip(rounded, info.min, info.max).astype(data.dtype)


# Where linear_onnx starts weighing unresized axes, per rank: every axis from the first
# resized one at or after this on is computed (measured; rank 3 computes only resized axes).
LINEAR_ONNX_FROM = {2: 0, 4: 2, 5: 2}


def computed_axes(mode: str, rank: int, resized: Sequence[int]) -> set[int]:
    """The axes the plugin computes over, resized or not: an unresized one still weighs its
    neighbour by 0, so an inf there gives NaN (measured, docs/ops/Interpolate.md#nan-and-inf)."""
    computed = set(resized)
    start = LINEAR_ONNX_FROM.get(rank) if mode in ("linear_onnx", "cubic") else None
    if mode == "linear_onnx" and start is not None and not resized:
        computed.add(rank - 1)  # nothing resized: the plugin still computes the last axis
    late = [axis for axis in resized if start is not None and axis >= start]
    if late and (mode == "linear_onnx" or rank == 2):
        computed |= set(range(min(late), rank))
    if mode == "cubic" and rank == 4:
        spatial_only = min(resized, default=2) >= 2
        computed |= {2, 3} if spatial_only else {3}
    return computed


def resize(
    data: NDArray[Any], plan: CpuResize, sizes: Sequence[int], scales: Sequence[float]
) -> NDArray[Any]:
    """The padded `data` (float32; or u8, i8, which Pillow rounds after each pass) resized
    to `sizes` (every axis), with each axis's float32 scale."""
    result: NDArray[Any] = np.pad(
        data, list(zip(plan.pads_begin, plan.pads_end, strict=True)), constant_values=0
    )
    if 0 in sizes or result.size == 0:
        return np.zeros(tuple(sizes), result.dtype)
    if plan.mode in PILLOW:
        integral = data.dtype.kind in "iu"
        for axis in reversed(range(result.ndim)):
            if sizes[axis] != result.shape[axis]:
                bicubic = plan.mode == "bicubic_pillow"
                result = pillow_axis(result, axis, sizes[axis], bicubic, integral)
        return result
    if plan.mode == "linear":
        return linear_resize(result, plan, sizes, scales)
    resized = [
        axis
        for axis in range(result.ndim)
        if sizes[axis] != result.shape[axis] or F32(scales[axis]) != 1
    ]
    computed = computed_axes(plan.mode, result.ndim, resized)
    result = _resized_axes(result, plan, sizes, scales, computed)
    if plan.mode == "cubic" and result.ndim <= 3:
        # A last pass over an axis of length 1 (weights 0, 1, 0, 0) makes every inf NaN.
        result = np.where(np.isinf(result), F32(np.nan), result)
    return result


def _resized_axes(
    result: NDArray[Any],
    plan: CpuResize,
    sizes: Sequence[int],
    scales: Sequence[float],
    computed: set[int],
) -> NDArray[Any]:
    """Each computed axis resized in turn, from the last."""
    for axis in reversed(range(result.ndim)):
        length = result.shape[axis]
        if axis not in computed:
            continue
        coords = source_coordinates(sizes[axis], length, scales[axis], plan.coordinate)
        if plan.mode == "nearest":
            downsample = bool(F32(scales[axis]) < 1)
            index = nearest_indices(coords, plan.nearest_mode, downsample, length)
            result = taken(result, axis, index)
        elif plan.mode == "cubic":
            result = cubic_axis(result, axis, coords, plan.cube_coeff)
        else:
            result = linear_onnx_axis(result, axis, coords)
    return result


@kernel_for(Interpolate1, Interpolate4, Interpolate11)
def run_interpolate(
    op: Interpolate1 | Interpolate4 | Interpolate11,
    inputs: Sequence[NDArray[Any]],
    outputs: Sequence[OutputSpec],
) -> list[NDArray[Any] | None]:
    """The CPU keeps u8 and i8 of rank 4 and 5 (stored saturated, rounded to nearest, but
    truncated by `linear`); every other type it computes in float32 (`f32_operand`) and
    stores as its products (`stored_from_f32_product`)."""
    data = inputs[0]
    plan = op.cpu_form(data.ndim)
    sizes, scales = op.run_geometry(data.shape, inputs[1:])
    kept = data.dtype in (np.dtype(np.uint8), np.dtype(np.int8)) and data.ndim in (4, 5)
    if kept and plan.mode in PILLOW:
        return [resize(data, plan, sizes, scales)]
    with np.errstate(invalid="ignore", over="ignore"):  # inf and NaN are values here
        result = resize(f32_operand(data), plan, sizes, scales)
    dtype = np.dtype(outputs[0].dtype or data.dtype)
    if kept and plan.mode == "linear":
        return [stored_from_f32(result, dtype, np.trunc)]
    return [stored_from_f32_product(result, dtype)]
