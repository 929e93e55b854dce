"""GridSample-9 shapes and refusals as OpenVINO 2026.4.1's `read_model` infers them (measured,
docs/ops/GridSample.md#shape-inference)."""

from __future__ import annotations

import pytest

from irpool.element_types import element_type
from irpool.ops.base import ShapeError, TensorInfo
from irpool.ops.grid_sample import GridSample9
from tests.ops.inferring import infer, parse

BILINEAR = GridSample9({"align_corners": False, "mode": "bilinear", "padding_mode": "zeros"})


def tensor(shape: str, kind: str = "f32") -> TensorInfo:
    return TensorInfo(element_type(kind), parse(shape))


@pytest.mark.parametrize(
    ("data", "grid", "output"),
    [  # read_model's output shapes
        ("2,3,4,5", "2,6,7,2", "2,3,6,7"),
        ("?,3,4,5", "1..4,6,?,2", "1..4,3,6,?"),
        ("2..6,?,4,5", "1..4,6,?,?", "2..4,?,6,?"),
        ("...", "1..4,6,?,?", "1..4,?,6,?"),
        ("2..6,3,4,5", "...", "2..6,3,?,?"),
        ("0,3,0,5", "0,6,7,2", "0,3,6,7"),
    ],
)
def test_shapes(data: str, grid: str, output: str) -> None:
    (result,) = infer(BILINEAR, tensor(data), tensor(grid))
    assert result.shape == parse(output)
    assert result.element_type == "f32"


def test_output_takes_the_data_type() -> None:
    (result,) = infer(BILINEAR, tensor("1,2,3,4", "i32"), tensor("1,5,6,2", "f16"))
    assert result.element_type == "i32"


@pytest.mark.parametrize(
    ("data", "grid", "message"),
    [  # read_model's messages
        ("2,3,4,5", "3,6,7,2", "The batch dimension in the input data tensor's shape"),
        ("2,3,4,5", "2,6,7,3", "The last dimension of grid tensor's shape has to be equal to 2."),
        ("2,3,4", "2,6,7,2", "The supported shape of the input data tensor is 4D."),
        ("2,3,4,5", "2,6,7,2,1", "The supported shape of the grid tensor is 4D."),
    ],
)
def test_refusals(data: str, grid: str, message: str) -> None:
    with pytest.raises(ShapeError, match=message.replace(".", r"\.")):
        infer(BILINEAR, tensor(data), tensor(grid))


def test_grid_must_be_floating_point() -> None:
    with pytest.raises(ShapeError, match="must be a floating point type"):
        infer(BILINEAR, tensor("2,3,4,5"), tensor("2,6,7,2", "i32"))
