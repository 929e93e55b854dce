"""AvgPool on NumPy arrays: picks a strategy from the sizes and runs it block by block.

Strategies (one module each): `whole` when one window covers each plane, `sliding` for
small kernels, `matmul` when the kernel is large (its cost does not grow with the kernel).
Each strategy estimates its cost from constants measured on the reference machine; the
closest candidates are then timed on the machine that runs (`tuning`).
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.engine import tuning
from irpool.execute.engine.direct import Direct
from irpool.execute.engine.matmul import Matmul
from irpool.execute.engine.sliding import Sliding
from irpool.execute.engine.strategy import Strategy, compute_dtype, exact, run_blocks
from irpool.execute.engine.whole import Whole
from irpool.execute.engine.window_arrays import divisor_grid, divisors, tap_indices, tap_matrix
from irpool.execute.registry import OutputSpec, kernel_for, prepared
from irpool.ops.avg_pool import AvgPoolBase
from irpool.ops.pooling_geometry import Window


@kernel_for(AvgPoolBase)
def run_avg_pool(
    op: AvgPoolBase, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    x = inputs[0]
    strategy, direct, out_spatial = prepared(op, (x.shape, x.dtype), lambda: _prepare(op, x))
    return [run_blocks(x, out_spatial, strategy, direct)]


def _prepare(op: AvgPoolBase, x: NDArray[Any]) -> tuple[Strategy, Direct, tuple[int, ...]]:
    """The strategy for this op, input shape and dtype, timed on `x` among the closest
    candidates (kept per op: runs repeat them, and picking again costs microseconds, a tenth
    of a tiny pooling)."""
    windows, count_padding = op.geometry(x.shape)
    out_spatial = tuple(w.out for w in windows)
    planes = x.shape[0] * x.shape[1]
    found, direct = candidates(windows, count_padding, x.dtype, planes)
    key = f"AvgPool {windows} {count_padding} {x.dtype.str} {planes}"
    strategy = tuning.pick(key, found, lambda s: run_blocks(x, out_spatial, s, direct))
    return strategy, direct, out_spatial


def avg_pool(x: NDArray[Any], windows: Sequence[Window], count_padding: bool) -> NDArray[Any]:
    """Average over each window of `x` [N, C, *spatial]; see `Window` for the geometry.

    Padding taps add 0. The divisor is prod(kernel) when `count_padding`, otherwise the
    number of real taps; a window without real taps gives 0 (OpenVINO's CPU plugin gives
    NaN when exclude-pad is true and pads are present).
    """
    planes = x.shape[0] * x.shape[1]
    strategy, direct = choose_strategy(tuple(windows), count_padding, np.dtype(x.dtype), planes)
    return run_blocks(x, tuple(w.out for w in windows), strategy, direct)


def choose_strategy(
    windows: tuple[Window, ...], count_padding: bool, dtype: np.dtype[Any], planes: int
) -> tuple[Strategy, Direct]:
    """The cheapest strategy by estimate for this geometry and N×C, and the window-by-window
    path."""
    found, direct = candidates(windows, count_padding, dtype, planes)
    return found[0][0], direct


def candidates(
    windows: tuple[Window, ...], count_padding: bool, dtype: np.dtype[Any], planes: int
) -> tuple[list[tuple[Strategy, float]], Direct]:
    """The strategies for this geometry and N×C with their estimated ns, the cost model's
    pick first (`sliding`'s best plan unless `matmul` is estimated cheaper), then by estimate;
    and the window-by-window path."""
    work, sums = compute_dtype(dtype), exact(dtype)
    direct = direct_path(windows, count_padding, work)
    if all(w.covers_all() for w in windows):
        count = prod(w.kernel if count_padding else w.size for w in windows)
        return [(Whole(prod(w.size for w in windows), None if sums else count, work), 0.0)], direct
    spatial = tuple(w.size for w in windows)
    sliding = Sliding(spatial, windows, count_padding, work, sums, planes)
    matmul = Matmul(_matrices(windows, count_padding, sums), work)
    best = sliding if sliding.estimate(planes) <= matmul.estimate(planes) else matmul
    found: list[Sliding | Matmul] = [*sliding.variants(tuning.SHORTLIST), matmul]
    others = [s for s in found if s is not best]
    ranked: list[Sliding | Matmul] = [best, *sorted(others, key=lambda s: s.estimate(planes))]
    return [(s, s.estimate(planes)) for s in ranked], direct


def direct_path(windows: Sequence[Window], count_padding: bool, work: np.dtype[Any]) -> Direct:
    """The tap-by-tap path for planes with inf, NaN or huge values; it holds the divisors."""
    return Direct([tap_indices(w) for w in windows], divisor_grid(windows, count_padding), work)


def _matrices(
    windows: Sequence[Window], count_padding: bool, sums: bool
) -> list[NDArray[np.float64]]:
    """Per-axis weights; dividing each axis by its own divisor gives the full divisor."""
    if sums:
        return [tap_matrix(w) for w in windows]
    return [tap_matrix(w) / divisors(w, count_padding) for w in windows]
