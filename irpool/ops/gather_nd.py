"""GatherND-5 (opset5-7) and GatherND-8 (opset8-17): slices of `data` picked by the tuples in
the last axis of `indices`, after `batch_dims` leading dims shared by both.

What OpenVINO 2026.4 infers (measured, docs/ops/GatherND.md): the output is
`batch + indices[batch_dims:-1] + data[batch_dims + indices[-1]:]`, where GatherND-8 keeps the
batch dims and GatherND-5 multiplies them into one; data of rank >= 1 ("Data rank must be at
least 1."), indices of an integer type ("The indices type is expected to be an integer type.
Got: f32"); `batch_dims` below both ranks ("Number of batch dimensions must not exceed a rank
of data."), batch dims that intersect ("Batch dimensions of data and indices must be the
same."), a tuple no longer than the data's remaining rank ("Length of a tuple with indices
must not exceed a rank of data tensor excluding batch dimensions."). A tuple length not known
gives a dynamic rank. Negative indices count from the end; an index out of range is read by
the CPU from wherever its offset points (irpool refuses to run it). The kernel is in
irpool.execute.kernels.gather_nd.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from irpool.element_types import takes_integer_input
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.explanation import Explanation
from irpool.ops.registry import register
from irpool.shape import Dim, Shape

if TYPE_CHECKING:
    from numpy.typing import NDArray


def gather_nd(data: NDArray[Any], indices: NDArray[Any], batch_dims: int) -> NDArray[Any]:
    """GatherND-8's values (batch dims kept); negative indices from the end; IndexError for
    one out of range."""
    import numpy as np

    batch = data.shape[:batch_dims]
    size = math.prod(batch)
    depth = indices.shape[-1]
    count = math.prod(indices.shape[batch_dims:-1])
    tuples = indices.astype(np.int64).reshape(size, count, depth)
    spans = np.array(data.shape[batch_dims : batch_dims + depth], np.int64)
    if tuples.size and ((tuples < -spans).any() or (tuples >= spans).any()):
        raise IndexError(f"an index beyond the data's dims {tuple(spans.tolist())}")
    tuples = np.where(tuples < 0, tuples + spans, tuples)
    rows = data.reshape(size, *data.shape[batch_dims:])
    if depth:
        picked = rows[(np.arange(size)[:, None], *np.moveaxis(tuples, -1, 0))]
    else:  # empty tuples pick whole rows
        picked = np.repeat(rows[:, None], count, axis=1)
    shape = (*batch, *indices.shape[batch_dims:-1], *data.shape[batch_dims + depth :])
    result: NDArray[Any] = picked.reshape(shape).copy(order="C")
    return result


class _GatherND(Op):
    type_name = "GatherND"
    input_names = ("data", "indices")
    attributes = (Attr("batch_dims", AttrType.UINT, default=0),)
    merges_batch: ClassVar[bool]  # GatherND-5 multiplies the batch dims into one

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, indices = inputs
        if not takes_integer_input(indices.element_type):
            raise ShapeError(
                f"The indices type is expected to be an integer type. Got: {indices.element_type}"
            )
        batch_dims: int = self.attrs["batch_dims"]
        if data.shape.rank == 0:
            raise ShapeError("Data rank must be at least 1.")
        if indices.shape.rank == 0:
            raise ShapeError("Indices rank must be at least 1.")
        for rank, name in ((data.shape.rank, "data"), (indices.shape.rank, "indices")):
            if rank is not None and batch_dims >= rank:
                raise ShapeError(f"Number of batch dimensions must not exceed a rank of {name}.")
        if data.shape.dims is None or indices.shape.dims is None:
            return [TensorInfo(data.type, Shape.dynamic())]
        batch = []
        for a, b in zip(data.shape.dims[:batch_dims], indices.shape.dims[:batch_dims], strict=True):
            merged = a.overlap(b)
            if merged is None:
                raise ShapeError("Batch dimensions of data and indices must be the same.")
            batch.append(merged)
        depth = indices.shape.dims[-1]
        if not depth.is_static:
            return [TensorInfo(data.type, Shape.dynamic())]
        if batch_dims + depth.value > len(data.shape):
            raise ShapeError(
                "Length of a tuple with indices must not exceed a rank of data tensor "
                "excluding batch dimensions."
            )
        if self.merges_batch and batch_dims:
            batch = [_product(batch)]
        rest = data.shape.dims[batch_dims + depth.value :]
        return [TensorInfo(data.type, Shape((*batch, *indices.shape.dims[batch_dims:-1], *rest)))]

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        return Explanation(f"batch_dims {self.attrs['batch_dims']}", [])


def _product(dims: Sequence[Dim]) -> Dim:
    """The interval product of dims (GatherND-5's merged batch)."""
    highs = [d.high for d in dims]
    high = None if None in highs else math.prod(h for h in highs if h is not None)
    return Dim(math.prod(d.low for d in dims), high)


@register
class GatherND5(_GatherND):
    version = 5
    opsets = range(5, 8)
    merges_batch = True


@register
class GatherND8(_GatherND):
    version = 8
    opsets = range(8, 18)
    merges_batch = False
