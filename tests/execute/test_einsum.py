"""Einsum-7: equations and shapes as OpenVINO 2026.4.1's `read_model` reads them, values as
numpy.einsum in f32 (measured against the CPU plugin within the bound of docs/ops/Einsum.md;
the live comparison is tests/differential/test_einsum.py)."""

from __future__ import annotations

import numpy as np
import pytest

from irpool.element_types import element_type
from irpool.ops.base import NotInferable, ShapeError, TensorInfo
from irpool.ops.einsum import Einsum7
from tests.execute.running import compute
from tests.ops.inferring import data, infer, parse


@pytest.mark.parametrize(
    ("equation", "shapes", "expected"),
    [  # read_model's shapes
        ("bhqd,bhkd->bhqk", ["2,4,5,8", "2,4,6,8"], "2,4,5,6"),
        ("ij,jk", ["2,3", "3,4"], "2,4"),  # implicit: the labels seen once, sorted
        ("ij->ji", ["2,3"], "3,2"),
        ("ii->i", ["3,3"], "3"),
        ("ij->", ["2,3"], ""),
        ("...ij,...jk->...ik", ["5,2,3", "1,3,4"], "5,2,4"),
        ("...ij->ij", ["5,2,3"], "2,3"),
        ("ij,jk->ik", ["?,3", "3,2..5"], "?,2..5"),
        ("bij,bjk->bik", ["1,2,3", "4,3,5"], "4,2,5"),  # 1 broadcasts
        ("ij,j->i", ["2,3", "1"], "2"),
        ("iJ->Ji", ["2,3"], "3,2"),
        ("ij->ii", ["2,3"], "2,2"),
    ],
)
def test_shapes(equation: str, shapes: list[str], expected: str) -> None:
    (out,) = infer(Einsum7({"equation": equation}), *[data(s) for s in shapes])
    assert out.shape == parse(expected)


@pytest.mark.parametrize(
    ("equation", "shapes", "message"),
    [
        ("ij,jk->ik", ["2,3", "4,4"], "same labels for Einsum must be broadcastable"),
        (
            "...ij,...jk->...ik",
            ["5,2,3", "2,3,4"],
            "labeled with ellipsis for Einsum must be broadcastable",
        ),
        ("ij,jk->ik", ["2,3"], "number of subscripts equal to a number of Einsum inputs"),
        ("i j->j i", ["2,3"], "only alphabetic letters or alphabetic letters with one ellipsis"),
        ("ij->k", ["2,3"], "must enter at least one input subscript"),
        (
            "ij,jk->ik",
            ["2,3,1", "3,4"],
            "Input rank must be greater or equal to a number of labels",
        ),
        ("ii->i", ["1,8"], "repeated labels within single input node"),
    ],
)
def test_what_read_model_refuses(equation: str, shapes: list[str], message: str) -> None:
    with pytest.raises(ShapeError, match=message):
        infer(Einsum7({"equation": equation}), *[data(s) for s in shapes])


def test_inputs_of_two_types_are_refused() -> None:
    f16 = TensorInfo(element_type("f16"), parse("3,4"))
    with pytest.raises(ShapeError, match="must have the same type"):
        infer(Einsum7({"equation": "ij,jk->ik"}), data("2,3"), f16)


def test_an_implicit_output_of_a_repeated_label_is_left_to_openvino() -> None:
    """read_model gives "ii" the output [3,3], where numpy's rule gives a trace."""
    with pytest.raises(NotInferable):
        infer(Einsum7({"equation": "ii"}), data("3,3"))


def test_values() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    (result,) = compute(Einsum7({"equation": "ij,jk->ik"}), [a, b])
    assert result is not None and result.dtype == np.float32
    np.testing.assert_array_equal(result, a @ b)
    ints = [a.astype(np.int32), b.astype(np.int32)]
    (product,) = compute(Einsum7({"equation": "ij,jk->ik"}), ints)  # measured: exact on CPU
    assert product is not None and product.dtype == np.int32
    np.testing.assert_array_equal(product, ints[0] @ ints[1])
