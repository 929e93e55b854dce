"""Roll-7 (opset7-16): the data shifted cyclically by `shift` along `axes`, the shape and
element type kept.

What OpenVINO 2026.4 does (measured, docs/ops/Roll.md): `shift` and `axes` are i32 or
i64 ("Shift must have int32 or int64 element type."), each a scalar or 1-D ("Shift must be a
scalar or 1D tensor."); a 1-D shift needs 1-D axes of its size ("If shift is a 1D vector, axes
must be a 1D tensor of the same size."); each axis in [-rank, rank - 1], a scalar counting as
rank 1 ("Axis 2 out of the tensor rank range [-2, 1]."), repeats adding up. `read_model`
takes a scalar shift with several axes, but the CPU plugin cannot compile it ("'shift' and
'axes' dimensions mismatch"; an empty tensor it compiles): IR609. The kernel is in
irpool.execute.kernels.roll.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from irpool.element_types import I32, I64
from irpool.ops.base import LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.explanation import Explanation
from irpool.ops.reduce import Reduce
from irpool.ops.registry import register


@register
class Roll7(Op):
    type_name = "Roll"
    version = 7
    opsets = range(7, 17)
    input_names: ClassVar[tuple[str, ...]] = ("data", "shift", "axes")

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, shift, axes = inputs
        for info, name in ((shift, "Shift"), (axes, "Axes")):
            if info.element_type not in (I32, I64) and not info.type.is_dynamic:
                raise ShapeError(f"{name} must have int32 or int64 element type.")
            if info.shape.rank is not None and info.shape.rank > 1:
                raise ShapeError(f"{name} must be a scalar or 1D tensor.")
        if shift.shape.rank == 1 and (
            axes.shape.rank == 0
            or (shift.shape.is_static and axes.shape.is_static and shift.shape != axes.shape)
        ):
            raise ShapeError("If shift is a 1D vector, axes must be a 1D tensor of the same size.")
        if axes.value is not None and data.shape.rank is not None:
            Reduce.normalized_axes(axes.value, data.shape.rank)
        return [TensorInfo(data.type, data.shape)]

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        shift = inputs[1] if len(inputs) > 1 else None
        axes = inputs[2] if len(inputs) > 2 else None
        if shift is None or axes is None or shift.value is None or axes.value is None:
            return Explanation("a cyclic shift, by shifts along axes given at run time", [])
        return Explanation(f"a cyclic shift by {shift.value} along axes {axes.value}", [])
