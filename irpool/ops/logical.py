"""The logical and bitwise families: LogicalAnd, LogicalOr, LogicalXor, LogicalNot (-1,
opset1-16), BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot (-13, opset13-16),
BitwiseLeftShift and BitwiseRightShift (-15, opset15-16). The binary ones broadcast as the
arithmetic ops (irpool.ops.arithmetic); each op's class is generated from its table row.

What `read_model` accepts (measured on every element type, docs/elementwise.md#logical-and-bitwise):
LogicalAnd, LogicalOr and LogicalXor boolean only; LogicalNot every type (its output has the
input's type); BitwiseAnd, BitwiseOr, BitwiseXor and BitwiseNot integers and boolean; the
shifts integers only. Constants fold exactly in their type (a causal mask's BitwiseAnd of
booleans); a shift folds where its count is within the type's width. The kernel is
irpool.execute.kernels.logical.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from irpool.ops.arithmetic import Binary
from irpool.ops.base import LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.explanation import Explanation
from irpool.ops.folding import folded
from irpool.ops.registry import register_member

if TYPE_CHECKING:
    from numpy.typing import NDArray

BOOLEAN_ONLY = (
    "Operands for logical operators must have boolean element type but have element type {}."
)
INTEGER_OR_BOOLEAN = "The element type of the input tensor must be integer or boolean."
INTEGER_ONLY = "The element type of the input tensor must be integer number."


@dataclass(frozen=True, slots=True)
class LogicalRow:
    type_name: str
    version: int
    symbol: str  # for `irpool explain`
    reference: str  # NumPy's function, exact in the type
    accepts: str  # "boolean", "integer or boolean", "integer" or "any"


LOGICAL = (
    LogicalRow("LogicalAnd", 1, "and", "logical_and", "boolean"),
    LogicalRow("LogicalOr", 1, "or", "logical_or", "boolean"),
    LogicalRow("LogicalXor", 1, "xor", "logical_xor", "boolean"),
    LogicalRow("LogicalNot", 1, "not", "logical_not", "any"),
    LogicalRow("BitwiseAnd", 13, "&", "bitwise_and", "integer or boolean"),
    LogicalRow("BitwiseOr", 13, "|", "bitwise_or", "integer or boolean"),
    LogicalRow("BitwiseXor", 13, "^", "bitwise_xor", "integer or boolean"),
    LogicalRow("BitwiseNot", 13, "~", "invert", "integer or boolean"),
    LogicalRow("BitwiseLeftShift", 15, "<<", "left_shift", "integer"),
    LogicalRow("BitwiseRightShift", 15, ">>", "right_shift", "integer"),
)  # fmt: skip


def _check_type(row: LogicalRow, info: TensorInfo) -> None:
    """ShapeError as read_model refuses the element type of an input of `row`'s op."""
    kind = info.type
    if kind.is_dynamic or row.accepts == "any":
        return
    if row.accepts == "boolean" and not kind.is_boolean:
        raise ShapeError(BOOLEAN_ONLY.format(info.element_type))
    if row.accepts == "integer or boolean" and not (kind.is_integer or kind.is_boolean):
        raise ShapeError(INTEGER_OR_BOOLEAN)
    if row.accepts == "integer" and not kind.is_integer:
        raise ShapeError(INTEGER_ONLY)


class LogicalBinary(Binary):
    """A binary member; `row` is its line of `LOGICAL`."""

    accepts_boolean = True
    row: ClassVar[LogicalRow]

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        for info in inputs:
            _check_type(self.row, info)
        return super().infer(inputs, ctx)

    def fold_constant(self, inputs: Sequence[NDArray[Any]]) -> NDArray[Any] | None:
        a, b = inputs
        if a.dtype.kind not in "iub" or self.auto_broadcast == "pdpd":
            return None
        if self.row.accepts == "integer" and not _within_width(b, a.dtype):
            return None  # the reference's C++ shift is undefined there
        import numpy as np

        result: NDArray[Any] = getattr(np, self.reference)(a, b.astype(a.dtype))
        return result


def _within_width(counts: NDArray[Any], dtype: Any) -> bool:
    import numpy as np

    return bool(np.all((counts >= 0) & (counts < dtype.itemsize * 8)))


class LogicalUnary(Op):
    """LogicalNot and BitwiseNot: one tensor in, its shape and element type out."""

    version = 1
    opsets = range(1, 17)
    input_names = ("data",)
    row: ClassVar[LogicalRow]

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data = inputs[0]
        _check_type(self.row, data)
        value = folded(data, self._fold) if data.type.is_integer or data.type.is_boolean else None
        return [TensorInfo(data.type, data.shape, value)]

    def _fold(self, values: NDArray[Any]) -> NDArray[Any]:
        import numpy as np

        result: NDArray[Any] = getattr(np, self.row.reference)(values)
        if self.row.type_name == "LogicalNot" and values.dtype != np.bool_:
            result = result.astype(values.dtype)  # 1 where the input is 0
        return result

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        return Explanation(f"element by element: {self.row.symbol} x", [])


BY_TYPE: dict[str, type[Op]] = {
    row.type_name: register_member(
        LogicalUnary if row.type_name.endswith("Not") else LogicalBinary,
        f"{row.type_name}{row.version}",
        __name__,
        {
            "type_name": row.type_name,
            "version": row.version,
            "opsets": range(row.version, 17),
            "symbol": row.symbol,
            "reference": row.reference,
            "row": row,
            "__doc__": f"{row.type_name}-{row.version}: element by element, {row.symbol}.",
        },
    )
    for row in LOGICAL
}
