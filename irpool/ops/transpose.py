"""Transpose-1 (opset1-16): `data` with its axes permuted by `order`.

As OpenVINO 2026.4 infers it (measured): `order` is a 1-D integer tensor ("Input order must be
a vector.", "Input order must have an integral number element type."), of the data's rank
("Input order must have shape [n], where n is the rank of arg."), a permutation of it
("Permutation AxisVector{0, 0, 1} is not valid for input shape [2,3,4]", a negative entry printed
as its unsigned 64-bit wrap); an empty order reverses the axes. An order known only at run time
gives a dynamic dim per axis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from irpool.element_types import takes_integer_input
from irpool.ops.base import LayerContext, Op, ShapeError, TensorInfo, read_value
from irpool.ops.bounds import moved
from irpool.ops.const import refuse_unbacked
from irpool.ops.explanation import Explanation
from irpool.ops.folding import integer_values
from irpool.ops.pooling_geometry import csv
from irpool.ops.registry import register
from irpool.shape import Dim, Shape

if TYPE_CHECKING:
    from numpy.typing import NDArray


def permutation(order: Sequence[int], data: Shape) -> tuple[int, ...]:
    """The axes in output order (empty: reversed), or OpenVINO's refusal."""
    rank = len(data)
    if not order:
        return tuple(reversed(range(rank)))
    if sorted(order) != list(range(rank)):
        shown = ", ".join(str(v % (1 << 64)) for v in order)
        raise ShapeError(f"Permutation AxisVector{{{shown}}} is not valid for input shape {data}")
    return tuple(order)


@register
class Transpose1(Op):
    """Transpose-1: inputs `data` and `order`."""

    takes_strings = True
    type_name = "Transpose"
    version = 1
    opsets = range(1, 17)
    input_names = ("data", "order")

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, order = inputs
        if order.shape.rank is not None and order.shape.rank != 1:
            raise ShapeError("Input order must be a vector.")
        if not takes_integer_input(order.element_type):
            raise ShapeError("Input order must have an integral number element type.")
        length = order.shape[0] if order.shape.rank == 1 else Dim.dynamic()
        fits = merged_length(length, len(data.shape)) is not None or length.low == 0
        if data.shape.dims is not None and not fits:  # an empty order reverses any rank
            raise ShapeError("Input order must have shape [n], where n is the rank of arg.")
        refuse_unbacked(order, "order")
        read_value(order, "the order")
        values = integer_values(order)
        if values is None or data.shape.dims is None:
            if data.shape.dims is not None:
                return [TensorInfo(data.type, Shape((Dim.dynamic(),) * len(data.shape)))]
            if values is not None:  # even an empty one (measured: [] for a dynamic rank)
                return [TensorInfo(data.type, Shape((Dim.dynamic(),) * len(values)))]
            return [TensorInfo(data.type, Shape.dynamic())]
        axes = permutation(values, data.shape)
        shape = Shape(tuple(data.shape[axis] for axis in axes))
        return [moved(data, shape, lambda array: array.transpose(axes))]

    def axes(self, rank: int, rest: Sequence[NDArray[Any]]) -> tuple[int, ...]:
        """The permutation for a concrete input rank and order (what the kernel uses)."""
        order = [int(v) for v in rest[0].ravel()]
        return permutation(order, Shape((Dim.dynamic(),) * rank))

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        order = inputs[1] if len(inputs) > 1 else None
        values = None if order is None else integer_values(order)
        shown = "known at run time" if values is None else csv(values) or "reversed"
        return Explanation(f"order {shown}", [])


def merged_length(length: Dim, rank: int) -> int | None:
    """The order's length when it can be `rank`."""
    return rank if length.admits(rank) else None
