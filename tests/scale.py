"""The one way to scale the tests' example counts: `IRPOOL_TEST_SCALE` (default 1).

Every generated count (differential configurations, fuzz mutants, hypothesis examples) is
`examples(default)`: `IRPOOL_TEST_SCALE=10` runs ten times as many for a longer hunt, `0.1` a
tenth for a quick look. A default run draws the same hypothesis examples every time; a scaled
run draws fresh ones (`FRESH`)."""

from __future__ import annotations

import os

SCALE = float(os.environ.get("IRPOOL_TEST_SCALE", "1"))
FRESH = "IRPOOL_TEST_SCALE" in os.environ


def examples(default: int) -> int:
    """`default` scaled by `IRPOOL_TEST_SCALE`, at least 1."""
    return max(1, round(default * SCALE))
