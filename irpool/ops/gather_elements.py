"""GatherElements-6 (opset6-17): `data` elements picked along `axis` by `indices` of the
data's rank, as numpy's take_along_axis.

What OpenVINO 2026.4 does (measured, docs/ops/GatherElements.md): indices i32 or i64 ("indices
must be of int32 or int64 type. But instead got: u8"), of rank >= 1 and the data's rank ("data
and indices rank must be equal. But instead got: 2 and 1"); `axis` in [-rank, rank-1]; the
output is the indices' shape with every dim but the axis merged with the data's ("Shapes [2,3]
and [3,5] are not consistent, ..."). Negative indices count from the end; one out of range
fails at inference on the CPU. The kernel is in irpool.execute.kernels.gather_elements.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from irpool.element_types import DYNAMIC, I32, I64
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.bounds import moved
from irpool.ops.concat import axis_in_range
from irpool.ops.explanation import Explanation
from irpool.ops.registry import register
from irpool.shape import Dim, Shape

if TYPE_CHECKING:
    from numpy.typing import NDArray


def gather_elements(data: NDArray[Any], indices: NDArray[Any], axis: int) -> NDArray[Any]:
    """take_along_axis with negative indices from the end; IndexError for one out of range
    (`axis` non-negative)."""
    import numpy as np

    length = data.shape[axis]
    picks = indices.astype(np.int64)
    if picks.size and (picks.min() < -length or picks.max() >= length):
        raise IndexError(f"indices beyond [-{length}, {length - 1}]")
    picks = np.where(picks < 0, picks + length, picks)
    return np.take_along_axis(data, picks, axis).copy()


@register
class GatherElements6(Op):
    type_name = "GatherElements"
    version = 6
    opsets = range(6, 18)
    input_names = ("data", "indices")
    attributes = (Attr("axis", AttrType.INT, default=0, required=True),)

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, indices = inputs
        if indices.element_type not in (I32, I64, DYNAMIC):
            raise ShapeError(
                f"indices must be of int32 or int64 type. But instead got: {indices.element_type}"
            )
        if indices.shape.rank == 0:
            raise ShapeError("indices rank must be >= 1.")
        if data.shape.rank == 0:
            raise ShapeError("data rank must be >= 1.")
        axis: int = self.attrs["axis"]
        rank = data.shape.rank if data.shape.rank is not None else indices.shape.rank
        if rank is not None:
            axis = axis_in_range(axis, rank)
        if indices.shape.dims is None and data.shape.dims is not None and rank is not None:
            kept = (Dim.dynamic() if a == axis else d for a, d in enumerate(data.shape.dims))
            return [TensorInfo(data.type, Shape(tuple(kept)))]
        if data.shape.dims is None or indices.shape.dims is None:
            return [TensorInfo(data.type, indices.shape)]
        if len(data.shape) != len(indices.shape):
            raise ShapeError(
                "data and indices rank must be equal. But instead got: "
                f"{len(data.shape)} and {len(indices.shape)}"
            )
        dims = []
        for position, (a, b) in enumerate(zip(data.shape.dims, indices.shape.dims, strict=True)):
            merged = b if position == axis else a.overlap(b)
            if merged is None:
                raise ShapeError(
                    f"Shapes {data.shape} and {indices.shape} are not consistent, `data` and "
                    "`indices` must have equal or intersecting dimensions, except for the "
                    f"dimension at axis index.{axis}"
                )
            dims.append(merged)
        shape = Shape(tuple(dims))
        picks = indices.value
        if picks is None or not shape.is_static or not data.shape.is_static or not picks.size:
            return [TensorInfo(data.type, shape)]
        length = data.shape.values()[axis]
        if picks.min() < -length or picks.max() >= length:  # the CPU fails: left to the run
            return [TensorInfo(data.type, shape)]
        return [moved(data, shape, lambda a: gather_elements(a, picks, axis))]

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        return Explanation(f"axis {self.attrs['axis']}", [])
