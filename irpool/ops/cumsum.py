"""CumSum-3 (opset3-17): the running sum of `data` along `axis`, attributes `exclusive` and
`reverse` (both default false); the shape and type are the data's.

What OpenVINO 2026.4 does (measured, docs/ops/CumSum.md): `axis` (required: a layer without
it fails to load) must be i32 or i64 ("axis element type must be either int64_t or int32_t
but got (f32)."); `read_model` takes an axis of any rank and out of range, which its CPU plugin
then refuses to compile (IR636). The kernel is in irpool.execute.kernels.cumsum.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from irpool.element_types import DYNAMIC, I32, I64
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.explanation import Explanation
from irpool.ops.folding import integer_values
from irpool.ops.registry import register


@register
class CumSum3(Op):
    type_name = "CumSum"
    version = 3
    opsets = range(3, 18)
    input_names: ClassVar[tuple[str, ...]] = ("data", "axis")
    attributes = (
        Attr("exclusive", AttrType.BOOL, default=False),
        Attr("reverse", AttrType.BOOL, default=False),
    )

    @property
    def exclusive(self) -> bool:
        return bool(self.attrs["exclusive"])

    @property
    def reverse(self) -> bool:
        return bool(self.attrs["reverse"])

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, axis = inputs
        if axis.element_type not in (I32, I64, DYNAMIC):
            raise ShapeError(
                "axis element type must be either int64_t or int32_t but got "
                f"({axis.element_type})."
            )
        return [TensorInfo(data.type, data.shape)]

    @staticmethod
    def axis_in_range(axis: int, rank: int) -> bool:
        """Whether the CPU plugin takes `axis` for data of `rank` (a scalar counts as 1)."""
        span = max(rank, 1)
        return -span <= axis < span

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        axis = inputs[1] if len(inputs) > 1 else None
        values = None if axis is None else integer_values(axis)
        shown = "known at run time" if values is None else ",".join(map(str, values))
        flags = [name for name in ("exclusive", "reverse") if self.attrs[name]]
        return Explanation(f"axis {shown}" + "".join(f", {flag}" for flag in flags), [])
