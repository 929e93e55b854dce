"""The per-op geometry caches keep the last few input shapes only: a dynamic model fed ever
new shapes must not make its ops hold one entry per shape they ever saw."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from irpool.ops.avg_pool import AvgPool1
from irpool.ops.max_pool import MaxPool8
from irpool.ops.pooling import RecentShapes
from tests.execute.running import compute

WINDOW = {"kernel": (2,), "strides": (1,), "pads_begin": (0,), "pads_end": (0,),
          "auto_pad": "explicit", "rounding_type": "floor"}  # fmt: skip


@given(st.lists(st.integers(1, 3 * RecentShapes.SIZE), max_size=300))
def test_least_recently_used_shapes_are_computed_again(sizes: list[int]) -> None:
    """Against a model: a shape is computed unless it is among the last SIZE distinct
    shapes asked for, and the value is always what computing gives."""
    memo: RecentShapes[int] = RecentShapes()
    recent: list[tuple[int, ...]] = []  # most recent last
    computed: list[tuple[int, ...]] = []

    def compute_value(shape: tuple[int, ...]) -> int:
        computed.append(shape)
        return 10 * shape[2]

    for size in sizes:
        shape = (1, 1, size)
        computed.clear()
        assert memo.get(shape, compute_value) == 10 * size
        assert computed == ([] if shape in recent else [shape])
        recent = [*[s for s in recent if s != shape][-(RecentShapes.SIZE - 1) :], shape]
        assert len(memo) == len(recent)


def test_pooling_ops_hold_at_most_size_shapes() -> None:
    average = AvgPool1({**WINDOW, "exclude-pad": True})
    maximum = MaxPool8({**WINDOW, "dilations": (1,), "index_element_type": "i64", "axis": 0})
    for length in range(3, 3 + 3 * RecentShapes.SIZE):
        x = np.arange(length, dtype=np.float32).reshape(1, 1, length)
        for op in (average, maximum):
            got = compute(op, [x])[0]
            assert got is not None
            np.testing.assert_array_equal(got[0, 0, :2], [0.5, 1.5] if op is average else [1, 2])
    assert len(average._geometry) == len(average._windows) == RecentShapes.SIZE
    assert len(maximum._windows) == RecentShapes.SIZE
