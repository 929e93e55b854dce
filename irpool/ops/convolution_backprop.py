"""ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1 (opset1-16): the transposed
convolution of `data` [N, C, *spatial] by `filters` [C, O, *kernel] (grouped: [G, C/G, O/G,
*kernel]) into [N, O, *spatial out]; an optional third input `output_shape` gives the spatial
output dims.

Attributes and shape rules are OpenVINO 2026.4's (measured, docs/ops/ConvolutionBackpropData.md):
strides and dilations default to 1, pads and output_padding to 0 when absent or empty; every
list must have one value per spatial axis. Without `output_shape` each spatial dim is
`(D - 1) * s + (K - 1) * d + 1 + output_padding - pads`, the pads being the declared ones
(explicit) or 0 (valid, same_upper, same_lower); a negative result is a dynamic dim. With
`output_shape` the dims are its values (or their bounds), and same_upper/same_lower pad
`max((D - 1) * s + (K - 1) * d + 1 - out + output_padding, 0)` in all, the odd one at the
begin (same_upper) or at the end (same_lower). The runtime's messages are kept for what it
refuses. The kernel is `irpool.execute.kernels.convolution_backprop`.
"""

from __future__ import annotations

from collections.abc import Sequence
from copy import copy
from dataclasses import dataclass
from typing import ClassVar

from irpool.element_types import ElementType
from irpool.ops.base import (
    Attr,
    AttrType,
    LayerContext,
    Op,
    ShapeError,
    TensorInfo,
    read_value,
)
from irpool.ops.broadcast import target_dims
from irpool.ops.convolution import (
    ATTRIBUTES,
    SAME,
    check_data_rank,
    check_filter_channels,
    check_list_lengths,
    count_from_lists,
    filled_lists,
    merged_groups,
)
from irpool.ops.explanation import AxisRow, Explanation, dim_value
from irpool.ops.registry import register
from irpool.rules import ATTRIBUTE_LENGTH_MISMATCH
from irpool.shape import Dim, Shape

BACKPROP_ATTRIBUTES = (*ATTRIBUTES, Attr("output_padding", AttrType.UINT_LIST, default=()))


@dataclass(frozen=True, slots=True)
class BackpropAxis:
    """One spatial axis on concrete sizes: input `i`, tap `j` adds to output
    `i * stride + j * dilation - pad_begin` when it lies in [0, out)."""

    size: int
    kernel: int
    stride: int
    dilation: int
    pad_begin: int
    out: int

    def tap_inputs(self, j: int) -> tuple[int, int]:
        """The inputs [lo, hi) whose tap `j` lands in the output (hi may equal lo)."""
        offset = j * self.dilation - self.pad_begin
        lo = max(0, -(offset // self.stride))
        hi = min(self.size, (self.out - 1 - offset) // self.stride + 1)
        return lo, max(lo, hi)


def _padded(dim: Dim, padding: int) -> Dim:
    """dim + padding as OpenVINO's dim::padded: a bound below 0 becomes unbounded (an upper)
    or 0 (a lower); a static dim below 0 a dynamic one."""
    if padding == 0:
        return dim
    high = None if dim.high is None or dim.high + padding < 0 else dim.high + padding
    if dim.is_static:
        return Dim.dynamic() if high is None else Dim.static(high)
    return Dim(max(dim.low + padding, 0), high)


def _full_dim(size: Dim, kernel: Dim, stride: int, dilation: int) -> Dim:
    """(size - 1) * stride + the dilated kernel, on intervals clipped at 0 as OpenVINO's."""
    low = max(size.low - 1, 0) * stride + max(kernel.low - 1, 0) * dilation + 1
    if size.high is None or kernel.high is None:
        return Dim(low, None)
    return Dim(low, max(size.high - 1, 0) * stride + max(kernel.high - 1, 0) * dilation + 1)


class ConvolutionBackpropBase(Op):
    """What the two ops share; subclasses say how the filters map channels."""

    version = 1
    opsets = range(1, 17)
    attributes = BACKPROP_ATTRIBUTES
    input_names = ("data", "filters", "output_shape")
    optional_inputs = 1
    # Filter dims before the kernel: [C, O] or [G, C/G, O/G].
    filter_prefix: ClassVar[int]

    def for_layer(self, inputs: Sequence[TensorInfo]) -> ConvolutionBackpropBase:
        """Each layer its own op: the kernel keeps the layer's prepared filters."""
        return copy(self)

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, filters = inputs[:2]
        given = inputs[2] if len(inputs) > 2 else None
        kind = _element_type(data, filters, given)
        out_spatial = self._output_shape(given)
        count = self._spatial_count(data.shape, filters.shape, out_spatial)
        if count is None:
            return [TensorInfo(kind, Shape.dynamic())]
        if given is not None and out_spatial.rank is not None and out_spatial.rank != count:
            raise ShapeError("Output shape should be defined for all and only spatial dimensions.")
        self.check_shapes(data.shape, filters.shape)
        check_list_lengths(self.attrs, count)
        padding = self.attrs["output_padding"]
        if padding and len(padding) != count:
            raise ShapeError(
                "Output padding should be defined for all and only spatial dimensions. "
                f"(output_padding has {len(padding)} value(s), the input {count} spatial axes)",
                ATTRIBUTE_LENGTH_MISMATCH,
                "output_padding",
            )
        batch = data.shape[0] if data.shape.dims is not None else Dim.dynamic()
        channels = self.output_channels(data.shape, filters.shape)
        if given is not None:
            dims = list(out_spatial.dims or (Dim.dynamic(),) * count)
        else:
            dims = self._spatial_dims(data.shape, filters.shape, count)
        return [TensorInfo(kind, Shape((batch, channels, *dims)))]

    @staticmethod
    def _output_shape(given: TensorInfo | None) -> Shape:
        """The spatial output dims `output_shape` gives: its values or bounds, dynamic dims
        of its length when they are unknown, a dynamic rank when that is too."""
        if given is None:
            return Shape(())
        if given.shape.rank not in (None, 1):
            raise ShapeError("Input delivering output shape must have rank 1.")
        read_value(given, "output_shape")
        dims = target_dims(given)
        if dims is not None:
            return Shape(tuple(dims))
        if given.shape.is_static:
            return Shape((Dim.dynamic(),) * given.shape[0].value)
        return Shape.dynamic()

    def _spatial_count(self, data: Shape, filters: Shape, out_spatial: Shape) -> int | None:
        """The number of spatial axes as the runtime finds it: from the data's rank, the
        filters', `output_shape`'s length, or else the first list attribute given."""
        if data.rank is not None:
            return data.rank - 2
        if filters.rank is not None:
            return filters.rank - self.filter_prefix
        if out_spatial.rank:
            return out_spatial.rank
        return count_from_lists(self.attrs)

    def lists(self, count: int) -> dict[str, tuple[int, ...]]:
        """strides, dilations, pads_begin, pads_end, output_padding with empty ones filled."""
        lists = filled_lists(self.attrs, count)
        lists["output_padding"] = self.attrs["output_padding"] or (0,) * count
        return lists

    def _spatial_dims(self, data: Shape, filters: Shape, count: int) -> list[Dim]:
        lists = self.lists(count)
        explicit = self.attrs["auto_pad"] == "explicit"
        sizes = data.dims[2:] if data.dims is not None else (Dim.dynamic(),) * count
        kernels = (
            filters.dims[self.filter_prefix :]
            if filters.dims is not None
            else (Dim.dynamic(),) * count
        )
        dims = []
        for axis in range(count):
            full = _full_dim(
                sizes[axis], kernels[axis], lists["strides"][axis], lists["dilations"][axis]
            )
            pads = lists["pads_begin"][axis] + lists["pads_end"][axis] if explicit else 0
            dims.append(_padded(full, lists["output_padding"][axis] - pads))
        return dims

    def check_shapes(self, data: Shape, filters: Shape) -> None:
        """The ranks and channels as the runtime checks them."""
        raise NotImplementedError

    def output_channels(self, data: Shape, filters: Shape) -> Dim:
        raise NotImplementedError

    def axes(
        self, data: tuple[int, ...], filters: tuple[int, ...], out: Sequence[int] | None
    ) -> tuple[BackpropAxis, ...]:
        """Each spatial axis on concrete shapes (`out`: `output_shape`'s values, if given)."""
        count = len(data) - 2
        lists = self.lists(count)
        auto_pad = self.attrs["auto_pad"]
        axes = []
        for axis in range(count):
            size, kernel = data[2 + axis], filters[self.filter_prefix + axis]
            stride, dilation = lists["strides"][axis], lists["dilations"][axis]
            full = (size - 1) * stride + (kernel - 1) * dilation + 1
            extra = lists["output_padding"][axis]
            begin = lists["pads_begin"][axis] if auto_pad == "explicit" else 0
            if out is None:
                end = lists["pads_end"][axis] if auto_pad == "explicit" else 0
                length = full + extra - begin - end
            else:
                length = out[axis]
                if auto_pad in SAME:
                    padding = max(full - length + extra, 0)
                    begin = padding - padding // 2 if auto_pad == "same_upper" else padding // 2
            if length < 0:
                raise ShapeError(
                    f"spatial axis {axis}: the output would have {length} elements (the pads "
                    "exceed the transposed convolution's extent)"
                )
            axes.append(BackpropAxis(size, kernel, stride, dilation, begin, length))
        return tuple(axes)

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        data, filters = (inputs[0], inputs[1]) if len(inputs) >= 2 else (None, None)
        if data is None or filters is None or data.shape.dims is None:
            return None
        if filters.shape.dims is None or outputs[0].shape.dims is None:
            return None
        count = len(data.shape.dims) - 2
        lists = self.lists(count)
        kernel = filters.shape.dims[self.filter_prefix :]
        explicit = self.attrs["auto_pad"] == "explicit"
        rows = []
        for axis in range(count):
            pads = [lists["pads_begin"][axis], lists["pads_end"][axis]] if explicit else [0, 0]
            rows.append(
                AxisRow(
                    size=dim_value(data.shape.dims[2 + axis]),
                    window=dim_value(kernel[axis]),
                    stride=lists["strides"][axis],
                    dilation=lists["dilations"][axis],
                    pads=pads,
                    declared_pads=None,
                    windows=dim_value(outputs[0].shape.dims[2 + axis]),
                )
            )
        given = " output_shape given" if len(inputs) > 2 else ""
        padding = ",".join(map(str, lists["output_padding"]))
        return Explanation(
            f"auto_pad={self.attrs['auto_pad']} output_padding={padding}{given}", rows
        )


def _element_type(data: TensorInfo, filters: TensorInfo, given: TensorInfo | None) -> ElementType:
    if not (data.type.is_dynamic or filters.type.is_dynamic) and data.type != filters.type:
        raise ShapeError(
            "Element types for data batch and filters do not match (data batch element "
            f"type: {data.element_type}, filters element type: {filters.element_type})."
        )
    kind = filters.type if data.type.is_dynamic else data.type
    if kind.is_boolean:
        raise ShapeError(f"Element type of inputs must be numeric. Got: {kind.name}")
    if given is not None and not (given.type.is_integer or given.type.is_dynamic):
        raise ShapeError(
            "Element type for output shape should be of integer type (output_shape element "
            f"type: {given.element_type})."
        )
    return kind


@register
class ConvolutionBackpropData1(ConvolutionBackpropBase):
    """ConvolutionBackpropData-1: filters [C, O, *kernel]."""

    type_name = "ConvolutionBackpropData"
    filter_prefix = 2

    def check_shapes(self, data: Shape, filters: Shape) -> None:
        check_filter_channels(data, filters, 0)
        check_data_rank(data)

    def output_channels(self, data: Shape, filters: Shape) -> Dim:
        return filters[1] if filters.dims is not None else Dim.dynamic()


@register
class GroupConvolutionBackpropData1(ConvolutionBackpropBase):
    """GroupConvolutionBackpropData-1: filters [G, C/G, O/G, *kernel]."""

    type_name = "GroupConvolutionBackpropData"
    filter_prefix = 3

    def check_shapes(self, data: Shape, filters: Shape) -> None:
        check_data_rank(data)
        if data.rank is not None and filters.rank is not None and data.rank != filters.rank - 1:
            raise ShapeError(
                f"Data and filters rank do not match (data batch shape: {data}, filters "
                f"shape: {filters})."
            )

    def output_channels(self, data: Shape, filters: Shape) -> Dim:
        if filters.dims is None:
            return Dim.dynamic()
        groups = merged_groups(data, filters[0], filters[1])
        per_group_out = filters[2]
        high = (
            None
            if groups.high is None or per_group_out.high is None
            else groups.high * per_group_out.high
        )
        return Dim(groups.low * per_group_out.low, high)
