"""NonZero-3 (opset3-17): the indices of the input's non-zero elements, one row per axis.

What OpenVINO 2026.4 does (measured, docs/ops/NonZero.md): `output_type` i64 (the default when
absent) or i32 ("Output type must be i32 or i64" for any other type; `I32` loads). The output
is [rank, count]: `read_model` infers count in [0, elements] (unbounded when a dim is), 0 when
a dim can only be 0; a scalar or a dynamic rank gives [?,?]. It folds no value: a NonZero of a Const
still has an interval count after `read_model`, and the CPU plugin's compile-time folding
gives a zero scalar [0, 0] where its kernel gives [1, 0]. NaN counts as non-zero, -0 as zero.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from irpool.element_types import I32, I64, element_type
from irpool.ops.base import Attr, AttrType, LayerContext, Op, TensorInfo
from irpool.ops.explanation import Explanation
from irpool.ops.registry import register
from irpool.shape import Dim, Shape

if TYPE_CHECKING:
    from numpy.typing import NDArray


@register
class NonZero3(Op):
    type_name = "NonZero"
    version = 3
    opsets = range(3, 18)
    input_names = ("data",)
    sized_by_values = True
    attributes = (Attr("output_type", AttrType.ENUM, default=I64, choices=(I32, I64)),)

    @property
    def output_type(self) -> str:
        output_type: str = self.attrs["output_type"]
        return output_type

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        kind = element_type(self.output_type)
        dims = inputs[0].shape.dims
        if not dims:  # a dynamic rank, or a scalar
            return [TensorInfo(kind, Shape((Dim.dynamic(), Dim.dynamic())))]
        highs = [d.high for d in dims]
        if 0 in highs:  # no element, whatever the other dims
            count = Dim.static(0)
        elif None in highs:
            count = Dim.dynamic()
        else:
            count = Dim(0, math.prod(high for high in highs if high is not None))
        return [TensorInfo(kind, Shape((Dim.static(len(dims)), count)))]

    def fold_constant(self, inputs: Sequence[NDArray[Any]]) -> NDArray[Any] | None:
        """OpenVINO's folding (the CPU plugin folds a NonZero of constants when it compiles)
        gives a zero scalar no row: [0, 0], where the kernel gives [1, 0]."""
        data = inputs[0]
        if data.ndim or bool(data):
            return None
        import numpy as np  # folding runs in the engine, which has NumPy loaded

        return np.zeros((0, 0), element_type(self.output_type).held_dtype)

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        return Explanation(f"indices of the non-zero elements, as {self.output_type}", [])
