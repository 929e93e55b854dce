"""PriorBoxClustered-1: output shapes, values and bounds of `output_size`, and refusals with
the runtime's messages, as OpenVINO 2026.4's `read_model` gives them (measured:
docs/ops/PriorBoxClustered.md); the live comparison is
tests/differential/test_prior_box_clustered.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.element_types import element_type
from irpool.ops.base import ShapeError, TensorInfo
from irpool.ops.prior_box_clustered import PriorBoxClustered1
from irpool.shape import Shape
from tests.ops.inferring import const, data, infer, pick, shape_of

ATTRS = {"width": (2.0, 6.0), "height": (4.0, 3.0), "clip": True, "step": 0.0, "step_w": 0.0,
         "step_h": 0.0, "offset": 0.5, "variance": ()}  # fmt: skip
I64 = element_type("i64")


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        (const([2, 3]), "[2,48]"),
        (TensorInfo(I64, Shape.of(2)), "[2,?]"),  # computed at run time
        (pick(shape_of("1,8,2..4,5"), [2, 3]), "[2,80..160]"),  # a feature map's ShapeOf
    ],
)
def test_shapes(size: TensorInfo, expected: str) -> None:
    (out,) = infer(PriorBoxClustered1(ATTRS), size, const([8, 12]))
    assert str(out.shape) == expected and out.element_type == "f32"


@pytest.mark.parametrize(
    ("attrs", "size", "message"),
    [
        ({"height": (4.0,)}, const([2, 3]), "Size of heights vector: 1 doesn't match size of"),
        ({}, const([2, 3, 1]), "Output size must have two elements. Got: 3"),
        ({}, const([[2, 3]]), "output size input rank 2 must match image shape input rank 1"),
        ({}, data("2"), "output size input must be an integral number, but is: f32"),
    ],
)
def test_read_model_refuses(attrs: dict[str, Any], size: TensorInfo, message: str) -> None:
    with pytest.raises(ShapeError, match=message):
        infer(PriorBoxClustered1({**ATTRS, **attrs}), size, const(np.array([8, 12])))
