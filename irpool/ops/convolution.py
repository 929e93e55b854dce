"""Convolution-1 and GroupConvolution-1 (opset1-16): `data` [N, C, *spatial] by `filters`
[O, C, *kernel] (GroupConvolution: [G, O/G, C/G, *kernel]) into [N, O, *windows].

Attributes and shape rules are OpenVINO 2026.4's (measured, docs/ops/Convolution.md): the kernel is
the filters' spatial dims;
strides and dilations default to 1 and pads to 0 when absent or empty; every list must have one
value per spatial axis; explicit and valid give `floor((D + pads - dilated kernel) / s) + 1`
with interval bounds (a lower bound that does not fit gives 1), same_upper/same_lower give
`ceil(D / s)` whatever the kernel. The runtime's messages are kept for what it refuses. Each
axis resolves with the pooling geometry (`irpool.ops.pooling_geometry`); the kernel is
`irpool.execute.kernels.convolution`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from copy import copy
from typing import TYPE_CHECKING, Any, ClassVar

from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.explanation import Explanation
from irpool.ops.pooling import axis_rows, report_overwritten_pads
from irpool.ops.pooling_geometry import (
    AUTO_PADS,
    COMPUTED_PADS,
    WRAPPED,
    Axis,
    Window,
    cdiv,
    effective_pads,
    padding_total,
)
from irpool.ops.registry import register
from irpool.rules import ATTRIBUTE_LENGTH_MISMATCH
from irpool.shape import Dim, Shape

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    # Adds to an int8 layer's f32 result (the first argument) what its saturating sums
    # change, from its input and windows.
    Saturation = Callable[[NDArray[np.float32], NDArray[np.float32], Sequence[Window]], None]

SAME = ("same_upper", "same_lower")
ATTRIBUTES = (
    Attr("strides", AttrType.UINT_LIST, default=(), required=True, min_value=1),
    Attr("pads_begin", AttrType.UINT_LIST, default=(), required=True, replaced_when=COMPUTED_PADS),
    Attr("pads_end", AttrType.UINT_LIST, default=(), required=True, replaced_when=COMPUTED_PADS),
    Attr("dilations", AttrType.UINT_LIST, default=(), required=True, min_value=1),
    Attr("auto_pad", AttrType.ENUM, default="explicit", choices=AUTO_PADS),
)
# The order in which the runtime takes the spatial rank from the attributes when neither input
# has a known rank, and its message for a list of another length.
LENGTH_MESSAGES = {
    "strides": "Strides should be defined for all and only spatial dimensions.",
    "dilations": "Dilations should be defined for all and only spatial dimensions.",
    "pads_begin": "Pads begin and end should be defined for all and only spatial dimensions.",
    "pads_end": "Pads begin and end should be defined for all and only spatial dimensions.",
}


def count_from_lists(attrs: Mapping[str, Any]) -> int | None:
    """The number of spatial axes from the first list attribute given, as the runtime takes
    it when no input has a known rank."""
    for name in LENGTH_MESSAGES:
        if attrs[name]:
            return len(attrs[name])
    return None


def filled_lists(attrs: Mapping[str, Any], count: int) -> dict[str, tuple[int, ...]]:
    """strides, dilations, pads_begin, pads_end with empty ones filled (1s, 0s)."""
    filled = {}
    for name in LENGTH_MESSAGES:
        values: tuple[int, ...] = attrs[name]
        neutral = 0 if name.startswith("pads") else 1
        filled[name] = values or (neutral,) * count
    return filled


def check_list_lengths(attrs: Mapping[str, Any], count: int) -> None:
    """Each list given has one value per spatial axis, or the runtime's message."""
    for name, message in LENGTH_MESSAGES.items():
        values = attrs[name]
        if values and len(values) != count:
            raise ShapeError(
                f"{message} ({name} has {len(values)} value(s), the input {count} spatial axes)",
                ATTRIBUTE_LENGTH_MISMATCH,
                name,
            )


def _minus(a: Dim, b: Dim) -> Dim:
    """a - b on intervals, clipped at 0, as OpenVINO's Dimension subtracts."""
    low = 0 if b.high is None else max(a.low - b.high, 0)
    return Dim(low, None if a.high is None else max(a.high - b.low, 0))


def _windows(padded: Dim, dilated: Dim, stride: int) -> Dim:
    """floor((padded - dilated) / stride) + 1 on intervals."""
    span = _minus(padded, dilated)
    return Dim(span.low // stride + 1, None if span.high is None else span.high // stride + 1)


def spatial_dim(
    axis: int,
    size: Dim,
    kernel: Dim,
    stride: int,
    dilation: int,
    pads: tuple[int, int],
    auto_pad: str,
    at_run_time: bool = False,
) -> Dim:
    """Spatial axis `axis`'s output dim as OpenVINO infers it (`pads` as declared, wrapped
    if negative). At run time (a dynamic input's dims known) the CPU plugin runs a dilated
    kernel one longer than the padded input with stride 1, as 0 windows (measured); any
    other kernel longer than the padded input fails its inference too."""
    if auto_pad in SAME:
        return Dim(cdiv(size.low, stride), None if size.high is None else cdiv(size.high, stride))
    padding = 0 if auto_pad == "valid" else padding_total(pads)
    if padding is None:  # the pads sum to -1: a dynamic dim, whose bound is the input's
        padded = Dim(size.low, None)
    else:
        padded = Dim(size.low + padding, None if size.high is None else size.high + padding)
    dilated = Dim(
        (max(kernel.low, 1) - 1) * dilation + 1,
        None if kernel.high is None else (max(kernel.high, 1) - 1) * dilation + 1,
    )
    if padded.is_static and dilated.is_static and dilated.value > padded.value:
        if at_run_time and stride == 1 and dilated.value == padded.value + 1:
            return Dim.static(0)
        raise ShapeError(
            f"Kernel after dilation has size (dim: {dilated.value}) larger than the data shape "
            f"after padding (dim: {padded.value}) at axis {axis}.",
            attribute="pads_end" if padding else None,
        )
    return _windows(padded, dilated, min(stride, WRAPPED))


class ConvolutionBase(Op):
    """What Convolution and GroupConvolution share; subclasses say how filters map channels."""

    version = 1
    opsets = range(1, 17)
    attributes = ATTRIBUTES
    input_names = ("data", "filters")
    # Filter dims before the kernel: [O, C] or [G, O/G, C/G].
    filter_prefix: ClassVar[int]
    # Set by the execution plan on a layer the CPU plugin runs on int8 operands
    # (irpool/cpu/quantized_convolutions.py): its kernel may round more than in f32.
    int8_on_cpu: bool = False
    # Adds what the CPU's int8 sums of such a layer change to its f32 result, from its input
    # and windows, on a host whose sums saturate (irpool/cpu/int8_pairs.py); else None.
    int8_saturation: Saturation | None = None

    def for_layer(self, inputs: Sequence[TensorInfo]) -> ConvolutionBase:
        """Each layer its own op: the kernel keeps the layer's prepared filters."""
        return copy(self)

    def spatial_count(self, data: Shape, filters: Shape) -> int | None:
        """The number of spatial axes, as the runtime finds it: from the data's rank, the
        filters', or else the first attribute list given."""
        if data.rank is not None:
            return data.rank - 2
        if filters.rank is not None:
            return filters.rank - self.filter_prefix
        return count_from_lists(self.attrs)

    def lists(self, count: int) -> dict[str, tuple[int, ...]]:
        """strides, dilations, pads_begin, pads_end with empty ones filled (1s, 0s)."""
        return filled_lists(self.attrs, count)

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, filters = inputs
        if not (data.type.is_dynamic or filters.type.is_dynamic) and data.type != filters.type:
            raise ShapeError(
                "Element types for data batch and filters do not match (data batch element "
                f"type: {data.element_type}, filters element type: {filters.element_type})."
            )
        kind = filters.type if data.type.is_dynamic else data.type
        if kind.is_boolean:
            raise ShapeError(f"Element types must be numeric. Got: {kind.name}")
        count = self.spatial_count(data.shape, filters.shape)
        if count is None:
            return [TensorInfo(kind, Shape.dynamic())]
        self.check_shapes(data.shape, filters.shape)
        check_list_lengths(self.attrs, count)
        channels = self.output_channels(data.shape, filters.shape)
        dims = self.spatial_dims(data.shape, filters.shape, count, ctx.at_run_time)
        axes = self.axes(data.shape, filters.shape, ctx.at_run_time)
        if axes is not None:
            report_overwritten_pads(self.attrs, axes, ctx, certain=not data.trusted)
        batch = data.shape[0] if data.shape.dims is not None else Dim.dynamic()
        return [TensorInfo(kind, Shape((batch, channels, *dims)))]

    def check_shapes(self, data: Shape, filters: Shape) -> None:
        """The ranks and channels as the runtime checks them (override for groups)."""
        check_data_rank(data)

    def output_channels(self, data: Shape, filters: Shape) -> Dim:
        raise NotImplementedError

    def kernel_dims(self, filters: Shape, count: int) -> tuple[Dim, ...]:
        if filters.dims is None:
            return (Dim.dynamic(),) * count
        return filters.dims[self.filter_prefix :]

    def spatial_dims(
        self, data: Shape, filters: Shape, count: int, at_run_time: bool = False
    ) -> list[Dim]:
        lists = self.lists(count)
        sizes = data.dims[2:] if data.dims is not None else (Dim.dynamic(),) * count
        dims = []
        for axis, (size, kernel) in enumerate(
            zip(sizes, self.kernel_dims(filters, count), strict=True)
        ):
            pads = (lists["pads_begin"][axis], lists["pads_end"][axis])
            stride, dilation = lists["strides"][axis], lists["dilations"][axis]
            auto_pad = self.attrs["auto_pad"]
            dims.append(
                spatial_dim(axis, size, kernel, stride, dilation, pads, auto_pad, at_run_time)
            )
        return dims

    def axes(self, data: Shape, filters: Shape, at_run_time: bool = False) -> list[Axis] | None:
        """Each spatial axis's geometry (effective pads, output dim); None unless the ranks
        and the kernel are known."""
        if data.dims is None or filters.dims is None:
            return None
        kernel = filters.dims[self.filter_prefix :]
        if not all(k.is_static for k in kernel):
            return None
        count = len(kernel)
        lists = self.lists(count)
        dims = self.spatial_dims(data, filters, count, at_run_time)
        axes = []
        for axis, (size, k, out) in enumerate(zip(data.dims[2:], kernel, dims, strict=True)):
            stride, dilation = lists["strides"][axis], lists["dilations"][axis]
            pads = (lists["pads_begin"][axis], lists["pads_end"][axis])
            begin, end = effective_pads(
                size, k.value, stride, dilation, pads, self.attrs["auto_pad"]
            )
            axes.append(Axis(k.value, stride, dilation, begin, end, size, out))
        return axes

    def windows(self, data: tuple[int, ...], filters: tuple[int, ...]) -> tuple[Window, ...]:
        """The run-time geometry of concrete shapes."""
        axes = self.axes(Shape.of(*data), Shape.of(*filters), at_run_time=True)
        assert axes is not None
        return tuple(axis.window() for axis in axes)

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        data, filters = (inputs[0], inputs[1]) if len(inputs) == 2 else (None, None)
        if data is None or filters is None:
            return None
        axes = self.axes(data.shape, filters.shape)
        if axes is None:
            return None
        return Explanation(self.explain_settings(filters.shape), axis_rows(axes, self.attrs))

    def explain_settings(self, filters: Shape) -> str:
        return f"auto_pad={self.attrs['auto_pad']}"


@register
class Convolution1(ConvolutionBase):
    """Convolution-1: filters [O, C, *kernel]."""

    type_name = "Convolution"
    filter_prefix = 2

    def check_shapes(self, data: Shape, filters: Shape) -> None:
        check_filter_channels(data, filters, 1)
        super().check_shapes(data, filters)

    def output_channels(self, data: Shape, filters: Shape) -> Dim:
        return filters[0] if filters.dims is not None else Dim.dynamic()


@register
class GroupConvolution1(ConvolutionBase):
    """GroupConvolution-1: filters [G, O/G, C/G, *kernel]; G groups of C/G channels each."""

    type_name = "GroupConvolution"
    filter_prefix = 3

    def check_shapes(self, data: Shape, filters: Shape) -> None:
        super().check_shapes(data, filters)
        if data.rank is not None and filters.rank is not None and data.rank != filters.rank - 1:
            raise ShapeError(
                f"Data batch and filters rank do not match (data batch shape: {data}, filters "
                f"shape: {filters})."
            )

    def output_channels(self, data: Shape, filters: Shape) -> Dim:
        if filters.dims is None:
            return Dim.dynamic()
        groups = self.groups(data, filters)
        per_group = filters[1]
        high = (
            None if groups.high is None or per_group.high is None else groups.high * per_group.high
        )
        return Dim(groups.low * per_group.low, high)

    def groups(self, data: Shape, filters: Shape) -> Dim:
        """The filters' group dim merged with data channels / filter input channels."""
        return merged_groups(data, filters[0], filters[2], f"(data {data}, filters {filters})")

    def explain_settings(self, filters: Shape) -> str:
        groups = "?" if filters.dims is None else str(filters[0])
        return f"{super().explain_settings(filters)} groups={groups}"


def check_data_rank(data: Shape) -> None:
    if data.rank is not None and data.rank not in (3, 4, 5):
        raise ShapeError(f"Expected a 3D, 4D or 5D tensor for the input. Got: {data}")


def check_filter_channels(data: Shape, filters: Shape, axis: int) -> None:
    """Data and filters of one rank, the data's channels those of the filters' dim `axis`,
    as the runtime checks them, with its messages."""
    if data.rank is None or filters.rank is None:
        return
    if data.rank != filters.rank:
        raise ShapeError(
            f"Data batch and filters rank do not match (data batch shape: {data}, "
            f"filters shape: {filters})."
        )
    if data[1].overlap(filters[axis]) is None:
        raise ShapeError(
            f"Data batch channel count ({data[1]}) does not match filter input channel "
            f"count ({filters[axis]})."
        )


def merged_groups(data: Shape, groups: Dim, per_group: Dim, detail: str = "") -> Dim:
    """The filters' group dim merged with the data's channels / `per_group` (input channels
    of a group), the division rounded up at the lower bound and down at the upper, as the
    runtime merges them."""
    if data.dims is None or not per_group.is_static or per_group.value == 0:
        return groups
    channels = data[1]
    quotient = Dim(
        cdiv(channels.low, per_group.value),
        None if channels.high is None else channels.high // per_group.value,
    )
    both = groups.overlap(quotient)
    if both is None:
        raise ShapeError(
            "Input channels dimension of data batch is incompatible with filter groups or "
            f"input channels. {detail}".rstrip()
        )
    return both
