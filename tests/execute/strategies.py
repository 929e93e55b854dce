"""Every strategy that can run a configuration, so tests can check each one, not just the pick."""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.engine import axis_pass
from irpool.execute.engine.matmul import Matmul
from irpool.execute.engine.sliding import Sliding
from irpool.execute.engine.strategy import Strategy, compute_dtype, exact, run_blocks
from irpool.execute.engine.whole import Whole
from irpool.execute.kernels import adaptive_avg_pool as adaptive_module
from irpool.execute.kernels import avg_pool as avg_pool_module
from irpool.ops.pooling_geometry import Window


class ForcedSliding(Sliding):
    """Sliding with a choice forced that cost would make: `kind`, one pass kind wherever it
    applies; `grid`, the reciprocal divisor grid for exclude-pad means (or not)."""

    def __init__(self, *args: Any, kind: str | None = None, grid: bool | None = None) -> None:
        self.kind, self.grid = kind, grid
        super().__init__(*args)

    def pick_pass(self, options: list[axis_pass.PassCost], block: int) -> axis_pass.PassCost:
        forced = [option for option in options if option[0].kind == self.kind]
        return super().pick_pass(forced or options, block)

    def prefers_grid(self, grid_cost: float, scale_cost: float) -> bool:
        return super().prefers_grid(grid_cost, scale_cost) if self.grid is None else self.grid


def avg_pool_strategies(
    windows: Sequence[Window], count_padding: bool, dtype: np.dtype[Any]
) -> dict[str, Strategy]:
    work, sums = compute_dtype(dtype), exact(dtype)
    spatial = tuple(w.size for w in windows)
    matrices = avg_pool_module._matrices(windows, count_padding, sums)
    found: dict[str, Strategy] = {
        "sliding": Sliding(spatial, windows, count_padding, work, sums, 1),
        "matmul": Matmul(matrices, work),
        "matmul-axes": Matmul(matrices, work, kron=False),
    }
    # Each way a sliding pass can read its phases, wherever it applies, and both ways to
    # divide exclude-pad borders.
    for kind in (
        axis_pass.VIEW,
        axis_pass.DENSE,
        axis_pass.COPY,
        axis_pass.CAST,
        axis_pass.STRIDED,
    ):
        found[f"sliding-{kind}"] = ForcedSliding(
            spatial, windows, count_padding, work, sums, 1, kind=kind
        )
    for grid in (False, True):
        found[f"sliding-grid-{grid}"] = ForcedSliding(
            spatial, windows, count_padding, work, sums, 1, grid=grid
        )
    if all(w.covers_all() for w in windows):
        count = prod(w.kernel if count_padding else w.size for w in windows)
        found["whole"] = Whole(prod(w.size for w in windows), None if sums else count, work)
    return found


def run_avg_pool(
    x: NDArray[Any], windows: Sequence[Window], count_padding: bool, strategy: Strategy
) -> NDArray[Any]:
    direct = avg_pool_module.direct_path(windows, count_padding, compute_dtype(x.dtype))
    return run_blocks(x, tuple(w.out for w in windows), strategy, direct)


def adaptive_strategies(
    spatial: tuple[int, ...], output_size: tuple[int, ...], dtype: np.dtype[Any]
) -> dict[str, Strategy]:
    work, sums = compute_dtype(dtype), exact(dtype)
    matrices, _ = adaptive_module.weights(spatial, output_size, sums)
    found: dict[str, Strategy] = {
        "matmul-kron": Matmul(matrices, work, kron=True),
        "matmul-axes": Matmul(matrices, work, kron=False),
    }
    if all(out == 1 for out in output_size):
        volume = prod(spatial)
        found["whole"] = Whole(volume, None if sums else max(volume, 1), work)
    return found


def run_adaptive(x: NDArray[Any], output_size: tuple[int, ...], strategy: Strategy) -> NDArray[Any]:
    _, direct = adaptive_module.choose_strategy(tuple(x.shape[2:]), output_size, np.dtype(x.dtype))
    return run_blocks(x, output_size, strategy, direct)
