"""Split-1 (opset1-16): `data` cut along `axis` into `num_splits` equal pieces.

What OpenVINO 2026.4 checks (measured, docs/ops/Split.md): `num_splits` above 0
("Attribute 'num_splits' must be greater than zero. Got: 0"); `axis` of an integer type
("Element type of 'axis' input must be integer. Got: f32"), a scalar ("'axis' input must be
a scalar. Got: [1]"), in [-rank, rank-1]; a static axis divisible by `num_splits` ("Dimension
of data input shape along 'axis': 5 must be evenly divisible by 'num_splits' attribute
value: 2"), an interval's upper end at least `num_splits` ("The interval maximum of the
dimension ... must be greater or equal to 'num_splits' attribute. Got: Interval(2, 3) and
4"); an interval's ends are each divided, rounded down (3..13 in 2: 1..6).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from irpool.element_types import takes_integer_input
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo, read_value
from irpool.ops.concat import axis_in_range
from irpool.ops.explanation import Explanation
from irpool.ops.folding import integer_values
from irpool.ops.registry import register
from irpool.ops.variadic_split import VariadicSplit1
from irpool.shape import Dim

if TYPE_CHECKING:
    from numpy.typing import NDArray


@register
class Split1(Op):
    """Split-1: inputs `data` and `axis`; `num_splits` outputs."""

    takes_strings = True
    type_name = "Split"
    version = 1
    opsets = range(1, 17)
    input_names: ClassVar[tuple[str, ...]] = ("data", "axis")
    attributes: ClassVar[tuple[Attr, ...]] = (Attr("num_splits", AttrType.INT, mandatory=True),)
    variadic_outputs = True

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, axis = inputs
        count: int = self.attrs["num_splits"]
        if count <= 0:
            raise ShapeError(f"Attribute 'num_splits' must be greater than zero. Got: {count}")
        if ctx.used_outputs and max(ctx.used_outputs) >= count:
            raise ShapeError(
                f"output {max(ctx.used_outputs)} is read, but num_splits makes {count} output(s)"
            )
        if not takes_integer_input(axis.element_type):
            raise ShapeError(
                f"Element type of 'axis' input must be integer. Got: {axis.element_type}"
            )
        if axis.shape.rank is not None and axis.shape.rank != 0:
            raise ShapeError(f"'axis' input must be a scalar. Got: {axis.shape}")
        if data.shape.rank == 0:
            raise ShapeError("Accessing out-of-range dimension")
        read_value(axis, "the axis")
        position = integer_values(axis)
        if data.shape.dims is None or position is None:
            return VariadicSplit1.unknown_pieces(data, count)
        index = axis_in_range(position[0], len(data.shape))
        piece = self.piece(data.shape[index])
        return VariadicSplit1.pieces_of(data, index, [piece] * count)

    def piece(self, dim: Dim) -> Dim:
        """Each piece's length along the axis, or OpenVINO's refusal."""
        count: int = self.attrs["num_splits"]
        if dim.is_static and dim.value % count:
            raise ShapeError(
                f"Dimension of data input shape along 'axis': {dim.value} must be evenly "
                f"divisible by 'num_splits' attribute value: {count}"
            )
        if not dim.is_static and dim.high is not None and dim.high < count:
            raise ShapeError(
                "The interval maximum of the dimension for data input shape along 'axis' must "
                f"be greater or equal to 'num_splits' attribute. Got: Interval({dim.low}, "
                f"{dim.high}) and {count}"
            )
        return Dim(dim.low // count, None if dim.high is None else dim.high // count)

    def pieces(self, shape: tuple[int, ...], rest: Sequence[NDArray[Any]]) -> tuple[int, list[int]]:
        """The axis and each piece's length for concrete inputs (what the kernel uses)."""
        axis = axis_in_range(int(rest[0].ravel()[0]), len(shape))
        return axis, [self.piece(Dim.static(shape[axis])).value] * self.attrs["num_splits"]

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        return Explanation(f"{self.attrs['num_splits']} equal pieces", [])
