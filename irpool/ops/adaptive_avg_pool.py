"""AdaptiveAvgPool-8 (opset8-16): mean over boxes [floor(i*In/Out), ceil((i+1)*In/Out))."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.graph.shape import Dim, Shape
from irpool.ops.base import LayerContext, NotInferable, Op, ShapeError, TensorInfo
from irpool.ops.registry import register
from irpool.rules import INVALID_OUTPUT_SIZE

INDEX_TYPES = ("i32", "i64")


@register
class AdaptiveAvgPool8(Op):
    """AdaptiveAvgPool-8: inputs `data` (rank 3-5) and `output_size` (1-D, rank-2 values)."""

    type_name = "AdaptiveAvgPool"
    version = 8
    opsets = range(8, 17)
    input_names = ("data", "output_size")
    # The specification's own example carries it; the runtime never reads it.
    ignored_attributes = ("output_type",)

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, size = inputs
        rank = data.shape.rank
        if rank is not None and rank not in (3, 4, 5):
            raise ShapeError(f"AdaptiveAvgPool takes a 3D, 4D or 5D input, got {data.shape}")
        if size.shape.rank == 0 and rank is not None:  # only read when the rank is known
            raise ShapeError("output_size is a scalar; it must be a 1-D tensor")
        spatial = size.shape[0] if size.shape.rank else Dim.dynamic()
        if rank is not None and spatial.is_static and spatial.value != rank - 2:
            raise ShapeError(
                f"output_size has {spatial.value} value(s) but the {rank}D input "
                f"{data.shape} has {rank - 2} spatial axes"
            )
        self._report_strict_output_size(size, rank, ctx)
        if data.shape.dims is None or rank is None:
            return [TensorInfo(data.element_type, Shape.dynamic())]
        head = data.shape.dims[:2]
        if size.value is None:
            if size.trusted:  # maybe a constant the runtime folds; irpool cannot tell
                raise NotInferable("output_size comes from a layer irpool does not infer")
            return [TensorInfo(data.element_type, Shape((*head, *(Dim.dynamic(),) * (rank - 2))))]
        return [TensorInfo(data.element_type, Shape((*head, *_output_dims(size.value))))]

    def _report_strict_output_size(
        self, size: TensorInfo, rank: int | None, ctx: LayerContext
    ) -> None:
        """What the runtime accepts but the specification forbids (and CPU mishandles)."""
        if size.element_type not in INDEX_TYPES and size.element_type != "dynamic":
            ctx.report(
                INVALID_OUTPUT_SIZE,
                f"output_size is {size.element_type}; it must be i32 or i64 (OpenVINO "
                "truncates other types silently)",
            )
        if size.shape.rank is not None and size.shape.rank != 1:
            ctx.report(
                INVALID_OUTPUT_SIZE,
                f"output_size has shape {size.shape}; it must be 1-D "
                f"([{rank - 2 if rank else 'rank-2'}])",
            )
        if size.value is not None:
            bad = [int(v) for v in np.ravel(size.value) if v < 1]
            if bad:
                ctx.report(
                    INVALID_OUTPUT_SIZE,
                    f"output_size values must be at least 1, got {_csv(np.ravel(size.value))} "
                    "(0 and negative values give empty or undefined outputs)",
                )

    def compute(self, inputs: Sequence[NDArray[Any]]) -> list[NDArray[Any]]:
        data, size = inputs
        return [_kernel()(data, tuple(int(v) for v in np.ravel(size)))]


def _output_dims(values: NDArray[Any]) -> list[Dim]:
    """The runtime uses the values as-is: -1 is dynamic, other negatives are 0."""
    dims = []
    for raw in np.ravel(values):
        value = int(raw)
        dims.append(Dim.dynamic() if value == -1 else Dim.static(max(value, 0)))
    return dims


def _csv(values: NDArray[Any]) -> str:
    return ",".join(str(int(v)) for v in values)


@cache
def _kernel() -> Callable[..., NDArray[Any]]:
    """The NumPy kernel, imported once on first use: validating never loads it (start-up
    time), and an import statement in `compute` would cost each call a microsecond."""
    from irpool.execute.adaptive_avg_pool import adaptive_avg_pool

    return adaptive_avg_pool
