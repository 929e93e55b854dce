"""The unary math family: Abs, Sqrt, Exp, Log, Sin, Cos, Tan, Tanh, Asin, Acos, Atan, Sinh,
Cosh, Ceiling, Negative, Sign (-1, opset1-16), Asinh, Acosh, Atanh, SoftPlus, Mish (-4,
opset4-16) and SoftSign (-9, opset9-16): one tensor in, its shape and element type out. One
class per op, generated from `UNARY_MATH`.

What `read_model` refuses (measured on every element type, docs/elementwise.md#unary-math):
a boolean input for all of them; SoftPlus, SoftSign and Mish also any input that is not
floating point, each with its own message. Integer constants fold exactly where OpenVINO's
reference is exact in the type (Abs, Negative, Sign, Ceiling: shape arithmetic); the others are
left to the run. The kernel is irpool.execute.kernels.unary_math.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from irpool.ops.activations import Activation
from irpool.ops.base import LayerContext, ShapeError, TensorInfo
from irpool.ops.registry import register_member

if TYPE_CHECKING:
    from numpy.typing import NDArray

Fold = Callable[["NDArray[Any]"], "NDArray[Any]"]


def _abs(values: NDArray[Any]) -> NDArray[Any]:
    import numpy as np

    result: NDArray[Any] = np.abs(values)  # wraps at the type's minimum, as in C++
    return result


def _negative(values: NDArray[Any]) -> NDArray[Any]:
    import numpy as np

    result: NDArray[Any] = np.negative(values)  # wraps, unsigned types too
    return result


def _sign(values: NDArray[Any]) -> NDArray[Any]:
    import numpy as np

    result: NDArray[Any] = np.sign(values)
    return result


def _itself(values: NDArray[Any]) -> NDArray[Any]:
    return values


@dataclass(frozen=True, slots=True)
class UnaryRow:
    type_name: str
    version: int
    formula: str  # for `irpool explain`
    float_only: str = ""  # read_model's message for an input that is not floating point
    fold: Fold | None = None  # OpenVINO's exact result on integer constants


FLOAT = "Input element type must be float. Got: {}"
FLOAT_SOFTSIGN = "Input element type must be float, instead got: {}"
FLOAT_MISH = "Element must be of floating point type, Got: {}"
UNARY_MATH = (
    UnaryRow("Abs", 1, "|x|", fold=_abs),
    UnaryRow("Sqrt", 1, "sqrt(x)"),
    UnaryRow("Exp", 1, "exp(x)"),
    UnaryRow("Log", 1, "ln(x)"),
    UnaryRow("Sin", 1, "sin(x)"),
    UnaryRow("Cos", 1, "cos(x)"),
    UnaryRow("Tan", 1, "tan(x)"),
    UnaryRow("Tanh", 1, "tanh(x)"),
    UnaryRow("Asin", 1, "asin(x)"),
    UnaryRow("Acos", 1, "acos(x)"),
    UnaryRow("Atan", 1, "atan(x)"),
    UnaryRow("Asinh", 4, "asinh(x)"),
    UnaryRow("Acosh", 4, "acosh(x)"),
    UnaryRow("Atanh", 4, "atanh(x)"),
    UnaryRow("Sinh", 1, "sinh(x)"),
    UnaryRow("Cosh", 1, "cosh(x)"),
    UnaryRow("Ceiling", 1, "ceil(x)", fold=_itself),
    UnaryRow("Negative", 1, "-x", fold=_negative),
    UnaryRow("Sign", 1, "sign(x)", fold=_sign),
    UnaryRow("SoftPlus", 4, "ln(1 + exp(x))", float_only=FLOAT),
    UnaryRow("SoftSign", 9, "x / (1 + |x|)", float_only=FLOAT_SOFTSIGN),
    UnaryRow("Mish", 4, "x * tanh(ln(1 + exp(x)))", float_only=FLOAT_MISH),
)  # fmt: skip


class UnaryMath(Activation):
    """A member of the family; `row` is its line of `UNARY_MATH`."""

    row: UnaryRow

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data = inputs[0]
        float_only = self.row.float_only
        if float_only and not (data.type.is_float or data.type.is_dynamic):
            raise ShapeError(float_only.format(data.element_type))
        return super().infer(inputs, ctx)

    def fold_integers(self, values: NDArray[Any]) -> NDArray[Any] | None:
        return None if self.row.fold is None else self.row.fold(values)


BY_TYPE = {
    row.type_name: register_member(
        UnaryMath,
        f"{row.type_name}{row.version}",
        __name__,
        {
            "type_name": row.type_name,
            "version": row.version,
            "opsets": range(row.version, 17),
            "formula": row.formula,
            "row": row,
            "__doc__": f"{row.type_name}-{row.version}: {row.formula}, element by element.",
        },
    )
    for row in UNARY_MATH
}
