"""The CPU plugin's RMS kernel (irpool/cpu/rms_fusion.py) as its JIT computes it: the squares
summed by FMA into four accumulators of a vector's lanes, 16 on an AVX-512 host and 8 on an
AVX2 one, whatever ONEDNN_MAX_CPU_ISA says (each round four vectors of a row, the remaining
whole vectors and a zero-padded tail into the first), the accumulators added pairwise, the
lanes halved down to 4 and those 4 added in order; the sum times 1/N plus eps, its square
root, 1 divided by it; x times that, then times gamma (a single gamma multiplies the
reciprocal root instead)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.isa import AVX512_CORE, host_cpu_isa
from irpool.cpu.rms_fusion import RMSNorm
from irpool.execute.kernels.linear_chains import fused_multiply_add
from irpool.execute.registry import OutputSpec, kernel_for

F32 = np.float32
LANES, AVX2_LANES, ACCUMULATORS = 16, 8, 4


@kernel_for(RMSNorm)
def run_rms(
    op: RMSNorm, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    x, eps = inputs[0], inputs[3]
    gamma = inputs[5] if len(inputs) > 5 else None
    with np.errstate(all="ignore"):  # inf and NaN are values here
        root = np.sqrt(sum_of_squares(x) * F32(1 / x.shape[-1]) + F32(eps.reshape(-1)[0]))
        reciprocal = (F32(1) / root)[..., None]
        if gamma is not None and gamma.size == 1:
            return [x * (reciprocal * gamma.reshape(-1)[0].astype(F32))]
        normalised = x * reciprocal
        return [normalised if gamma is None else normalised * gamma]


def sum_of_squares(x: NDArray[np.float32]) -> NDArray[np.float32]:
    """The squares of each row (last axis) of `x` summed in the host's kernel's order (the
    plugin picks it by the host's flags: ONEDNN_MAX_CPU_ISA does not cap it)."""
    lanes = LANES if host_cpu_isa() == AVX512_CORE else AVX2_LANES
    length = x.shape[-1]
    padded = x  # whole vectors (a hidden size of lanes' multiple): no tail to pad
    if length % lanes:
        padded = np.zeros((*x.shape[:-1], -(-length // lanes) * lanes), F32)
        padded[..., :length] = x
    vectors = padded.reshape(*x.shape[:-1], -1, lanes)
    rounds = length // (lanes * ACCUMULATORS)
    grouped = vectors[..., : rounds * ACCUMULATORS, :].reshape(
        *x.shape[:-1], rounds, ACCUMULATORS, lanes
    )
    # The four accumulators side by side, each round an FMA as `fused_multiply_add` rounds
    # it, the squares (exact in f64) widened once for all rounds; the first round's FMAs
    # add to 0: the squares rounded once. Run under `run_rms`'s np.errstate.
    if rounds:
        wide = grouped.astype(np.float64)
        squares = np.multiply(wide, wide, out=wide)
        # The f32 sums held in f64: each round f64 by f64 (NumPy's mixed-type add costs more).
        held = squares[..., 0, :, :].astype(F32).astype(np.float64)
        for index in range(1, rounds):
            held += squares[..., index, :, :]
            held[...] = held.astype(F32)
        sums = held.astype(F32)
    else:
        sums = np.zeros((*x.shape[:-1], ACCUMULATORS, lanes), F32)
    first = sums[..., 0, :]
    for index in range(rounds * ACCUMULATORS, vectors.shape[-2]):  # the rest, tail included
        first = fused_multiply_add(vectors[..., index, :], vectors[..., index, :], first)
    summed = (first + sums[..., 1, :]) + (sums[..., 2, :] + sums[..., 3, :])
    while summed.shape[-1] > 4:  # zmm to ymm (AVX-512 only), ymm to xmm
        half = summed.shape[-1] // 2
        summed = summed[..., :half] + summed[..., half:]
    first_lane, second, third, fourth = (summed[..., lane] for lane in range(4))
    total: NDArray[np.float32] = ((first_lane + second) + third) + fourth
    return total
