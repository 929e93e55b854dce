"""MaxPool-1 (opset1-7), MaxPool-8 (opset8-13: dilations, an `indices` output,
`index_element_type`, `axis`), MaxPool-14 (opset14-17: `rounding_type="ceil_torch"`).

The window geometry is AvgPool's (docs/semantics.md); MaxPool adds no exclude-pad check, so
pads as large as the kernel are legal. What the CPU plugin computes is measured in
docs/semantics.md, "MaxPool-1 / -8 / -14".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from irpool.graph.shape import Dim, Shape
from irpool.ops.avg_pool import (
    AUTO_PADS,
    COMPUTED_PADS,
    ROUNDINGS,
    WRAPPED,
    AvgPoolBase,
    padding_total,
)
from irpool.ops.base import Attr, AttrType, LayerContext, ShapeError, TensorInfo, numpy_dtype
from irpool.ops.registry import register

if TYPE_CHECKING:
    from irpool.execute.window import Window

# Index types the CPU plugin computes (measured); it reads the others (i8, u8, boolean, the
# float types, ...) and fails at inference when the indices output is used.
INDEX_TYPES = ("i16", "i32", "i64", "u16", "u32", "u64")

ATTRIBUTES = (
    Attr("kernel", AttrType.UINT_LIST, default=(), required=True, min_value=1),
    Attr("strides", AttrType.UINT_LIST, default=(), required=True, min_value=1),
    Attr("pads_begin", AttrType.UINT_LIST, default=(), required=True, replaced_when=COMPUTED_PADS),
    Attr("pads_end", AttrType.UINT_LIST, default=(), required=True, replaced_when=COMPUTED_PADS),
    Attr("auto_pad", AttrType.ENUM, default="explicit", choices=AUTO_PADS),
    Attr(
        "rounding_type",
        AttrType.ENUM,
        default="floor",
        choices=ROUNDINGS,
        choice_since={"ceil_torch": 14},
    ),
    Attr("dilations", AttrType.UINT_LIST, default=(), since=8, min_value=1, neutral_item=1),
    Attr("index_element_type", AttrType.ELEMENT_TYPE, default="i64", since=8),
    Attr("axis", AttrType.INT, default=0, since=8),
)


class MaxPoolBase(AvgPoolBase):
    """The window geometry is AvgPool's; the checks, outputs and kernel are MaxPool's."""

    type_name = "MaxPool"
    attributes = ATTRIBUTES

    def __init__(self, attrs: Mapping[str, Any]) -> None:
        super().__init__(attrs)
        self._window_cache: dict[tuple[int, ...], tuple[Window, ...]] = {}

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data = inputs[0]
        kernel, strides, dilations, pads_begin, pads_end = self.spatial_attributes()
        count = len(kernel)
        for name, values in (("pads_begin", pads_begin), ("pads_end", pads_end)):
            if len(values) != count:
                raise ShapeError(
                    f"{name} has {len(values)} value(s) but kernel has {count}", "IR207", name
                )
        rank = data.shape.rank
        if rank is not None and rank not in (3, 4, 5):
            raise ShapeError(f"MaxPool takes a 3D, 4D or 5D input, got {data.shape}")
        for name, values in (("strides", strides), ("dilations", dilations)):
            if len(values) != count:
                raise ShapeError(
                    f"{name} has {len(values)} value(s) but kernel has {count}", "IR207", name
                )
        self._check_own_attributes(ctx)
        if rank is None:
            return self._outputs(data, Shape((Dim.dynamic(),) * (2 + count)))
        if count != rank - 2:
            raise ShapeError(
                f"kernel has {count} value(s) but the {rank}D input {data.shape} has "
                f"{rank - 2} spatial axes",
                "IR207",
                "kernel",
            )
        if self.version >= 8 and not -rank <= self.attrs["axis"] < rank:
            raise ShapeError(
                f"axis {self.attrs['axis']} is out of the range [{-rank}, {rank - 1}] of the "
                f"{rank}D input",
                attribute="axis",
            )
        batch, channels = data.shape[0], data.shape[1]
        if batch.is_static and batch.value == 0:
            raise ShapeError(f"the batch size of input {data.shape} is zero")
        if channels.is_static and channels.value == 0:
            raise ShapeError(f"the channel count of input {data.shape} is zero")
        axes = self.axes(data.shape)
        for index, axis in enumerate(axes):
            if not axis.size.is_static:
                continue  # read_model checks windows on static dims only
            padded = axis.size.value + (padding_total((axis.pad_begin, axis.pad_end)) or 0)
            if axis.kernel < 1 or axis.dilated_kernel >= WRAPPED or axis.dilated_kernel > padded:
                raise ShapeError(
                    f"on spatial axis {index} the kernel after dilation ({axis.dilated_kernel}) "
                    f"is larger than the padded input ({padded})",
                    attribute="kernel",
                )
        self._report_overwritten_pads(axes, ctx)
        return self._outputs(data, Shape((batch, channels, *(a.out for a in axes))))

    def _check_own_attributes(self, ctx: LayerContext) -> None:
        if any(v >= WRAPPED for v in self.attrs["strides"]):
            ctx.report(
                "IR214",
                "a negative stride wraps around 2**64: OpenVINO reads it (one output on that "
                "axis), but its CPU plugin cannot compile the layer",
                "strides",
            )
        if self.version < 8:
            return
        if not self.attrs["dilations"]:
            ctx.report(
                "IR217",
                f"{self.label()} needs explicit dilations (e.g. all 1); without them OpenVINO's "
                "CPU plugin fails at inference when the indices output is used",
                "dilations",
            )
        index_type = self.attrs["index_element_type"]
        if index_type not in INDEX_TYPES:
            ctx.report(
                "IR217",
                f'index_element_type="{index_type}": OpenVINO reads it, but its CPU plugin '
                "fails at inference when the indices output is used (i32 or i64 work)",
                "index_element_type",
            )

    def _outputs(self, data: TensorInfo, shape: Shape) -> list[TensorInfo]:
        values = TensorInfo(data.element_type, shape)
        if self.version < 8:
            return [values]
        return [values, TensorInfo(self.attrs["index_element_type"], shape)]

    def compute(self, inputs: Sequence[NDArray[Any]]) -> list[NDArray[Any]]:
        x = inputs[0]
        windows = self._windows(x.shape)
        if self.version < 8:
            return [_kernel()(x, windows, False)[0]]
        axis = self.attrs["axis"] % x.ndim
        values, indices = _kernel()(x, windows, True, axis)
        index_type = numpy_dtype(self.attrs["index_element_type"]) or np.dtype(np.int64)
        return [values, indices.astype(index_type)]

    def _windows(self, shape: tuple[int, ...]) -> tuple[Window, ...]:
        """Kernel geometry for a concrete input shape; cached, as runs repeat shapes."""
        known = self._window_cache
        if shape not in known:
            from irpool.execute.window import Window  # only running needs it (start-up time)

            known[shape] = tuple(
                Window(a.size.value, a.out.value, a.kernel, a.stride, a.dilation, a.pad_begin)
                for a in self.axes(Shape.of(*shape))
            )
        return known[shape]


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


@cache
def _kernel() -> Callable[..., tuple[NDArray[Any], NDArray[np.int64] | None]]:
    """The NumPy kernel, imported once on first use (validating never loads it)."""
    from irpool.execute.max_pool import max_pool

    return max_pool
