"""How OpenVINO 2026.4's CPU plugin applies a PReLU slope (docs/cpu.md, "PReLU slope
layouts"): `read_model` checks nothing of the slope's shape, the plugin picks a layout or
fails to compile (IR632, irpool/cpu/refusals.py)."""

from __future__ import annotations

import math


def slope_layout(data: tuple[int, ...], slope: tuple[int, ...]) -> str | None:
    """How the CPU applies a PReLU slope of shape `slope` to data of shape `data` (measured):
    "one" (a single value), "channel" (1-D, as long as dim 1: along axis 1, even where it
    also matches the last dim), "broadcast" (numpy-wise, not growing the data), "last" (its
    last value everywhere, where the data is a scalar or ends in a dim of 1: [5,3,1] by [2];
    i32 and i64 data do not compile there); None: it cannot compile."""
    if math.prod(slope) == 1:
        return "one"
    if len(slope) == 1 and len(data) >= 2 and slope[0] == data[1]:
        return "channel"
    trailing = data[len(data) - len(slope) :] if len(slope) <= len(data) else None
    if trailing is not None and all(k in (1, d) for k, d in zip(slope, trailing, strict=True)):
        return "broadcast"
    if not data or data[-1] == 1:
        return "last"
    return None
