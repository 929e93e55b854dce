"""Minimum, Maximum and SquaredDifference on shape subgraphs: the values and bounds OpenVINO
2026.4.1's `read_model` gives them (measured by broadcasting to `min(ShapeOf(x), c)` for x of
`[?,6..10,3,2..,4..7]`, docs/elementwise.md#minimum-maximum-and-squareddifference)."""

from __future__ import annotations

import pytest

from irpool.element_types import element_type
from irpool.ops.base import ShapeError, TensorInfo
from irpool.ops.binary_math import BY_TYPE
from tests.ops.inferring import const, infer, parse, shape_of

MAX = (1 << 63) - 1


def apply(op: str, left: TensorInfo, right: TensorInfo) -> TensorInfo:
    (result,) = infer(BY_TYPE[op]({"auto_broadcast": "numpy"}), left, right)
    return result


@pytest.mark.parametrize(
    ("op", "lower", "upper"),
    [
        ("Minimum", (0, 6, 3, 0, 4), (MAX, 8, 3, MAX, 5)),  # read_model: [?,6..8,3,?,4..5]
        ("Maximum", (0, 8, 5, 0, 5), (MAX, 10, 5, MAX, 7)),  # [?,8..10,5,?,5..7]
    ],
)
def test_bounds_of_a_shape_clamped_by_a_constant(
    op: str, lower: tuple[int, ...], upper: tuple[int, ...]
) -> None:
    for swapped in (False, True):
        pair = [shape_of("?,6..10,3,2..,4..7"), const([4, 8, 5, 6, 5])]
        result = apply(op, *(reversed(pair) if swapped else pair))
        assert result.bounds is not None
        assert (result.bounds.lower, result.bounds.upper) == (lower, upper)


def test_squared_difference_keeps_no_bounds() -> None:
    result = apply("SquaredDifference", shape_of("?,6..10,3"), const([4, 8, 5]))
    assert result.value is None and result.bounds is None


@pytest.mark.parametrize(
    ("op", "a", "b", "expected"),
    [
        ("Minimum", [3, -(2**40), 7], [5, 1, 7], [3, -(2**40), 7]),  # exact in i64
        ("Maximum", [3, -(2**40), 7], [5, 1, 7], [5, 1, 7]),
        ("SquaredDifference", [3, 2**32], [5, 0], None),  # OpenVINO cannot evaluate it
    ],
)
def test_integer_constants_fold(
    op: str, a: list[int], b: list[int], expected: list[int] | None
) -> None:
    result = apply(op, const(a), const(b))
    assert (None if result.value is None else result.value.tolist()) == expected


@pytest.mark.parametrize("op", list(BY_TYPE))
def test_boolean_inputs_are_refused(op: str) -> None:
    with pytest.raises(ShapeError, match="boolean"):
        mask = TensorInfo(element_type("boolean"), parse("2,3"))
        apply(op, mask, mask)
