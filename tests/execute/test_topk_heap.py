"""irpool's replay of the CPU's heap TopK on many rows at once (`heap_orders`) against the
kernel's steps replayed row by row in plain Python (`one_row`, the replay it replaced, measured
equal to the CPU on every tie-heavy and NaN case: docs/ops/TopK.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from irpool.cpu.topk_order import heap_orders
from tests.scale import FRESH, examples

FLOATS = (0.0, -0.0, 1.0, 2.0, 3.0, float("nan"), float("inf"), float("-inf"))
TYPES = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "i32": np.int32, "u8": np.uint8}


def one_row(row: list[Any], k: int, largest: bool, by_index: bool) -> list[int]:
    """The kernel on one row (Python floats or ints): a heap of the first k (max: ``not a <= b``
    ranks first, so NaN; min: ``a < b``), each later element replacing the top when it ranks
    before it, then by index if asked, then extracted."""
    before: Callable[[Any, Any], bool] = (
        (lambda a, b: not a <= b) if largest else (lambda a, b: bool(a < b))
    )
    values, indices = row[:k], list(range(k))

    def sift(node: int, last: int, by_value: bool = True) -> None:
        keys, ranks = (values, before) if by_value else (indices, lambda a, b: a < b)
        while last and node <= (last - 1) >> 1:
            child = 2 * node + 1
            if node != last >> 1 and ranks(keys[child], keys[child + 1]):
                child += 1
            if not ranks(keys[node], keys[child]):
                return
            values[node], values[child] = values[child], values[node]
            indices[node], indices[child] = indices[child], indices[node]
            node = child

    last_parent = (k - 2) >> 1 if k > 1 else 0
    for node in range(last_parent, -1, -1):
        sift(node, k - 1)
    for place in range(k, len(row)):
        if before(row[place], values[0]):
            values[0], indices[0] = row[place], place
            sift(0, k - 1)
    if by_index:
        for node in range(last_parent, -1, -1):
            sift(node, k - 1, by_value=False)
    for end in range(k - 1, 0, -1):
        values[0], values[end] = values[end], values[0]
        indices[0], indices[end] = indices[end], indices[0]
        sift(0, end - 1, by_value=not by_index)
    return indices


@st.composite
def tied_rows(draw: st.DrawFn) -> tuple[np.ndarray[Any, Any], int]:
    """Rows of a few values (NaN, ±inf and ±0 among floats) and a k for them."""
    kind = TYPES[draw(st.sampled_from(sorted(TYPES)))]
    length = draw(st.integers(1, 40))
    count = draw(st.integers(1, 6))
    pool = FLOATS if np.dtype(kind).kind == "f" else (0, 1, 2, 3, 200)
    flat = draw(st.lists(st.sampled_from(pool), min_size=count * length, max_size=count * length))
    return np.array(flat).astype(kind).reshape(count, length), draw(st.integers(1, length))


@settings(max_examples=examples(400), derandomize=not FRESH, deadline=None)
@given(case=tied_rows(), largest=st.booleans(), by_index=st.booleans())
def test_all_rows_at_once_as_row_by_row(
    case: tuple[np.ndarray[Any, Any], int], largest: bool, by_index: bool
) -> None:
    rows, k = case
    expected = [one_row(row.tolist(), k, largest, by_index) for row in rows]
    assert heap_orders(rows, k, largest, by_index).tolist() == expected
