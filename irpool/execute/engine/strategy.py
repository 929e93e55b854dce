"""Runs a pooling strategy over blocks of N×C planes and applies the element-type rules.

A strategy (`whole`, `sliding`, `matmul`) computes window sums or means of a block of planes;
this module feeds it blocks (`blocks.for_each_block`) in the compute dtype.

Numerics (issue: f32 in/out agreeing with the CPU plugin): f32 and f16 are computed in
f32 (f16 rounds once, at the end), f64 in f64. Integer and boolean inputs are summed in
f64, which is exact below 2**53, divided exactly and rounded half to even, as the CPU
plugin does. Blocks bound memory to the input plus the output plus a few blocks.
Float planes whose means are non-finite or near the top of the range are repaired
(`direct`), so inf, NaN and overflow land where the CPU plugin puts them.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from irpool.execute.engine.blocks import for_each_block
from irpool.execute.engine.direct import Direct
from irpool.execute.engine.scratch import Scratch, Slot

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def compute_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    # Comparing dtypes by kind and size: `dtype == np.float64` converts the type on each call.
    if dtype.kind == "f" and dtype.itemsize != 8:
        return _F32
    return _F64


def exact(dtype: np.dtype[Any]) -> bool:
    """Integers need exact sums and one exact division, or half-to-even rounding goes wrong."""
    return dtype.kind != "f"


class Strategy(Protocol):
    """Pools a block [b, *spatial] (compute dtype, C-contiguous) into dst [b, *out].

    In exact mode it writes window sums (the driver divides); otherwise window means.
    """

    chunk_bytes: int
    blas_macs: int  # multiply-adds per plane that `run` hands to BLAS

    @property
    def label(self) -> str:
        """The strategy and its plan by name (what `tuning` keeps)."""

    def run(self, src: NDArray[Any], dst: NDArray[Any], scratch: Scratch) -> None: ...


def run_blocks(
    x: NDArray[Any],
    out_spatial: tuple[int, ...],
    strategy: Strategy,
    direct: Direct,
) -> NDArray[Any]:
    """Apply `strategy` block by block; `direct` repairs float planes and divides exactly."""
    x = np.ascontiguousarray(x)
    out = np.empty((*x.shape[:2], *out_spatial), x.dtype)
    if out.size == 0:
        return out
    if x.size == 0:
        out.fill(0)
        return out
    planes = x.shape[0] * x.shape[1]
    source = x.reshape(planes, *x.shape[2:])
    target = out.reshape(planes, *out_spatial)
    work = compute_dtype(x.dtype)

    def pool(start: int, stop: int, scratch: Scratch) -> None:
        _run_block(source[start:stop], target[start:stop], strategy, direct, work, scratch)

    plane_bytes = max(1, x.size // planes * work.itemsize)
    # Besides the strategy's products, `direct` checks the means with one BLAS dot product.
    blas_macs = strategy.blas_macs + out.size // planes
    for_each_block(planes, plane_bytes, strategy.chunk_bytes, pool, blas_macs)
    return out


def _run_block(
    src: NDArray[Any],
    target: NDArray[Any],
    strategy: Strategy,
    direct: Direct,
    work: np.dtype[Any],
    scratch: Scratch,
) -> None:
    if src.dtype == work:  # f32 or f64
        strategy.run(src, target, scratch)
        direct.repair(src, target, lambda planes, means: strategy.run(planes, means, scratch))
        return
    converted = scratch.array(Slot.WIDENED, src.shape, work)
    np.copyto(converted, src, casting="unsafe")
    values = scratch.array(Slot.MEANS, target.shape, work)
    strategy.run(converted, values, scratch)
    if exact(src.dtype):  # integers: finite, summed exactly in f64
        _finish(values, direct.divisor, target)
        return
    direct.repair(converted, values, lambda planes, means: strategy.run(planes, means, scratch))
    _finish(values, None, target)


def _finish(
    values: NDArray[Any], divisor: NDArray[np.float64] | None, target: NDArray[Any]
) -> None:
    """Exact division and half-to-even rounding for integers; one rounding for f16."""
    if divisor is not None:
        np.divide(values, divisor, out=values)
        np.rint(values, out=values)
    np.copyto(target, values, casting="unsafe")
