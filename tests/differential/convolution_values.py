"""What the live comparisons of the convolution families share: seeded filters and data
(a third of the float data NaN, ±inf, ±0; integer values small, exact in f32), the magnitudes
a bound is taken of, and the per-output agreement with the CPU (NaN and ±inf exactly, finite
values within a bound)."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from tests.differential.harness import NUMPY

F32_MAX = float(np.finfo(np.float32).max)


class Convolved(Protocol):
    """A configuration of data and filters (any of the convolution families')."""

    index: int
    element_type: str
    data: str
    filters: tuple[int, ...]


def filter_values(config: Convolved) -> NDArray[Any]:
    rng = np.random.default_rng(config.index + 1_000_000)
    dtype = np.dtype(NUMPY[config.element_type])
    if dtype.kind in "iu":
        low = -5 if dtype.kind == "i" else 0
        return rng.integers(low, 6, size=config.filters).astype(dtype)
    values = rng.normal(0, 1, size=config.filters)
    if rng.random() < 0.2:  # a non-finite weight, multiplied with data and padding alike
        values.ravel()[rng.integers(0, values.size)] = rng.choice((np.inf, -np.inf, np.nan))
    return values.astype(dtype)


def data_values(config: Convolved) -> NDArray[Any]:
    shape = tuple(int(d) for d in config.data.split(","))
    rng = np.random.default_rng(config.index)
    dtype = np.dtype(NUMPY[config.element_type])
    if dtype.kind in "iu":
        low = -20 if dtype.kind == "i" else 0
        return rng.integers(low, 21, size=shape).astype(dtype)
    values = rng.normal(0, rng.choice((1.0, 10.0)), size=shape)
    if rng.random() < 0.35:
        specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0])
        picked = specials[rng.integers(0, len(specials), size=shape)]
        values = np.where(rng.random(shape) < 0.05, picked, values)
    return values.astype(dtype)


def finite_abs(values: NDArray[Any]) -> NDArray[np.float64]:
    """|values| as the CPU computes with them (f64 saturated to the f32 range, inf and NaN
    as 0: a finite output has only finite products)."""
    wide = values.astype(np.float64)
    if values.dtype == np.float64:
        wide = np.clip(wide, -F32_MAX, F32_MAX)
    wide = wide.astype(np.float32).astype(np.float64)
    return np.where(np.isfinite(wide), np.abs(wide), 0.0)


def agrees(ours: NDArray[Any], theirs: NDArray[Any], bound: NDArray[Any]) -> NDArray[np.bool_]:
    """Per output: irpool's value is the CPU's (NaN, ±inf exactly; finite within `bound`)."""
    if theirs.dtype.kind in "iu":
        return np.asarray(ours == theirs)
    a, b = ours.astype(np.float64), theirs.astype(np.float64)
    finite = np.isfinite(b)
    if theirs.dtype == np.float16:  # the CPU rounds its f32 sums to f16, as irpool does
        bound = bound + np.abs(np.spacing(theirs)).astype(np.float64)
    with np.errstate(invalid="ignore"):
        close = finite & np.isfinite(a) & (np.abs(a - b) <= bound)
    same = ~finite & ((np.isnan(a) & np.isnan(b)) | (a == b))
    return np.asarray(close | same)
