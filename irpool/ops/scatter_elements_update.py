"""ScatterElementsUpdate-3 (opset3-11) and -12 (opset12-17): `data` with the elements that
`indices` name along `axis` replaced by (or, from -12 on, combined with, `reduction`) the
`updates` at the same positions; `use_init_val` (-12) says whether the data's element takes
part in the reduction.

What OpenVINO 2026.4 infers (measured, docs/ops/ScatterElementsUpdate.md): the output is the
data; indices of an integer type ("Indices element type must be integral_number, but is: f32")
of the data's rank ("Indices rank and data rank are required to be equal. Got: 1 and: 2"),
updates of the indices' shape ("Indices and updates input shapes are required to be equal.")
and the data's type ("Data type and updates type are required to be the same."); `axis` an
integer scalar or 1-D ("Axis input shape are required to be scalar or 1D tensor. Got: [1,1]")
in range. The kernel is in irpool.execute.kernels.scatter_elements_update.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from irpool.element_types import takes_integer_input
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo, read_value
from irpool.ops.concat import axis_in_range
from irpool.ops.explanation import Explanation
from irpool.ops.folding import integer_values
from irpool.ops.registry import register

REDUCTIONS = ("none", "sum", "prod", "min", "max", "mean")


class _ScatterElementsUpdate(Op):
    type_name = "ScatterElementsUpdate"
    input_names: ClassVar[tuple[str, ...]] = ("data", "indices", "updates", "axis")
    attributes = (
        Attr("reduction", AttrType.ENUM, default="none", choices=REDUCTIONS, since=12),
        Attr("use_init_val", AttrType.BOOL, default=True, since=12),
    )

    @property
    def reduction(self) -> str:
        return str(self.attrs.get("reduction", "none"))

    @property
    def use_init_val(self) -> bool:
        return bool(self.attrs.get("use_init_val", True))

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, indices, updates, axis = inputs
        for info, name in ((indices, "Indices"), (axis, "Axis")):
            if not takes_integer_input(info.element_type):
                raise ShapeError(
                    f"{name} element type must be integral_number, but is: {info.element_type}"
                )
        if data.element_type != updates.element_type and not (
            data.type.is_dynamic or updates.type.is_dynamic
        ):
            raise ShapeError(
                "Data type and updates type are required to be the same. Got: "
                f"{data.element_type} and: {updates.element_type}"
            )
        if axis.shape.rank is not None and axis.shape.rank > 1:
            raise ShapeError(
                f"Axis input shape are required to be scalar or 1D tensor. Got: {axis.shape}"
            )
        ranks = indices.shape.rank, data.shape.rank
        if None not in ranks and ranks[0] != ranks[1]:
            raise ShapeError(
                "Indices rank and data rank are required to be equal. Got: "
                f"{ranks[0]} and: {ranks[1]}"
            )
        if (
            indices.shape.dims is not None
            and updates.shape.dims is not None
            and (
                len(indices.shape) != len(updates.shape)
                or any(
                    a.overlap(b) is None for a, b in zip(indices.shape, updates.shape, strict=True)
                )
            )
        ):
            raise ShapeError(
                "Indices and updates input shapes are required to be equal. Got: "
                f"{indices.shape} and: {updates.shape}"
            )
        read_value(axis, "the axis")
        values = integer_values(axis)
        if values is not None and data.shape.rank:
            axis_in_range(values[0], data.shape.rank)
        return [TensorInfo(data.type, data.shape)]

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        axis = inputs[3] if len(inputs) > 3 else None
        values = None if axis is None else integer_values(axis)
        shown = "known at run time" if values is None else str(values[0])
        init = "" if self.use_init_val else ", without the data's values"
        return Explanation(f"axis {shown}, reduction {self.reduction}{init}", [])


@register
class ScatterElementsUpdate3(_ScatterElementsUpdate):
    version = 3
    opsets = range(3, 12)


@register
class ScatterElementsUpdate12(_ScatterElementsUpdate):
    version = 12
    opsets = range(12, 18)
