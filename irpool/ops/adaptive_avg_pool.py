"""AdaptiveAvgPool-8 (opset8-16): mean over boxes [floor(i*In/Out), ceil((i+1)*In/Out)).

The boxes are `irpool.ops.pooling_geometry.adaptive_box`; the kernel is
`irpool.execute.kernels.adaptive_avg_pool`. `AdaptivePool` is the input handling and the
explain rows it shares with AdaptiveMaxPool-8 (ops/adaptive_max_pool.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from irpool.element_types import I32, I64
from irpool.ops.base import LayerContext, Op, ShapeError, TensorInfo, read_value
from irpool.ops.explanation import AxisRow, DimValue, Explanation, dim_value
from irpool.ops.pooling_geometry import adaptive_box, csv
from irpool.ops.registry import register
from irpool.rules import INVALID_OUTPUT_SIZE
from irpool.shape import Dim, Shape

if TYPE_CHECKING:
    from numpy.typing import NDArray

INDEX_TYPES = (I32, I64)


class AdaptivePool(Op):
    """Inputs `data` (rank 3-5) and `output_size` (1-D, rank-2 values): output 0 is
    [N, C, *output_size] in the data's type."""

    version = 8
    opsets = range(8, 17)
    input_names = ("data", "output_size")
    # Measured at run time: AdaptiveAvgPool fails on output_size 0 on every axis (two or
    # more), AdaptiveMaxPool gives the empty output.
    zeros_everywhere_fail: ClassVar[bool] = False

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, size = inputs
        rank = data.shape.rank
        if rank is not None and rank not in (3, 4, 5):
            raise ShapeError(f"{self.type_name} takes a 3D, 4D or 5D input, got {data.shape}")
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
            return [TensorInfo(data.type, Shape.dynamic())]
        head = data.shape.dims[:2]
        value = read_value(size, "output_size")
        if value is None:
            return [TensorInfo(data.type, Shape((*head, *(Dim.dynamic(),) * (rank - 2))))]
        if ctx.at_run_time:
            dims = [Dim.static(out) for out in self.run_output_size(value)]
            return [TensorInfo(data.type, Shape((*head, *dims)))]
        return [TensorInfo(data.type, Shape((*head, *_output_dims(value))))]

    def run_output_size(self, values: NDArray[Any]) -> tuple[int, ...]:
        """The output size a run uses, as the CPU plugin reads it (measured,
        docs/ops/AdaptiveAvgPool.md#output-size-known-only-at-run-time): i64 values wrapped to int32
        (2**40 is 0, 2**31 is -2**31); 0 gives an empty axis,
        and a negative value fails the inference, as AdaptiveAvgPool's zeros on every one of
        two or more axes do (ShapeError naming the value)."""
        import numpy as np  # only a run reads values: validating a model imports no NumPy

        sizes = tuple(int(v) for v in np.ravel(values).astype(np.int64).astype(np.int32))
        negative = [
            (given, held) for given, held in zip(np.ravel(values), sizes, strict=True) if held < 0
        ]
        if negative:
            given, held = (int(v) for v in negative[0])
            wrapped = (
                "" if given == held else f" ({given} wrapped to int32, as the CPU plugin does)"
            )
            raise ShapeError(
                f"output_size {csv(np.ravel(values))} holds {held}{wrapped}: a size must not be "
                "negative (the CPU plugin fails this inference)"
            )
        if self.zeros_everywhere_fail and len(sizes) > 1 and not any(sizes):
            raise ShapeError(
                f"output_size {csv(np.ravel(values))} is 0 on every axis (held as int32), which "
                "the CPU plugin fails (one axis of 0 gives an empty output)"
            )
        return sizes

    def _report_strict_output_size(
        self, size: TensorInfo, rank: int | None, ctx: LayerContext
    ) -> None:
        """What the runtime accepts but the specification forbids (and CPU mishandles)."""
        if size.element_type not in INDEX_TYPES and not size.type.is_dynamic:
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
            bad = [int(v) for v in size.value.ravel() if v < 1]
            if bad:
                ctx.report(
                    INVALID_OUTPUT_SIZE,
                    f"output_size values must be at least 1, got {csv(size.value.ravel())} "
                    "(0 and negative values give empty or undefined outputs)",
                )

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        data = inputs[0] if inputs else None
        if data is None or data.shape.dims is None or outputs[0].shape.dims is None:
            return None
        rows = [
            AxisRow(dim_value(size), _box_sizes(size, out), None, None, None, None, dim_value(out))
            for size, out in zip(data.shape.dims[2:], outputs[0].shape.dims[2:], strict=False)
        ]
        return Explanation("adaptive bins", rows)


@register
class AdaptiveAvgPool8(AdaptivePool):
    type_name = "AdaptiveAvgPool"
    zeros_everywhere_fail = True
    # The specification's own example carries it; the runtime never reads it.
    ignored_attributes = ("output_type",)


def _box_sizes(size: Dim, out: Dim) -> DimValue:
    """The range of box lengths on an axis ("2-3"): they vary."""
    if not (size.is_static and out.is_static) or out.value == 0:
        return "?"
    lengths = {len(adaptive_box(i, size.value, out.value)) for i in range(out.value)}
    low, high = min(lengths), max(lengths)
    return low if low == high else f"{low}-{high}"


def _output_dims(values: NDArray[Any]) -> list[Dim]:
    """Shape inference uses the values as-is: -1 is dynamic, other negatives are 0."""
    dims = []
    for raw in values.ravel():
        value = int(raw)
        dims.append(Dim.dynamic() if value == -1 else Dim.static(max(value, 0)))
    return dims
