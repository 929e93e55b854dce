"""AvgPool on NumPy arrays: picks a strategy from the sizes and runs it block by block.

Strategies (one module each): `whole` when one window covers each plane, `sliding` for
small kernels, `matmul` when the kernel is large (its cost does not grow with the kernel).
The choice uses each strategy's estimated cost, measured on the reference machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.direct import Direct
from irpool.execute.driver import Strategy, compute_dtype, exact, run_blocks
from irpool.execute.geometry import Axis, divisor_grid
from irpool.execute.matmul import Matmul
from irpool.execute.sliding import Sliding
from irpool.execute.whole import Whole
from irpool.execute.window import Window


def avg_pool(x: NDArray[Any], windows: Sequence[Window], count_padding: bool) -> NDArray[Any]:
    """Average over each window of `x` [N, C, *spatial]; see `Window` for the geometry.

    Padding taps add 0. The divisor is prod(kernel) when `count_padding`, otherwise the
    number of real taps; a window without real taps gives 0 (OpenVINO's CPU plugin gives
    NaN when exclude-pad is true and pads are present).
    """
    planes = x.shape[0] * x.shape[1]
    strategy, direct = plan(tuple(windows), count_padding, np.dtype(x.dtype), planes)
    return run_blocks(x, tuple(w.out for w in windows), strategy, direct)


@lru_cache(maxsize=256)
def plan(
    windows: tuple[Window, ...], count_padding: bool, dtype: np.dtype[Any], planes: int
) -> tuple[Strategy, Direct]:
    """The cheapest strategy for this geometry and N×C, and the window-by-window path."""
    axes = [Axis(w) for w in windows]
    work, sums = compute_dtype(dtype), exact(dtype)
    direct = direct_path(axes, count_padding, work)
    if all(_covers_all(a) for a in axes):
        count = prod(w.kernel if count_padding else w.size for w in windows)
        return Whole(prod(w.size for w in windows), None if sums else count, work), direct
    spatial = tuple(w.size for w in windows)
    sliding = Sliding(spatial, windows, count_padding, work, sums, planes)
    matmul = Matmul(_matrices(axes, count_padding, sums), work)
    best = sliding if sliding.estimate(planes) <= matmul.estimate(planes) else matmul
    return best, direct


def direct_path(axes: list[Axis], count_padding: bool, work: np.dtype[Any]) -> Direct:
    """The tap-by-tap path for planes with inf, NaN or huge values; it holds the divisors."""
    return Direct([a.taps() for a in axes], divisor_grid(axes, count_padding), work)


def _covers_all(axis: Axis) -> bool:
    """One output whose real taps are exactly the whole axis."""
    return axis.window.out == 1 and axis.real_taps(0) == list(range(axis.window.size))


def _matrices(axes: list[Axis], count_padding: bool, sums: bool) -> list[NDArray[np.float64]]:
    """Per-axis weights; dividing each axis by its own divisor gives the full divisor."""
    if sums:
        return [a.matrix() for a in axes]
    return [a.matrix() / a.divisors(count_padding) for a in axes]
