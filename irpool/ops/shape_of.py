"""ShapeOf-1 (opset1-2) and ShapeOf-3 (opset3-17): the input's shape as a 1-D integer tensor.

ShapeOf-1 gives i64; ShapeOf-3 `output_type` i32 or i64, which `read_model` requires (absent:
"Output type must be i32 or i64", as for any other type). Its value is known whenever the input's
shape is static, and OpenVINO then folds it; otherwise each element's bounds are its dim's
interval (irpool/ops/bounds.py), which is how Gather, Concat and Reshape downstream keep the
dims a dynamic model still knows.
"""

from __future__ import annotations

from collections.abc import Sequence

from irpool.element_types import I32, I64, element_type
from irpool.ops.base import Attr, AttrType, LayerContext, Op, TensorInfo
from irpool.ops.bounds import BOUNDED_SIZE, Bounds, bounded
from irpool.ops.explanation import Explanation
from irpool.ops.registry import register
from irpool.shape import Dim, Shape


class _ShapeOf(Op):
    takes_strings = True
    infers_from_shapes = True
    type_name = "ShapeOf"
    input_names = ("data",)

    @property
    def output_type(self) -> str:
        return I64

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        shape = inputs[0].shape
        kind = element_type(self.output_type)
        if shape.dims is None:
            return [TensorInfo(kind, Shape((Dim.dynamic(),)))]
        out = Shape.of(len(shape.dims))
        if len(shape.dims) > BOUNDED_SIZE:
            return [TensorInfo(kind, out)]
        return [bounded(kind, out, Bounds.of_dims(shape.dims))]

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        data = inputs[0]
        of = "an unknown shape" if data is None else f"{data.shape}"
        return Explanation(f"the shape of {of}, as {self.output_type}", [])


@register
class ShapeOf1(_ShapeOf):
    version = 1
    opsets = range(1, 3)


@register
class ShapeOf3(_ShapeOf):
    version = 3
    opsets = range(3, 18)
    attributes = (Attr("output_type", AttrType.ENUM, choices=(I32, I64), mandatory=True),)

    @property
    def output_type(self) -> str:
        output_type: str = self.attrs["output_type"]
        return output_type
