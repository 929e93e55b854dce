"""NonMaxSuppression-5 and -9: output shapes and types, and refusals with the runtime's
messages, as OpenVINO 2026.4's `read_model` gives them (measured:
docs/ops/NonMaxSuppression.md); the live comparison is
tests/differential/test_non_max_suppression.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.element_types import element_type
from irpool.ops.base import ShapeError, TensorInfo
from irpool.ops.non_max_suppression import NonMaxSuppression5, NonMaxSuppression9
from irpool.shape import Shape
from tests.ops.inferring import const, data, infer

ATTRS = {"box_encoding": "corner", "sort_result_descending": True, "output_type": "i64"}


def scalar(value: float) -> TensorInfo:
    return TensorInfo(element_type("f32"), Shape(()), np.array(value, np.float32))


@pytest.mark.parametrize(
    ("boxes", "scores", "maximum", "expected"),
    [  # read_model's (measured)
        ("1,6,4", "1,2,6", 3, "[..6,3]"),
        ("2,6,4", "2,3,6", 4, "[..24,3]"),
        ("2,6,4", "2,3,6", 0, "[0,3]"),
        ("2,6,4", "2,3,6", -4, "[?,3]"),
        ("2,6,4", "2,3,6", None, "[?,3]"),  # no max_output_boxes_per_class input
        ("?,6,4", "?,3,6", 4, "[?,3]"),
        ("2,?,4", "2,3,?", 4, "[?,3]"),
        ("2,1..3,4", "2,3,1", 2, "[..12,3]"),  # N by its upper bound
    ],
)
def test_shapes(boxes: str, scores: str, maximum: Any, expected: str) -> None:
    inputs = [data(boxes), data(scores)] + ([] if maximum is None else [const(maximum)])
    for version in (NonMaxSuppression5, NonMaxSuppression9):
        selected, chosen, count = infer(version(ATTRS), *inputs)
        assert str(selected.shape) == str(chosen.shape) == expected
        assert str(count.shape) == "[1]"
        assert (selected.element_type, chosen.element_type) == ("i64", "f32")


def test_output_type() -> None:
    attrs = {**ATTRS, "output_type": "i32"}
    selected, _, count = infer(NonMaxSuppression9(attrs), data("1,6,4"), data("1,2,6"))
    assert selected.element_type == count.element_type == "i32"


@pytest.mark.parametrize(
    ("boxes", "scores", "rest", "message"),
    [
        ("1,6", "1,2,6", [], "Expected a 3D tensor for the 'boxes' input"),
        ("1,6,4", "1,2", [], "Expected a 3D tensor for the 'scores' input"),
        ("2,6,4", "1,2,6", [], "The first dimension of both 'boxes' and 'scores' must match."),
        ("1,6,4", "1,2,5", [], "'boxes' and 'scores' input shapes must match"),
        ("1,6,5", "1,2,6", [], "The last dimension of the 'boxes' input must be equal to 4"),
        ("1,6,4", "1,2,6", [const([1, 2])], "Expected 0D or 1D tensor for the 'max_output"),
        ("1,6,4", "1,2,6", [const(1), data("2")], "Expected 0D or 1D tensor for the 'iou"),
        ("1,6,4", "1,2,6", [scalar(1.0)], "Expected integer type as element type"),
    ],
)
def test_read_model_refuses(boxes: str, scores: str, rest: list[Any], message: str) -> None:
    with pytest.raises(ShapeError, match=message):
        infer(NonMaxSuppression9(ATTRS), data(boxes), data(scores), *rest)
