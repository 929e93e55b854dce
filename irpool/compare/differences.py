"""How far one tensor is from a reference, and whether it stays within the tolerance.

- The scale of a tensor is the largest magnitude among the reference's finite values (1
  when it has none, or all are 0), so a tolerance is relative to what the layer computes.
- `max_abs` is the largest |value - reference| where both are finite (computed in f64);
  `max_rel` is max_abs / scale.
- A non-finite placement mismatch is a position where either is NaN or ±inf and the two
  are not the same (NaN and NaN are the same; inf and -inf are not).
- Within the tolerance: same shape, no placement mismatch, and max_rel <= tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True, slots=True)
class Difference:
    max_abs: float
    max_rel: float
    scale: float
    nonfinite_mismatches: int
    shapes_differ: bool
    within: bool


def difference(value: NDArray[Any], reference: NDArray[Any], tolerance: float) -> Difference:
    if value.shape != reference.shape:
        return Difference(0.0, 0.0, 0.0, 0, shapes_differ=True, within=False)
    # bool and integers compare as numbers; f64 holds every f32/f16/bf16 difference exactly.
    ours = np.asarray(value, dtype=np.float64)
    theirs = np.asarray(reference, dtype=np.float64)
    finite_ours, finite_theirs = np.isfinite(ours), np.isfinite(theirs)
    both = finite_ours & finite_theirs
    same = (ours == theirs) | (np.isnan(ours) & np.isnan(theirs))
    mismatches = int(np.count_nonzero(~both & ~same))
    magnitudes = np.abs(theirs[finite_theirs])
    scale = float(magnitudes.max()) if magnitudes.size else 0.0
    scale = scale or 1.0
    gaps = np.abs(ours[both] - theirs[both])
    max_abs = float(gaps.max()) if gaps.size else 0.0
    max_rel = max_abs / scale
    return Difference(
        max_abs, max_rel, scale, mismatches, False, not mismatches and max_rel <= tolerance
    )
