"""How a tensor is measured against its reference: scale, max abs and rel, the placement of
NaN and inf, shapes, and the tolerance's edge."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from irpool.compare.differences import Difference, difference

INF, NAN = np.inf, np.nan


@pytest.mark.parametrize(
    ("value", "reference", "expected"),
    [
        # max abs 0.5 against a scale of 4: rel 0.125.
        ([1.0, -4.5], [1.5, -4.0], Difference(0.5, 0.125, 4.0, 0, False, False)),
        # NaN and NaN, inf and inf are the same; their positions are not measured.
        ([NAN, INF, 2.0], [NAN, INF, 2.0], Difference(0.0, 0.0, 2.0, 0, False, True)),
        # NaN against a number, inf against -inf, a number against inf: misplaced.
        ([NAN, INF, 1.0, 3.0], [1.0, -INF, INF, 3.0], Difference(0.0, 0.0, 3.0, 3, False, False)),
        # No finite reference (or only zeros): scale 1, so the tolerance is absolute.
        ([0.0009765625, 0.0], [0.0, 0.0], Difference(2**-10, 2**-10, 1.0, 0, False, True)),
        ([NAN], [NAN], Difference(0.0, 0.0, 1.0, 0, False, True)),
        ([], [], Difference(0.0, 0.0, 1.0, 0, False, True)),
    ],
)
def test_difference(value: list[float], reference: list[float], expected: Difference) -> None:
    found = difference(np.array(value, np.float32), np.array(reference, np.float32), 1e-3)
    assert found == expected


def test_the_tolerance_is_inclusive() -> None:
    reference = np.array([1000.0, 0.0])
    assert difference(np.array([1001.0, 0.0]), reference, 1e-3).within
    assert not difference(np.array([1001.5, 0.0]), reference, 1e-3).within


def test_integers_and_booleans_compare_as_numbers() -> None:
    found = difference(np.array([3, 7], np.int64), np.array([3, 5], np.int64), 1e-3)
    assert (found.max_abs, found.max_rel, found.within) == (2.0, 2 / 5, False)
    assert difference(np.array([True]), np.array([True]), 1e-3).within
    # int64 indices beyond 2**53 are still told apart by their f64 difference.
    big = np.array([2**40], np.int64)
    assert difference(big + 1, big, 1e-15).max_abs == 1.0


def test_shapes_that_differ_are_never_within() -> None:
    found = difference(np.zeros((2, 3)), np.zeros((3, 2)), 1.0)
    assert found.shapes_differ and not found.within


@given(
    hnp.arrays(np.float32, st.integers(1, 20), elements=st.floats(width=32, allow_nan=True)),
)
def test_an_array_is_within_any_tolerance_of_itself(array: np.ndarray) -> None:
    found = difference(array, array.copy(), 1e-12)
    assert found.within and found.max_abs == 0 and found.nonfinite_mismatches == 0
