"""AdaptiveAvgPool on NumPy arrays: box means as per-axis averaging matrices.

A box's volume is the product of its per-axis lengths, so each axis's matrix carries its
own 1/length and the product of all of them is the mean. Output 1x1 reduces whole planes.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.engine import tuning
from irpool.execute.engine.costs import KRON_LIMIT
from irpool.execute.engine.direct import Direct
from irpool.execute.engine.matmul import Matmul
from irpool.execute.engine.strategy import Strategy, compute_dtype, exact, run_blocks
from irpool.execute.engine.whole import Whole
from irpool.execute.engine.window_arrays import adaptive_matrix, adaptive_taps
from irpool.execute.registry import OutputSpec, kernel_for, prepared
from irpool.ops.adaptive_avg_pool import AdaptiveAvgPool8

# The largest Kronecker matrix (entries) timed against one product per axis: 2 MB in f32.
KRON_CANDIDATE = 8 * KRON_LIMIT


@kernel_for(AdaptiveAvgPool8)
def run_adaptive_avg_pool(
    op: AdaptiveAvgPool8, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data, size = inputs
    output_size = op.run_output_size(size)
    strategy, direct = prepared(
        op, (data.shape, output_size, data.dtype), lambda: _prepare(data, output_size)
    )
    return [run_blocks(data, output_size, strategy, direct)]


def _prepare(x: NDArray[Any], output_size: tuple[int, ...]) -> tuple[Strategy, Direct]:
    """The strategy for these sizes, timed on `x` when both ways of applying the matrices
    are close by estimate (`tuning`)."""
    planes = x.shape[0] * x.shape[1]
    found, direct = candidates(tuple(x.shape[2:]), output_size, x.dtype, planes)
    key = f"AdaptiveAvgPool {x.shape[2:]} {output_size} {x.dtype.str} {planes}"
    strategy = tuning.pick(key, found, lambda s: run_blocks(x, output_size, s, direct))
    return strategy, direct


def adaptive_avg_pool(x: NDArray[Any], output_size: tuple[int, ...]) -> NDArray[Any]:
    """Mean over boxes [floor(i*In/Out), ceil((i+1)*In/Out)) per axis; 0 gives an empty axis."""
    strategy, direct = choose_strategy(tuple(x.shape[2:]), output_size, np.dtype(x.dtype))
    return run_blocks(x, output_size, strategy, direct)


def choose_strategy(
    spatial: tuple[int, ...], output_size: tuple[int, ...], dtype: np.dtype[Any]
) -> tuple[Strategy, Direct]:
    """The strategy for these sizes by estimate, and the box-by-box path."""
    found, direct = candidates(spatial, output_size, dtype, 1)
    return found[0][0], direct


def candidates(
    spatial: tuple[int, ...], output_size: tuple[int, ...], dtype: np.dtype[Any], planes: int
) -> tuple[list[tuple[Strategy, float]], Direct]:
    """The strategies for these sizes and N×C with their estimated ns, the cost model's pick
    first, and the box-by-box path."""
    work, sums = compute_dtype(dtype), exact(dtype)
    matrices, divisor = weights(spatial, output_size, sums)
    taps = [adaptive_taps(size, out) for size, out in zip(spatial, output_size, strict=True)]
    direct = Direct(taps, divisor, work)
    if all(out == 1 for out in output_size):
        volume = prod(spatial)
        return [(Whole(volume, None if sums else max(volume, 1), work), 0.0)], direct
    # Matmul's own choice first: one Kronecker product or one per axis. The other way is a
    # candidate too, but a Kronecker matrix only up to KRON_CANDIDATE entries: 1024x1024 to
    # 3x3 would make one of 9.4 million (75 MB in f64 while it is built).
    chosen = Matmul(matrices, work)
    found = [chosen]
    if chosen.kron is not None or prod(spatial) * prod(output_size) <= KRON_CANDIDATE:
        found.append(Matmul(matrices, work, kron=chosen.kron is None))
    return [(m, m.estimate(planes)) for m in found], direct


def weights(
    spatial: tuple[int, ...], output_size: tuple[int, ...], sums: bool
) -> tuple[list[NDArray[np.float64]], NDArray[np.float64]]:
    """Per-axis box matrices (0/1 for exact sums, else over the box length) and box volumes."""
    matrices = [adaptive_matrix(size, out) for size, out in zip(spatial, output_size, strict=True)]
    lengths = [np.maximum(m.sum(axis=0), 1.0) for m in matrices]
    divisor = np.ones(())
    for length in lengths:
        divisor = np.multiply.outer(divisor, length)
    if not sums:
        matrices = [m / length for m, length in zip(matrices, lengths, strict=True)]
    return matrices, divisor
