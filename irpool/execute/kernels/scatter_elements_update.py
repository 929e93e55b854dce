"""ScatterElementsUpdate on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it
(measured, docs/ops/ScatterElementsUpdate.md): the updates applied one after another in their
row-major order (so of duplicate indices the last update wins, and sums and products
accumulate in that order), negative indices from the end; `mean` divides the sum by the count
(the data's element counting when `use_init_val`), integers truncated toward zero. An index out
of range fails the inference on the CPU, and here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import moved_as_held
from irpool.execute.errors import ExecutionError
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.scatter_elements_update import ScatterElementsUpdate3, ScatterElementsUpdate12


def _larger(acc: NDArray[Any], update: NDArray[Any]) -> NDArray[Any]:
    """The CPU's `acc < u ? u : acc`: a NaN update is dropped, a NaN accumulator stays."""
    return np.where(acc < update, update, acc)


def _smaller(acc: NDArray[Any], update: NDArray[Any]) -> NDArray[Any]:
    """The CPU's `u < acc ? u : acc`."""
    return np.where(update < acc, update, acc)


_FOLDS: dict[str, Callable[[NDArray[Any], NDArray[Any]], NDArray[Any]]] = {
    "sum": np.add,
    "mean": np.add,
    "prod": np.multiply,
    "min": _smaller,
    "max": _larger,
}


def _identity(reduction: str, dtype: np.dtype[Any]) -> Any:
    """What a reduction starts from when the data's element does not take part: 0, 1, or
    the type's largest (min) or lowest (max) value (f32's for floats, measured)."""
    if reduction in ("sum", "mean"):
        return 0
    if reduction == "prod":
        return 1
    info = np.finfo(np.float32) if dtype.kind == "f" else np.iinfo(dtype)
    return info.max if reduction == "min" else info.min


def _in_order(
    flat: NDArray[Any], targets: NDArray[np.int64], values: NDArray[Any], fold: Callable[..., Any]
) -> None:
    """`flat[t] = fold(flat[t], v)` for each (t, v) in order: a round per repeat of a target."""
    order = np.argsort(targets, kind="stable")
    ordered = targets[order]
    starts = np.r_[True, ordered[1:] != ordered[:-1]]
    rank = np.arange(len(order)) - np.maximum.accumulate(np.where(starts, np.arange(len(order)), 0))
    for repeat in range(int(rank.max(initial=-1)) + 1):
        chosen = order[rank == repeat]
        flat[targets[chosen]] = fold(flat[targets[chosen]], values[chosen])


def scatter_elements(
    data: NDArray[Any],
    indices: NDArray[Any],
    updates: NDArray[Any],
    axis: int,
    reduction: str,
    use_init_val: bool,
) -> NDArray[Any]:
    """The scattered data (`axis` non-negative); IndexError for an index out of range."""
    length = data.shape[axis]
    picks = indices.astype(np.int64)
    if picks.size and (picks.min() < -length or picks.max() >= length):
        raise IndexError(f"an index beyond [-{length}, {length - 1}]")
    coordinates: list[NDArray[Any]] = list(np.indices(indices.shape))
    coordinates[axis] = np.where(picks < 0, picks + length, picks)
    targets = np.ravel_multi_index(tuple(coordinates), data.shape).ravel()
    values = updates.ravel()
    if reduction == "none":
        out = data.copy()
        out.reshape(-1)[targets] = values  # NumPy assigns in order: the last duplicate wins
        return out
    work = np.float32 if data.dtype.kind == "f" else data.dtype  # f16 reduced in f32
    flat = data.astype(work).reshape(-1)
    if not use_init_val:
        flat[targets] = _identity(reduction, data.dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        _in_order(flat, targets, values.astype(work), _FOLDS[reduction])
        if reduction == "mean":
            counts = np.bincount(targets, minlength=flat.size) + (1 if use_init_val else 0)
            touched = np.unique(targets)
            if data.dtype.kind == "f":
                flat[touched] = flat[touched] / counts[touched].astype(np.float32)
            else:  # truncated toward zero
                sums = flat[touched].astype(np.int64)
                flat[touched] = np.sign(sums) * (np.abs(sums) // counts[touched])
        return flat.astype(data.dtype).reshape(data.shape)


@kernel_for(ScatterElementsUpdate3, ScatterElementsUpdate12)
def run_scatter_elements_update(
    op: ScatterElementsUpdate3 | ScatterElementsUpdate12,
    inputs: Sequence[NDArray[Any]],
    outputs: Sequence[OutputSpec],
) -> list[NDArray[Any] | None]:
    data, indices, updates, axis_input = (moved_as_held(x) for x in inputs)
    axis = int(axis_input.ravel()[0]) % max(data.ndim, 1)
    if data.ndim == 0:
        return [data.copy()]
    try:
        return [scatter_elements(data, indices, updates, axis, op.reduction, op.use_init_val)]
    except IndexError as error:
        raise ExecutionError(
            f'ScatterElementsUpdate {error}: the CPU plugin fails the inference ("have indices '
            'value that points to non-existing output tensor element")'
        ) from None
