"""ReduceMean-1, ReduceMax-1 (opset1-17): what OpenVINO's frontends write for global pooling;
ReduceProd-1 (swin_t multiplies shape values with it, so its known values fold); ReduceSum-1,
ReduceMin-1, ReduceL1-4, ReduceL2-4 (opset4-17) and ReduceLogicalAnd-1, ReduceLogicalOr-1,
whose data must be boolean ("Element type of data input must be boolean.").

Inputs `data` and `axes` (a scalar or 1-D integer tensor, normally a Const); attribute
`keep_dims` (default false). Shape rules are OpenVINO 2026.4's reduce_shape_infer, checked
against read_model (docs/reductions.md): negative axes count
from the end, duplicates count once, no axes is the identity, and axes that are not constant
leave the dims (and, without keep_dims, the rank) unknown. The kernels are in
irpool.execute.kernels.reduce.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from irpool.element_types import takes_integer_input
from irpool.ops.base import (
    Attr,
    AttrType,
    LayerContext,
    Op,
    ShapeError,
    TensorInfo,
    read_value,
)
from irpool.ops.const import refuse_unbacked
from irpool.ops.explanation import AxisRow, Explanation, dim_value
from irpool.ops.folding import FOLDED_SIZE
from irpool.ops.pooling_geometry import csv
from irpool.ops.registry import register
from irpool.rules import REPEATED_REDUCE_AXES
from irpool.shape import Dim, Shape

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


class Reduce(Op):
    """The reductions' shared shape inference; subclasses name the op."""

    opsets = range(1, 18)
    version = 1
    attributes = (Attr("keep_dims", AttrType.BOOL, default=False),)
    input_names = ("data", "axes")
    # What the op computes: "mean", "max", "min", "product", "sum", "l1", "l2", "and", "or".
    reduction: ClassVar[str]
    logical: ClassVar[bool] = False  # the data must be boolean (otherwise numeric)

    @property
    def keep_dims(self) -> bool:
        return bool(self.attrs["keep_dims"])

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, axes = inputs
        if self.logical and not data.type.is_boolean and not data.type.is_dynamic:
            raise ShapeError("Element type of data input must be boolean.")
        if not self.logical and data.type.is_boolean:
            raise ShapeError("Element type of data input must be numeric. Got: boolean")
        if not takes_integer_input(axes.element_type):
            raise ShapeError(
                f"Element type of axes input must be integer. Got: {axes.element_type}"
            )
        if axes.shape.rank is not None and axes.shape.rank > 1:
            raise ShapeError(f"Axes input must be a scalar or 1D input. Got: {axes.shape}")
        refuse_unbacked(axes, "axes")
        read_value(axes, "axes")
        rank = data.shape.rank
        if axes.value is None or data.shape.dims is None or rank is None:
            return [TensorInfo(data.type, self._unknown_axes(data.shape, axes.shape))]
        chosen = self.normalized_axes(axes.value, rank)
        if axes.value.size > len(chosen):
            ctx.report(
                REPEATED_REDUCE_AXES,
                f"axes {csv(axes.value.ravel())} name an axis of the rank-{rank} input more "
                f"than once; OpenVINO reduces each axis once (as axes {csv(chosen)})",
            )
        if self.keep_dims:
            if rank == 0 and chosen:
                raise ShapeError("keep_dims=true on a scalar: there is no axis to keep as 1")
            dims = tuple(Dim.static(1) if a in chosen else d for a, d in enumerate(data.shape.dims))
        else:
            dims = tuple(d for a, d in enumerate(data.shape.dims) if a not in chosen)
        return [TensorInfo(data.type, Shape(dims))]

    def _unknown_axes(self, data: Shape, axes: Shape) -> Shape:
        """Axes known only at run time: keep_dims keeps the rank; otherwise a single axis
        removes one dim, and several may repeat one, so the rank is unknown."""
        if self.keep_dims:
            return Shape.dynamic() if data.rank is None else Shape((Dim.dynamic(),) * data.rank)
        single = axes.rank == 0 or (axes.is_static and axes.values() == (1,))
        if single and data.rank is not None:  # a scalar stays a scalar (rank 0 - 1 is 0)
            return Shape((Dim.dynamic(),) * max(data.rank - 1, 0))
        return Shape.dynamic()

    @staticmethod
    def normalized_axes(values: NDArray[Any], rank: int) -> tuple[int, ...]:
        """Each axis in [-rank, rank-1] (a scalar input has [-1, 0]) counted from 0, sorted,
        duplicates removed; ShapeError names the first axis out of range."""
        span = max(rank, 1)
        chosen = set()
        for raw in values.ravel():
            axis = int(raw)
            if not -span <= axis < span:
                raise ShapeError(f"Axis {axis} out of the tensor rank range [{-span}, {span - 1}]")
            chosen.add(axis % span)
        return tuple(sorted(chosen))

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        """A row per input axis: a reduced axis is one window over the whole axis."""
        data = inputs[0] if inputs else None
        axes = inputs[1] if len(inputs) > 1 else None
        if data is None or data.shape.dims is None or axes is None or axes.value is None:
            return None
        chosen = self.normalized_axes(axes.value, len(data.shape.dims))
        rows = [
            AxisRow(dim_value(dim), dim_value(dim), None, None, None, None, 1)
            if axis in chosen
            else AxisRow(dim_value(dim), 1, None, None, None, None, dim_value(dim))
            for axis, dim in enumerate(data.shape.dims)
        ]
        listed = ",".join(map(str, chosen)) or "none"
        keep = "true" if self.keep_dims else "false"
        return Explanation(f"{self.reduction} over axes {listed}, keep_dims={keep}", rows)


@register
class ReduceMean1(Reduce):
    type_name = "ReduceMean"
    reduction = "mean"


@register
class ReduceMax1(Reduce):
    type_name = "ReduceMax"
    reduction = "max"


@register
class ReduceMin1(Reduce):
    type_name = "ReduceMin"
    reduction = "min"


@register
class ReduceSum1(Reduce):
    type_name = "ReduceSum"
    reduction = "sum"


@register
class ReduceL1_4(Reduce):
    type_name = "ReduceL1"
    version = 4
    opsets = range(4, 18)
    reduction = "l1"


@register
class ReduceL2_4(Reduce):
    type_name = "ReduceL2"
    version = 4
    opsets = range(4, 18)
    reduction = "l2"


@register
class ReduceLogicalAnd1(Reduce):
    type_name = "ReduceLogicalAnd"
    reduction = "and"
    logical = True


@register
class ReduceLogicalOr1(Reduce):
    type_name = "ReduceLogicalOr"
    reduction = "or"
    logical = True


@register
class ReduceProd1(Reduce):
    type_name = "ReduceProd"
    reduction = "product"

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        """Known integer values fold (swin_t multiplies shape values): the product, where
        OpenVINO's int64 folding and the CPU's int32 kernel agree (it fits int32)."""
        import numpy as np  # values are known: NumPy holds them already

        (out,) = super().infer(inputs, ctx)
        data, axes = inputs
        if (
            data.value is None
            or axes.value is None
            or data.value.size > FOLDED_SIZE
            or data.value.dtype.kind not in "iu"
            or data.value.dtype.itemsize < 2
        ):
            return [out]
        values: NDArray[np.int64] = data.value.astype(np.int64).reshape(data.value.shape or (1,))
        chosen = self.normalized_axes(axes.value, data.value.ndim) if data.value.ndim else (0,)
        with np.errstate(over="ignore"):
            product = np.multiply.reduce(values, axis=chosen)  # out.shape keeps the dims
        exact = [int(v) for v in values.ravel()]
        if not all(-(2**31) <= v < 2**31 for v in exact) or math.prod(map(abs, exact)) >= 2**31:
            return [out]
        value = np.asarray(product, data.value.dtype).reshape(out.shape.values())
        return [TensorInfo(out.type, out.shape, value)]
