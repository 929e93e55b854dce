"""MVN on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it (measured,
docs/ops/MVN.md): in f32 as the activations' kernels take every type (integers wrapped,
f64 saturated), two passes held in f32 at each step: the mean, d = x - mean in f32 (-3e38 -
1e38 is -inf), the variance of d, then d times the reciprocal root.

Where the CPU reduces each channel apart (the axes after axis 1, or axis 1 of a 2-D input: a
LayerNorm over a transformer's last axis) and the data is f32, f16 or bf16, its kernel is
reproduced bit for bit: each reduced row summed in f32 into one vector of 16 lanes on an
AVX-512 host, 8 on an AVX2 one (a vector a step, then zero-padded tails of 8 (AVX-512 only), 4,
2 and 1 into its first lanes; the variance's squares by FMA), the four quarters added pairwise
((q0 + q1) + (q2 + q3)), or the two halves, and their four lanes so too; the mean that sum
times the f32 1/n; the reciprocal root 1 / sqrt(variance * (1/n) +
eps) (or 1 / (sqrt(variance * (1/n)) + eps)); so a sum that overflows in that order gives inf.
Elsewhere the sums are exact (without overflow: [3e38, 3e38, -3e38] has mean 1e38; but a
sum of squares beyond FLT_MAX makes the variance inf) and the CPU's f32 in its own order:
within 1.3 * 2**-24 * (mean|x| * sqrt(n) + |d| + |x|) / sqrt(variance + eps) of the CPU,
then d / sqrt(variance + eps) (measured). NaN or inf in the reduced elements gives NaN
there as on the CPU. Integers round to nearest, saturated for 8 bits (as measured on one
row; their other cases are not compared, docs/ops/MVN.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.isa import AVX512_CORE, host_cpu_isa
from irpool.cpu.numerics import F32, f32_operand, stored_from_f32
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.mvn import MVN1, MVN6
from irpool.ops.reduce import Reduce


@kernel_for(MVN6)
def run_mvn(
    op: MVN6, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data = inputs[0]
    if isinstance(op, MVN1):
        axes = op.reduced_axes(data.ndim)
    else:
        axes = Reduce.normalized_axes(inputs[1], data.ndim)
    # f64 is cast, not saturated as the elementwise kernels take it: an inf stays inf in the
    # mean (measured: a row holding inf gives -FLT_MAX, the -inf result saturated on output).
    x = data.astype(F32) if data.dtype == np.float64 else f32_operand(data)
    if data.dtype.kind == "f" and data.dtype != np.float64 and _per_channel(axes, x.shape):
        return [stored_from_f32(_per_channel_mvn(op, x, len(axes)), data.dtype)]
    with np.errstate(all="ignore"):  # inf - inf and 0 / 0 are values here, as on the CPU
        mean = np.mean(x, axis=axes, keepdims=True, dtype=np.float64).astype(F32)
        centered = x - mean
        if op.normalize_variance:
            squares = np.square(centered.astype(np.float64))
            variance = np.mean(squares, axis=axes, keepdims=True).astype(F32)
            # the CPU sums the squares in f32: beyond FLT_MAX the variance is inf
            overflowed = np.sum(squares, axis=axes, keepdims=True) > np.finfo(F32).max
            variance[overflowed] = np.inf
            eps = F32(op.eps)
            root = np.sqrt(variance + eps) if op.eps_inside else np.sqrt(variance) + eps
            centered = centered / root
    return [stored_from_f32(centered, data.dtype)]


LANES, AVX2_LANES = 16, 8  # the AVX-512 and AVX2 kernels' f32 lanes
TAILS = (8, 4, 2, 1)  # zero-padded; a row's rest is shorter than a vector, so 8 on AVX-512 only


def _per_channel(axes: Sequence[int], shape: tuple[int, ...]) -> bool:
    """Whether the CPU reduces each channel apart: the axes after axis 1 (any rank from 3),
    axis 1 of a 2-D input, and rows that are not empty."""
    rank = len(shape)
    reduced = tuple(sorted(set(axes)))
    wanted = (1,) if rank == 2 else tuple(range(2, rank))
    return rank >= 2 and reduced == wanted and bool(reduced) and int(np.prod(shape)) > 0


def _per_channel_mvn(op: MVN6, x: NDArray[np.float32], reduced: int) -> NDArray[np.float32]:
    rows = x.reshape(*x.shape[: x.ndim - reduced], -1)
    inverse = F32(1) / F32(rows.shape[-1])
    with np.errstate(all="ignore"):  # inf - inf and 0 / 0 are values here, as on the CPU
        centered = rows - (lane_sum(rows, squares=False) * inverse)[..., None]
        if op.normalize_variance:
            variance = lane_sum(centered, squares=True) * inverse
            eps = F32(op.eps)
            root = np.sqrt(variance + eps) if op.eps_inside else np.sqrt(variance) + eps
            centered = centered * (F32(1) / root)[..., None]
    return centered.reshape(x.shape)


def lane_sum(rows: NDArray[np.float32], squares: bool) -> NDArray[np.float32]:
    """The CPU's MVN sum of each row (last axis), or of its squares (by FMA), in the lanes of
    the host's kernel: the node picks it by the host, not by ONEDNN_MAX_CPU_ISA."""
    count = LANES if host_cpu_isa() == AVX512_CORE else AVX2_LANES
    lanes = np.zeros((*rows.shape[:-1], count), F32)
    # a square of an f32 is exact in f64: the sum rounded there, then to f32, is the FMA's
    values = np.square(rows, dtype=np.float64) if squares else rows
    width = rows.shape[-1]
    start = 0
    while width - start >= count:
        lanes[...] = values[..., start : start + count] + lanes
        start += count
    for tail in TAILS:
        if width - start >= tail:
            lanes[..., :tail] = values[..., start : start + tail] + lanes[..., :tail]
            start += tail
    if count == LANES:
        quarters = (lanes[..., 0:4] + lanes[..., 4:8]) + (lanes[..., 8:12] + lanes[..., 12:16])
    else:  # the ymm's halves
        quarters = lanes[..., 0:4] + lanes[..., 4:8]
    total: NDArray[np.float32] = (quarters[..., 0] + quarters[..., 1]) + (
        quarters[..., 2] + quarters[..., 3]
    )
    return total
