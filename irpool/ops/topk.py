"""TopK-1 (opset1-2), TopK-3 (opset3-10) and TopK-11 (opset11-17): the k largest (`mode` max)
or smallest (min) elements along `axis` and their indices, ordered by value or by index
(`sort`; none gives the CPU's value order), indices in `index_element_type` (i32 or i64, from
TopK-3 on; TopK-1's are i32), ties kept in index order with TopK-11's `stable`.

What OpenVINO 2026.4 infers (measured, docs/ops/TopK.md): data of rank >= 1 ("Input rank must
be greater than 0."); k a scalar ("The 'K' input must be a scalar.") of i8, i32 or i64 for
TopK-1 ("K input element type must be i8, i32 or i64 (got f32).") or any integer type later
("K input has to be an integer type, which does match the provided one:f32"), not negative
("The value of 'K' must be greater or equal to zero. (got -1)."); the output axis has k
elements, even beyond the axis's length (the CPU refuses that and k = 0: IR637); a k known
only at run time gives the interval [0, axis]. A missing `mode` reads as max, `sort` as none,
`axis` as 0. The kernel is in irpool.execute.kernels.topk.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from irpool.element_types import I8, I32, I64, element_type, takes_integer_input
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo, read_value
from irpool.ops.concat import axis_in_range
from irpool.ops.explanation import Explanation
from irpool.ops.folding import integer_values
from irpool.ops.registry import register
from irpool.shape import Dim, Shape


class _TopK(Op):
    type_name = "TopK"
    input_names = ("data", "k")
    output_count = 2
    attributes = (
        Attr("axis", AttrType.INT, default=0, required=True),
        Attr("mode", AttrType.ENUM, default="max", required=True, choices=("max", "min")),
        Attr(
            "sort", AttrType.ENUM, default="none", required=True, choices=("value", "index", "none")
        ),
        Attr("index_element_type", AttrType.ENUM, default=I32, choices=(I32, I64), since=3),
        Attr("stable", AttrType.BOOL, default=False, since=11),
    )
    k_types: ClassVar[tuple[str, ...] | None] = None  # None: any integer type
    # The CPU kernel whose tie order is its own, if any: set per layer by
    # irpool.cpu.compilation (irpool/cpu/topk_order.py).
    kernel_order: str | None = None

    @property
    def index_type(self) -> str:
        return str(self.attrs.get("index_element_type", I32))

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, k = inputs
        if data.shape.rank == 0:
            raise ShapeError("Input rank must be greater than 0.")
        self._check_k_type(k.element_type)
        if k.shape.rank is not None and k.shape.rank != 0:
            raise ShapeError("The 'K' input must be a scalar.")
        if self.attrs.get("stable") and self.attrs["sort"] == "none":
            raise ShapeError(
                "Stable sort can only be used when TopK's sorting mode is set to 'VALUE' or "
                "'INDEX'.none"
            )
        read_value(k, "k")
        values = integer_values(k)
        if values is not None and values[0] < 0:
            raise ShapeError(
                f"The value of 'K' must be greater or equal to zero. (got {values[0]})."
            )
        indices_type = element_type(self.index_type)
        if data.shape.dims is None:
            return [
                TensorInfo(data.type, Shape.dynamic()),
                TensorInfo(indices_type, Shape.dynamic()),
            ]
        axis = axis_in_range(int(self.attrs["axis"]), len(data.shape))
        along = data.shape.dims[axis]
        picked = Dim.static(values[0]) if values is not None else Dim(0, along.high)
        dims = (*data.shape.dims[:axis], picked, *data.shape.dims[axis + 1 :])
        return [TensorInfo(data.type, Shape(dims)), TensorInfo(indices_type, Shape(dims))]

    def _check_k_type(self, kind: str) -> None:
        if self.k_types is not None and kind not in self.k_types and kind != "dynamic":
            raise ShapeError(f"K input element type must be i8, i32 or i64 (got {kind}).")
        if not takes_integer_input(kind):
            raise ShapeError(
                f"K input has to be an integer type, which does match the provided one:{kind}"
            )

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        k = inputs[1] if len(inputs) > 1 else None
        values = None if k is None else integer_values(k)
        shown = "known at run time" if values is None else str(values[0])
        stable = ", stable" if self.attrs.get("stable") else ""
        return Explanation(
            f"k {shown} along axis {self.attrs['axis']}, mode {self.attrs['mode']}, sort "
            f"{self.attrs['sort']}{stable}, indices {self.index_type}",
            [],
        )


@register
class TopK1(_TopK):
    version = 1
    opsets = range(1, 3)
    k_types = (I8, I32, I64)


@register
class TopK3(_TopK):
    version = 3
    opsets = range(3, 11)


@register
class TopK11(_TopK):
    version = 11
    opsets = range(11, 18)
