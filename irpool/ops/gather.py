"""Gather-1 (opset1-6), Gather-7 (opset7) and Gather-8 (opset8-16): slices of `data` along
`axis` picked by `indices`, `batch_dims` (from Gather-7 on).

As OpenVINO 2026.4 infers it (measured, docs/ops/Gather.md): the output is `data[:axis] +
indices[batch_dims:] + data[axis+1:]`, the first
`batch_dims` dims of data and indices merged (they must overlap); `axis` (a scalar or one-element
input) in [-rank, rank-1]; a negative `batch_dims` counts from the indices' rank; `batch_dims`
at most the indices' rank and at most the axis. **Trap**: a `batch_dims` still negative after
that (-3 with indices of rank 2) loads, with the output `data[:axis] + indices[r+b:] + indices
+ data[axis+1:]`, and the CPU plugin runs it on memory it never wrote: an error here
(IR205). Values and bounds are gathered too (ShapeOf pieces), an index out of range giving 0.
An axis known only at run time runs where the data's or the indices' shape is dynamic; with
both static the CPU plugin cannot compile it (IR614).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from irpool.element_types import takes_integer_input
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo, read_value
from irpool.ops.bounds import moved
from irpool.ops.concat import axis_in_range, one_element
from irpool.ops.const import refuse_unbacked
from irpool.ops.explanation import Explanation
from irpool.ops.folding import integer_values
from irpool.ops.registry import register
from irpool.rules import (
    REINTERPRETED_ATTRIBUTE_VALUE,
)
from irpool.shape import Dim, Shape

if TYPE_CHECKING:
    from numpy.typing import NDArray


def gathered_shape(data: Shape, indices: Shape, axis: int | None, batch_dims: int) -> Shape:
    """Gather-8's output shape for a known axis (None: known at run time), or ShapeError as
    OpenVINO refuses the inputs; `batch_dims` as normalized (`normalized_batch_dims`)."""
    rank = indices.rank
    if rank is not None and batch_dims > rank:
        raise ShapeError(
            f"The batch_dims must be <= indices_rank. But instead got: batch_dims = "
            f"{batch_dims}, indices_rank = {rank}"
        )
    position = axis
    if axis is not None and data.dims is not None:
        position = axis_in_range(axis, len(data))
    if position is not None and position >= 0 and batch_dims > position:
        raise ShapeError(
            f"After normalization batch_dims must be <= axis. But instead got: batch_dims = "
            f"{batch_dims}, axis = {position}"
        )
    if data.dims is None or indices.dims is None or rank is None:
        return Shape.dynamic()
    if batch_dims < 0 and position is not None:
        if rank + batch_dims < 0:
            raise ShapeError("Accessing out-of-range dimension")
        picked = indices.dims[rank + batch_dims :] + indices.dims
        return Shape(data.dims[:position] + picked + data.dims[position + 1 :])
    batch = _batch(data, indices, batch_dims)
    if position is None:  # the batch dims known, the others not
        return Shape((*batch, *(Dim.dynamic(),) * (len(data) + rank - 1 - batch_dims - len(batch))))
    picked = (*data.dims[batch_dims:position], *indices.dims[batch_dims:])
    return Shape((*batch, *picked, *data.dims[position + 1 :]))


def _batch(data: Shape, indices: Shape, batch_dims: int) -> tuple[Dim, ...]:
    """The first `batch_dims` dims of data and indices merged, or ShapeError."""
    assert data.dims is not None and indices.dims is not None
    batch = []
    for a, b in zip(data.dims[:batch_dims], indices.dims[:batch_dims], strict=True):
        overlap = a.overlap(b)
        if overlap is None:
            raise ShapeError(
                f"Shapes {data} and {indices} are not consistent. data and indices must have "
                "equal or intersecting sizes until batch_dims"
            )
        batch.append(overlap)
    return tuple(batch)


def gather(
    data: NDArray[Any],
    indices: NDArray[Any],
    axis: int,
    batch_dims: int,
    from_end: bool = True,
) -> NDArray[Any]:
    """Gather on arrays as the CPU plugin computes it: negative indices count from the end
    (`from_end`; otherwise they give 0, as Gather-1 and -7 on the CPU), an index out of
    [-dim, dim-1] gives 0; `axis` non-negative, `batch_dims` normalized, >= 0."""
    import numpy as np

    length = data.shape[axis]
    picks = indices.astype(np.int64, copy=False)
    if batch_dims == 0 and picks.size and length:
        lowest = -length if from_end else 0
        if picks.min() >= lowest and picks.max() < length:  # every index valid: one take
            return np.take(data, picks, axis=axis)
    batch = data.shape[:batch_dims]
    size = int(np.prod(batch, dtype=np.int64))
    before = int(np.prod(data.shape[batch_dims:axis], dtype=np.int64))
    after = data.shape[axis + 1 :]
    count = int(np.prod(indices.shape[batch_dims:], dtype=np.int64))
    picks = picks.reshape(size, count)
    valid = (picks >= (-length if from_end else 0)) & (picks < length)
    picks = np.where(valid, np.where(picks < 0, picks + length, picks), 0)
    source = data.reshape(size, before, length, int(np.prod(after, dtype=np.int64)))
    out = source[np.arange(size)[:, None, None], np.arange(before)[None, :, None], picks[:, None]]
    out = np.where(valid[:, None, :, None], out, np.zeros((), data.dtype))
    shape = (*batch, *data.shape[batch_dims:axis], *indices.shape[batch_dims:], *after)
    return out.reshape(shape).copy(order="C")  # ascontiguousarray makes a 0-d array 1-d


class _Gather(Op):
    """Gather: inputs `data`, `indices` and `axis`; attribute `batch_dims` (default 0, from
    Gather-7 on)."""

    takes_strings = True
    type_name = "Gather"
    input_names = ("data", "indices", "axis")
    attributes = (Attr("batch_dims", AttrType.INT, default=0, since=7),)
    # Whether the CPU plugin's kernel counts negative indices from the end (Gather-8) or
    # gives 0 for them (Gather-1 and -7, measured); OpenVINO's folding of constants counts
    # them from the end for every version.
    from_end: ClassVar[bool] = True
    # The data, rows of weights in a decompression subgraph, as a run holds it when the run
    # decompresses the rows it picks (irpool/execute/compressed.py): the layer reads the
    # indices alone.
    compressed_weights: Any = None

    def batch_dims(self, indices_rank: int | None) -> int:
        """`batch_dims` with a negative one counted from the indices' rank."""
        batch_dims: int = self.attrs.get("batch_dims", 0)
        if batch_dims < 0 and indices_rank is not None:
            return batch_dims + indices_rank
        return batch_dims

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, indices, axis = inputs
        for info, name in ((indices, "Indices"), (axis, "Axis")):
            if not takes_integer_input(info.element_type):
                raise ShapeError(f"{name} element type must be of an integral number type.")
        if not one_element(axis.shape):
            raise ShapeError("Axis input must be scalar or have 1 element.")
        refuse_unbacked(axis, "axis")
        read_value(axis, "the axis")
        axis_values = integer_values(axis)
        position = None if axis_values is None else axis_values[0]
        batch_dims = self.batch_dims(indices.shape.rank)
        shape = gathered_shape(data.shape, indices.shape, position, batch_dims)
        if batch_dims < 0 and indices.shape.rank is not None:
            ctx.report(
                REINTERPRETED_ATTRIBUTE_VALUE,
                f"batch_dims {self.attrs['batch_dims']} is {batch_dims} after counting from "
                f"the indices' rank {indices.shape.rank}; OpenVINO accepts it (output {shape}) "
                "and its CPU plugin fills the output from memory it never wrote",
                "batch_dims",
            )
            return [TensorInfo(data.type, shape)]
        refuse_unbacked(indices, "indices")
        read_value(indices, "the indices")
        if position is None or integer_values(indices) is None or not shape.is_static:
            return [TensorInfo(data.type, shape)]
        positive = position % len(data.shape)
        picks = indices.value
        assert picks is not None  # integer_values read it
        return [moved(data, shape, lambda a: gather(a, picks, positive, batch_dims))]

    def fold_constant(self, inputs: Sequence[NDArray[Any]]) -> NDArray[Any] | None:
        """OpenVINO folds constants counting negative indices from the end, whatever the
        version; None where the kernel does the same (Gather-8)."""
        if self.from_end:
            return None
        data, indices, _ = inputs
        axis, batch_dims = self.arguments(data.ndim, inputs[1:])
        return gather(data, indices, axis, batch_dims)

    def arguments(self, data_rank: int, rest: Sequence[NDArray[Any]]) -> tuple[int, int]:
        """The axis (non-negative) and batch_dims for concrete inputs (what the kernel uses)."""
        indices, axis = rest
        position = axis_in_range(int(axis.ravel()[0]), data_rank)
        return position, self.batch_dims(indices.ndim)

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        axis = inputs[2] if len(inputs) > 2 else None
        values = None if axis is None else integer_values(axis)
        shown = "known at run time" if values is None else str(values[0])
        return Explanation(f"axis {shown}, batch_dims {self.attrs['batch_dims']}", [])


@register
class Gather1(_Gather):
    version = 1
    opsets = range(1, 7)
    from_end = False


@register
class Gather7(_Gather):
    version = 7
    opsets = range(7, 8)
    from_end = False


@register
class Gather8(_Gather):
    version = 8
    opsets = range(8, 17)
