"""StridedSlice-1: shapes with dynamic dims and intervals, every mask, known values and the
bounds of shape subgraphs, and refusals with the runtime's messages, as OpenVINO 2026.4's
`read_model` gives them, and the CPU plugin's refusal (measured: docs/ops/StridedSlice.md);
the live comparison over many configurations is tests/differential/test_strided_slice.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.cpu.refusals import check_refusals
from irpool.element_types import element_type
from irpool.ops.base import LayerContext, OpReport, ShapeError, TensorInfo
from irpool.ops.strided_slice import StridedSlice1
from irpool.rules import CPU_STRIDED_SLICE_SHRINK_OUT_OF_RANGE
from irpool.shape import Shape
from tests.execute.running import _no_weights
from tests.ops.inferring import const, data, infer, shape_of

MASKS = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")
I64 = element_type("i64")


def op(count: int, **masks: list[int]) -> StridedSlice1:
    return StridedSlice1({name: tuple(masks.get(name, [0] * count)) for name in MASKS})


def sliced(x: TensorInfo, begin: Any, end: Any, strides: Any = None, **masks: Any) -> TensorInfo:
    count = len(begin) if isinstance(begin, list) else begin.shape[0].value
    inputs = [x, const(begin) if isinstance(begin, list) else begin]
    inputs.append(const(end) if isinstance(end, list) else end)
    if strides is not None:
        inputs.append(const(strides))
    (out,) = infer(op(count, **masks), *inputs)
    return out


@pytest.mark.parametrize(
    ("x", "begin", "end", "strides", "masks", "expected"),
    [  # read_model's shapes (measured)
        ("2,3,4", [0, 1], [2, 3], [1, 1], {}, "[2,2,4]"),
        ("2,3,4", [1, -1], [0, 0], [1, -1], {"begin_mask": [1, 0], "end_mask": [0, 1]}, "[0,3,4]"),
        ("2,3,4", [1, 2], [0, 0], [1, 1], {"shrink_axis_mask": [1, 1]}, "[4]"),
        ("2,3,4", [0, 1], [0, 3], [1, 2], {"new_axis_mask": [1, 0]}, "[1,1,3,4]"),
        ("2,3,4", [0, -1], [0, 0], [1, 1], {"ellipsis_mask": [1, 0], "shrink_axis_mask": [0, 1]},
         "[2,3]"),
        ("?,3..8,4", [0, 1], [5, 3], [1, 1], {}, "[..5,2,4]"),
        ("2,3,4", [0], [1], None, {}, "[1,3,4]"),
    ],
)  # fmt: skip
def test_shapes(
    x: str, begin: list[int], end: list[int], strides: Any, masks: dict[str, Any], expected: str
) -> None:
    assert str(sliced(data(x), begin, end, strides, **masks).shape) == expected


def test_begin_and_end_at_run_time() -> None:
    unknown = TensorInfo(I64, Shape.of(2))
    out = sliced(data("5,4,3"), unknown, unknown, [2, -1])
    assert str(out.shape) == "[..3,..4,3]"  # any begin and end: at most a stride's share


@pytest.mark.parametrize(
    ("x", "begin", "end", "masks", "value"),
    [  # Open Model Zoo's shape arithmetic: parts of a ShapeOf, as values
        ("1,3,224,320", [0], [1], {}, [1]),
        ("1,3,224,320", [2], [0], {"end_mask": [1]}, [224, 320]),
        ("1,3,224,320", [-1], [0], {"shrink_axis_mask": [1]}, 320),
    ],
)
def test_values_flow(x: str, begin: list[int], end: list[int], masks: Any, value: Any) -> None:
    out = sliced(shape_of(x), begin, end, [1], **masks)
    assert out.value is not None
    np.testing.assert_array_equal(out.value, np.array(value))


def test_bounds_flow() -> None:
    out = sliced(shape_of("?,3,2..5,7"), [1], [0], [1], end_mask=[1])
    assert out.bounds is not None
    assert out.bounds.lower == (3, 2, 7) and out.bounds.upper[1:] == (5, 7)


@pytest.mark.parametrize(
    ("begin", "end", "strides", "masks", "message"),
    [
        ([0, 1], [2], [1, 1], {}, "Begin and end need to have same number of values."),
        ([0], [2], [1, 1], {}, "Stride needs to have same number of values as begin and end."),
        ([0], [2], [0], {}, "Stride must be non-zero"),
        ([0], [2], [1], {"begin_mask": [2]}, "All masks of StridedSlice must have be 0 or 1"),
        ([0], [2], [1], {"end_mask": [0, 0]}, "All masks of StridedSlice must have the same size"),
        ([0, 0], [1, 1], [1, 1], {"ellipsis_mask": [1, 1]}, "At most one ellipsis is allowed."),
        ([0] * 4, [1] * 4, [1] * 4, {}, "Input rank plus number of new axis has to be at least"),
        ([0] * 5, [1] * 5, [1] * 5, {"ellipsis_mask": [1, 0, 0, 0, 0]},
         "Accessing out-of-range dimension"),
    ],
)  # fmt: skip
def test_read_model_refuses(
    begin: list[int], end: list[int], strides: list[int], masks: Any, message: str
) -> None:
    with pytest.raises(ShapeError, match=message):
        sliced(data("2,3,4"), begin, end, strides, **masks)


def test_bounds_of_a_float_type_are_refused() -> None:
    floats = TensorInfo(element_type("f32"), Shape.of(1), np.array([0.0], np.float32))
    with pytest.raises(ShapeError, match="Begin mask must be an integral number, but is: f32"):
        infer(op(1), data("2,3"), floats, const([1]))


@pytest.mark.parametrize(("begin", "refused"), [([1], False), ([-2], False), ([2], True)])
def test_a_shrunk_index_outside_its_axis_does_not_compile(begin: list[int], refused: bool) -> None:
    reported: list[OpReport] = []
    context = LayerContext(frozenset(), reported.append, _no_weights)
    inputs = [data("2,3"), const(begin), const([0]), const([1])]
    check_refusals(op(1, shrink_axis_mask=[1]), inputs, context)
    assert [r.code for r in reported] == (
        [CPU_STRIDED_SLICE_SHRINK_OUT_OF_RANGE] if refused else []
    )
