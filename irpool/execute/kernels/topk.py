"""TopK on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it (measured,
docs/ops/TopK.md): the k largest (smallest) elements along the axis, ordered by value with
ties in index order (sort none as value), or the same k ordered by index; values as the CPU
holds the type. Along the last axis of a planar input, the order of the CPU's kernel
(irpool/cpu/topk_order.py), ties and NaN included; elsewhere exact wherever no tie crosses the
k-th place: the tie and NaN orders of the CPU's other kernels are not reproduced
(docs/ops/TopK.md#known-differences)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import moved_as_held
from irpool.cpu.topk_order import kernel_top_k
from irpool.execute.errors import ExecutionError
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.topk import TopK1, TopK3, TopK11


def top_k(
    x: NDArray[Any], k: int, axis: int, largest: bool, by_index: bool, kernel: str | None = None
) -> tuple[NDArray[Any], NDArray[np.int64]]:
    """The k values and their indices along `axis` (non-negative), ties in index order, or
    in the order of the CPU's `kernel` (irpool/cpu/topk_order.py)."""
    along = np.moveaxis(x, axis, -1)
    keys = along.astype(np.float64)  # exact: the CPU holds every type in 32 bits or f32
    order = np.argsort(-keys if largest else keys, axis=-1, kind="stable")[..., :k]
    if kernel is not None and k:
        order = kernel_top_k(kernel, along, order, largest, by_index)
    if by_index:
        order = np.sort(order, axis=-1)
    values = np.take_along_axis(along, order, -1)
    return np.moveaxis(values, -1, axis).copy(), np.moveaxis(order, -1, axis).copy()


@kernel_for(TopK1, TopK3, TopK11)
def run_topk(
    op: TopK1 | TopK3 | TopK11, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    data, k_input = inputs
    axis = int(op.attrs["axis"]) % data.ndim
    k = int(moved_as_held(k_input).reshape(()))
    if not 1 <= k <= data.shape[axis] and not k == data.shape[axis] == 0:  # nothing to pick
        raise ExecutionError(
            f"TopK k {k} on an axis of {data.shape[axis]}: the CPU plugin takes k in [1, "
            f"{data.shape[axis]}] only, or 0 on an empty axis (docs/ops/TopK.md)"
        )
    values, indices = top_k(
        moved_as_held(data),
        k,
        axis,
        op.attrs["mode"] == "max",
        op.attrs["sort"] == "index",
        op.kernel_order,
    )
    return [values, indices.astype(np.int64 if op.index_type == "i64" else np.int32)]
