"""ScatterNDUpdate-3 (opset4-14; opset15's version, with `reduction`, is not modelled): data
with the slices that `indices` address replaced by `updates`.

What OpenVINO 2026.4 checks (measured, docs/ops/ScatterNDUpdate.md): indices of an integer type, of
rank 1 or more, whose last dim k is at most data's rank; updates of rank rank(indices) - 1 +
rank(data) - k, shaped indices.shape[:-1] + data.shape[k:]. Dims are compared where both are
known (intervals must meet). The kernel is in irpool.execute.kernels.scatter_nd_update.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from irpool.element_types import takes_integer_input
from irpool.ops.base import LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.explanation import Explanation
from irpool.ops.registry import register


@register
class ScatterNDUpdate3(Op):
    type_name = "ScatterNDUpdate"
    version = 3
    opsets = range(4, 15)
    input_names: ClassVar[tuple[str, ...]] = ("data", "indices", "updates")

    @staticmethod
    def updates_single_elements(data: TensorInfo, indices: TensorInfo, updates: TensorInfo) -> bool:
        """Whether each index names one element of `data` while the updates are no scalar:
        read_model takes that, the CPU plugin cannot compile it (irpool/cpu/refusals.py)."""
        dims, index_dims = data.shape.dims, indices.shape.dims
        if dims is None or index_dims is None or len(index_dims) != 1 or not updates.shape.dims:
            return False
        return index_dims[0].is_static and index_dims[0].value == len(dims)

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, indices, updates = inputs
        if not takes_integer_input(indices.element_type) and not indices.type.is_dynamic:
            raise ShapeError(
                f"Indices element type must be integral number. Got: {indices.element_type}"
            )
        if data.type != updates.type and not (data.type.is_dynamic or updates.type.is_dynamic):
            raise ShapeError("Element types for input data and updates do not match.")
        if indices.shape.rank == 0:
            raise ShapeError("Indices rank is expected to be at least 1")
        if indices.shape.dims is None or data.shape.dims is None or updates.shape.dims is None:
            return [TensorInfo(data.type, data.shape)]
        last = indices.shape.dims[-1]
        if last.high is None or last.low != last.high:
            return [TensorInfo(data.type, data.shape)]
        depth = last.low
        if depth > len(data.shape.dims):
            raise ShapeError("Last dimension of indices can be at most the rank of inputs")
        expected = (*indices.shape.dims[:-1], *data.shape.dims[depth:])
        if not expected and updates.shape.dims:  # read_model takes it (the CPU does not)
            return [TensorInfo(data.type, data.shape)]
        if len(updates.shape.dims) != len(expected):
            raise ShapeError(
                f"Rank of updates must be rank of inputs + rank of indices - last dimension of "
                f"indices - 1: {len(expected)}, got {len(updates.shape.dims)}"
            )
        for have, want in zip(updates.shape.dims, expected, strict=True):
            if have.overlap(want) is None:
                raise ShapeError(
                    f"updates shape {updates.shape} must be indices_shape[:-1] + "
                    f"inputs_shape[indices_shape[-1]:]"
                )
        return [TensorInfo(data.type, data.shape)]

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        indices = inputs[1] if len(inputs) > 1 else None
        at = "" if indices is None else f" at the {indices.shape} indices"
        return Explanation(f"the data with slices replaced by updates{at}", [])
