"""The unary math family's element types and constant folding, as OpenVINO 2026.4.1's
`read_model` has them (measured on every element type, docs/elementwise.md#unary-math)."""

from __future__ import annotations

import numpy as np
import pytest

from irpool.element_types import element_type
from irpool.ops.base import ShapeError, TensorInfo
from irpool.ops.unary_math import BY_TYPE, UNARY_MATH
from irpool.shape import Shape
from tests.execute.running import quiet_context

FLOAT_ONLY = [row.type_name for row in UNARY_MATH if row.float_only]
TYPES = ("f32", "f16", "bf16", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")


def infer(op: str, kind: str, value: np.ndarray | None = None) -> TensorInfo:
    data = TensorInfo(
        element_type(kind), Shape.of(2, 3) if value is None else Shape.of(*value.shape), value
    )
    (out,) = BY_TYPE[op]({}).infer([data], quiet_context())
    return out


@pytest.mark.parametrize("op", list(BY_TYPE))
@pytest.mark.parametrize("kind", TYPES)
def test_types_read_model_accepts(op: str, kind: str) -> None:
    if op in FLOAT_ONLY and element_type(kind).is_integer:
        with pytest.raises(ShapeError, match="float"):
            infer(op, kind)
        return
    out = infer(op, kind)
    assert (out.element_type, str(out.shape)) == (kind, "[2,3]")


@pytest.mark.parametrize("op", list(BY_TYPE))
def test_boolean_is_refused(op: str) -> None:
    with pytest.raises(ShapeError):
        infer(op, "boolean")


@pytest.mark.parametrize(
    ("op", "values", "expected"),
    [
        ("Abs", [-3, 4, -(2**63)], [3, 4, -(2**63)]),  # the reference wraps in i64
        ("Negative", [3, -4, 2**40], [-3, 4, -(2**40)]),
        ("Sign", [-7, 0, 9], [-1, 0, 1]),
        ("Ceiling", [-7, 0, 9], [-7, 0, 9]),
        ("Sqrt", [4, 9], None),  # left to the run
    ],
)
def test_integer_constants_fold(op: str, values: list[int], expected: list[int] | None) -> None:
    out = infer(op, "i64", np.array(values, np.int64))
    if expected is None:
        assert out.value is None
    else:
        assert out.value is not None and out.value.tolist() == expected
