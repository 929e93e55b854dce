"""AdaptiveMaxPool-8 (opset8-16): the maximum of each AdaptiveAvgPool box, and where it is.

Output 0 holds the maxima, output 1 their row-major offsets within each (n, c) plane (as
PyTorch's `return_indices`), in `index_element_type`. The CPU plugin compiles only i32
indices: the default i64 fails with "CPU plugin does not support i64 for use with oneDNN",
which is why the PyTorch frontend writes i32 and a Convert (docs/ops/AdaptiveMaxPool.md). Except for
a
global pooling (output_size a constant of ones) whose indices nothing reads: the plugin turns
that into a ReduceMax and compiles it with i64 written. The kernel is
irpool.execute.kernels.adaptive_max_pool.
"""

from __future__ import annotations

from collections.abc import Sequence

from irpool.element_types import I64, element_type
from irpool.ops.adaptive_avg_pool import INDEX_TYPES, AdaptivePool
from irpool.ops.base import Attr, AttrType, LayerContext, TensorInfo
from irpool.ops.registry import register

INDICES = 1  # the output port of the indices


@register
class AdaptiveMaxPool8(AdaptivePool):
    type_name = "AdaptiveMaxPool"
    # Read as an element type, but anything but i32/i64 is refused ("Index element type must
    # be i32 or i64"); the spelling is case-insensitive.
    attributes = (Attr("index_element_type", AttrType.ENUM, default=I64, choices=INDEX_TYPES),)
    output_count = 2

    @property
    def index_element_type(self) -> str:
        return str(self.attrs["index_element_type"])

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        (values,) = super().infer(inputs, ctx)
        return [values, TensorInfo(element_type(self.index_element_type), values.shape)]
