"""MaxPool-1 (opset1-7), MaxPool-8 (opset8-13: dilations, an `indices` output,
`index_element_type`, `axis`), MaxPool-14 (opset14-16: `rounding_type="ceil_torch"`).

The window geometry is the one AvgPool uses (`irpool.ops.pooling`), without AvgPool's
exclude-pad check: pads as large as the kernel are legal. What the CPU plugin computes is
measured in docs/ops/MaxPool.md; the kernel is
`irpool.execute.kernels.max_pool`.
"""

from __future__ import annotations

from collections.abc import Sequence

from irpool.element_types import ELEMENT_TYPES, I64, element_type
from irpool.ops.base import Attr, AttrType, LayerContext, ShapeError, TensorInfo
from irpool.ops.pooling import WindowPoolBase, window_attributes
from irpool.ops.registry import register

# Index types the CPU plugin computes (measured): the integer types of 16 bits or more; it
# reads the others (i8, u8, boolean, the float types, ...) and fails at inference when the
# indices output is used.
INDEX_TYPES = tuple(t.name for t in ELEMENT_TYPES.values() if t.is_integer and t.bits >= 16)
INDICES = 1  # the output port of the indices (MaxPool-8/14)

ATTRIBUTES = (
    *window_attributes(ceil_torch_since=14, dilations_since=8),
    Attr("index_element_type", AttrType.ELEMENT_TYPE, default=I64, since=8),
    Attr("axis", AttrType.INT, default=0, since=8),
)


class MaxPoolBase(WindowPoolBase):
    type_name = "MaxPool"
    attributes = ATTRIBUTES
    # The spatial axes the CPU's kernel for indices pads by 0: set per layer by
    # irpool.cpu.compilation.
    unpadded_axes: frozenset[int] = frozenset()

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data = inputs[0]
        axes = self.infer_axes(data, ctx)
        rank = data.shape.rank
        if self.version >= 8 and rank is not None and not -rank <= self.attrs["axis"] < rank:
            raise ShapeError(
                f"axis {self.attrs['axis']} is out of the range [{-rank}, {rank - 1}] of the "
                f"{rank}D input",
                attribute="axis",
            )
        values = TensorInfo(data.type, self.output_shape(data, axes))
        if self.version < 8:
            return [values]
        return [values, TensorInfo(element_type(self.attrs["index_element_type"]), values.shape)]

    def explain_settings(self) -> str:
        settings = super().explain_settings()
        if self.version < 8:
            return settings
        return (
            f"{settings} index_element_type={self.attrs['index_element_type']} "
            f"axis={self.attrs['axis']}"
        )


@register
class MaxPool1(MaxPoolBase):
    """MaxPool-1: values only, floor/ceil rounding, no dilations."""

    version = 1
    opsets = range(1, 8)


@register
class MaxPool8(MaxPoolBase):
    """MaxPool-8: dilations and the indices output."""

    version = 8
    opsets = range(8, 14)
    output_count = 2


@register
class MaxPool14(MaxPoolBase):
    """MaxPool-14: adds rounding_type="ceil_torch"."""

    version = 14
    opsets = range(14, 17)
    output_count = 2
