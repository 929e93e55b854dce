"""Constant folding at check time, as OpenVINO folds layers whose inputs are all constants.

Shape-like tensors (a Reshape pattern, Squeeze axes) are often computed from Consts by a chain
of Convert/Squeeze/Unsqueeze/Reshape; OpenVINO reads their values through the chain, so irpool
carries values along it too. Only small tensors are carried: weights are not shape-like, and
folding them would make validation as slow as running. Planning a run folds the rest, with
the same rules (irpool/execute/fold.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from irpool.element_types import INTEGER_INPUT_TYPES
from irpool.ops.base import TensorInfo

if TYPE_CHECKING:
    from numpy.typing import NDArray

# Values up to this many elements are folded; larger constants stay unknown at check time.
FOLDED_SIZE = 4096


def folded(
    info: TensorInfo, compute: Callable[[NDArray[Any]], NDArray[Any] | None]
) -> NDArray[Any] | None:
    """`compute` applied to a small known value; None when the value is unknown or large."""
    if info.value is None or info.value.size > FOLDED_SIZE:
        return None
    return compute(info.value)


def integer_values(info: TensorInfo) -> list[int] | None:
    """A known integer tensor's values, flattened, as OpenVINO reads them (as int64)."""
    if info.value is None or info.element_type not in INTEGER_INPUT_TYPES:
        return None
    return [_as_int64(int(v)) for v in info.value.ravel()]


def _as_int64(value: int) -> int:
    """u64 values above 2**63 read back as negative int64, as in OpenVINO's casts."""
    return value - (1 << 64) if value >= 1 << 63 else value
