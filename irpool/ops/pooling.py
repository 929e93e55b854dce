"""What sliding-window pooling ops (AvgPool; MaxPool too) share: attributes, checks, axes, explain.

A subclass declares its attribute table (`window_attributes` plus its own) and adds its own
checks by overriding `check_window`; `infer_axes` does the rest. The geometry itself lives
in `irpool.ops.pooling_geometry`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from typing import Any, Generic, TypeVar

from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.explanation import AxisRow, Explanation, dim_value
from irpool.ops.pooling_geometry import (
    AUTO_PADS,
    COMPUTED_PADS,
    ROUNDINGS,
    UINT64,
    WRAPPED,
    Axis,
    Window,
    csv,
    padding_total,
    resolve_axis,
)
from irpool.rules import ATTRIBUTE_LENGTH_MISMATCH, OVERWRITTEN_PADS
from irpool.shape import Dim, Shape

Value = TypeVar("Value")


class RecentShapes(Generic[Value]):
    """What was computed for the last `SIZE` concrete input shapes, least recently used
    first out: runs repeat shapes, but a dynamic model fed ever new ones must not make an op
    hold one entry per shape it ever saw. Safe without a lock: each step is one operation
    on the OrderedDict, and losing a race only computes a value again."""

    SIZE = 32
    __slots__ = ("_values",)

    def __init__(self) -> None:
        self._values: OrderedDict[tuple[int, ...], Value] = OrderedDict()

    def __len__(self) -> int:
        return len(self._values)

    def get(self, shape: tuple[int, ...], compute: Callable[[tuple[int, ...]], Value]) -> Value:
        values = self._values
        value = values.get(shape)
        if value is not None:
            with suppress(KeyError):  # another thread has just evicted it
                values.move_to_end(shape)
            return value
        value = compute(shape)
        values[shape] = value
        while len(values) > self.SIZE:
            try:
                values.popitem(last=False)
            except KeyError:  # another thread has just emptied it
                break
        return value


def window_attributes(ceil_torch_since: int, dilations_since: int) -> tuple[Attr, ...]:
    """kernel, strides, pads_begin/end, auto_pad, rounding_type and dilations, with the
    versions that introduced `rounding_type="ceil_torch"` and `dilations`."""
    return (
        Attr("kernel", AttrType.UINT_LIST, default=(), required=True, min_value=1),
        Attr("strides", AttrType.UINT_LIST, default=(), required=True, min_value=1),
        Attr(
            "pads_begin", AttrType.UINT_LIST, default=(), required=True, replaced_when=COMPUTED_PADS
        ),
        Attr(
            "pads_end", AttrType.UINT_LIST, default=(), required=True, replaced_when=COMPUTED_PADS
        ),
        Attr("auto_pad", AttrType.ENUM, default="explicit", choices=AUTO_PADS),
        Attr(
            "rounding_type",
            AttrType.ENUM,
            default="floor",
            choices=ROUNDINGS,
            choice_since={"ceil_torch": ceil_torch_since},
        ),
        Attr(
            "dilations",
            AttrType.UINT_LIST,
            default=(),
            since=dilations_since,
            min_value=1,
            neutral_item=1,
        ),
    )


class WindowPoolBase(Op):
    """A pooling op over windows on the spatial axes of a 3D, 4D or 5D `data` input."""

    input_names = ("data",)

    def __init__(self, attrs: Mapping[str, Any]) -> None:
        super().__init__(attrs)
        self._windows: RecentShapes[tuple[Window, ...]] = RecentShapes()

    def spatial_attributes(self) -> tuple[tuple[int, ...], ...]:
        """kernel, strides, dilations, pads_begin, pads_end; absent ones filled with 1s/0s."""
        kernel: tuple[int, ...] = self.attrs["kernel"]
        count = len(kernel)
        pads_begin = self.attrs["pads_begin"] or (0,) * count
        pads_end = self.attrs["pads_end"] or (0,) * count
        dilations = self.attrs.get("dilations") or (1,) * count
        return kernel, self.attrs["strides"], dilations, pads_begin, pads_end

    def axes(self, shape: Shape) -> list[Axis]:
        """Per-axis geometry for an input of known rank (lengths already checked)."""
        kernel, strides, dilations, pads_begin, pads_end = self.spatial_attributes()
        auto_pad, rounding = self.attrs["auto_pad"], self.attrs["rounding_type"]
        return [
            resolve_axis(
                size,
                kernel[i],
                strides[i],
                dilations[i],
                (pads_begin[i], pads_end[i]),
                auto_pad,
                rounding,
            )
            for i, size in enumerate(shape.dims[2:] if shape.dims else ())
        ]

    def windows(self, shape: tuple[int, ...]) -> tuple[Window, ...]:
        """The run-time geometry for a concrete input shape; cached, as runs repeat shapes."""
        return self._windows.get(shape, self._computed_windows)

    def _computed_windows(self, shape: tuple[int, ...]) -> tuple[Window, ...]:
        return tuple(axis.window() for axis in self.axes(Shape.of(*shape)))

    def infer_axes(self, data: TensorInfo, ctx: LayerContext) -> list[Axis] | None:
        """Check the attributes against `data` as the runtime does; the axes, or None when
        the input's rank is unknown."""
        kernel, strides, dilations, pads_begin, pads_end = self.spatial_attributes()
        count = len(kernel)
        check_lengths(count, ("pads_begin", pads_begin), ("pads_end", pads_end))
        rank = data.shape.rank
        if rank is not None and rank not in (3, 4, 5):
            raise ShapeError(f"{self.type_name} takes a 3D, 4D or 5D input, got {data.shape}")
        check_lengths(count, ("strides", strides), ("dilations", dilations))
        if rank is None:
            return None
        if count != rank - 2:
            raise ShapeError(
                f"kernel has {count} value(s) but the {rank}D input {data.shape} has "
                f"{rank - 2} spatial axes",
                ATTRIBUTE_LENGTH_MISMATCH,
                "kernel",
            )
        batch, channels = data.shape[0], data.shape[1]
        if batch.is_static and batch.value == 0:
            raise ShapeError(f"the batch size of input {data.shape} is zero")
        if channels.is_static and channels.value == 0:
            raise ShapeError(f"the channel count of input {data.shape} is zero")
        axes = self.axes(data.shape)
        for index, axis in enumerate(axes):
            self.check_window(index, axis, ctx)
        # The pads are certain only from an input irpool inferred, never from a port's claim.
        report_overwritten_pads(self.attrs, axes, ctx, certain=not data.trusted)
        return axes

    def check_window(self, index: int, axis: Axis, ctx: LayerContext) -> None:
        """A static axis's window must fit the padded input (override to check more)."""
        if not axis.size.is_static:
            return
        padded = axis.size.value + (padding_total((axis.pad_begin, axis.pad_end)) or 0)
        if axis.kernel < 1 or axis.dilated_kernel >= WRAPPED or axis.dilated_kernel > padded:
            raise ShapeError(
                f"on spatial axis {index} the kernel after dilation ({axis.dilated_kernel}) "
                f"is larger than the padded input ({padded})",
                attribute="kernel",
            )

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        data = inputs[0] if inputs else None
        if data is None or data.shape.dims is None:
            return None
        rows = axis_rows(self.axes(data.shape), self.attrs)
        return Explanation(self.explain_settings(), rows)

    def explain_settings(self) -> str:
        """The layer's settings line in `irpool explain` (override to add the op's own)."""
        return f"auto_pad={self.attrs['auto_pad']} rounding_type={self.attrs['rounding_type']}"

    def output_shape(self, data: TensorInfo, axes: list[Axis] | None) -> Shape:
        """[N, C, *windows per axis], or all-dynamic when the rank is unknown."""
        if axes is None:
            return Shape((Dim.dynamic(),) * (2 + len(self.attrs["kernel"])))
        return Shape((data.shape[0], data.shape[1], *(a.out for a in axes)))


def check_lengths(count: int, *lists: tuple[str, tuple[int, ...]]) -> None:
    """Each list must have `count` values, as the kernel has."""
    for name, values in lists:
        if len(values) != count:
            raise ShapeError(
                f"{name} has {len(values)} value(s) but kernel has {count}",
                ATTRIBUTE_LENGTH_MISMATCH,
                name,
            )


def report_overwritten_pads(
    attrs: Mapping[str, Any], axes: Sequence[Axis], ctx: LayerContext, certain: bool
) -> None:
    """IR213 for declared pads that auto_pad replaces; the fix only when `certain` (the
    input was inferred, not taken from a port's claim)."""
    for name, effective in pad_corrections(attrs, axes).items():
        if name in ctx.present:
            ctx.report(
                OVERWRITTEN_PADS,
                f"{name} is declared {csv(declared_pads(attrs, name))} but "
                f"auto_pad={attrs['auto_pad']} makes the runtime use {effective}",
                name,
                fix=effective if certain else None,
            )


def declared_pads(attrs: Mapping[str, Any], name: str) -> list[int]:
    """pads_begin/pads_end as written: a negative pad wraps around 2**64 when read, but is
    never used here."""
    return [v - UINT64 if v >= WRAPPED else v for v in attrs[name]]


def pad_corrections(attrs: Mapping[str, Any], axes: Sequence[Axis]) -> dict[str, str]:
    """pads_begin/pads_end -> the pads the runtime uses, where auto_pad overrides
    declared pads that differ (all static axes only)."""
    if attrs["auto_pad"] == "explicit" or not all(a.size.is_static for a in axes):
        return {}
    corrections = {}
    for name, effective in (
        ("pads_begin", [a.pad_begin for a in axes]),
        ("pads_end", [a.pad_end for a in axes]),
    ):
        declared = declared_pads(attrs, name)
        if declared and declared != effective:
            corrections[name] = csv(effective)
    return corrections


def axis_rows(axes: Sequence[Axis], attrs: Mapping[str, Any]) -> list[AxisRow]:
    """`irpool explain`'s row per spatial axis, with the declared pads where the runtime
    uses others (same_*, valid)."""
    declared_begin, declared_end = attrs["pads_begin"], attrs["pads_end"]
    rows = []
    for index, axis in enumerate(axes):
        pads = [axis.pad_begin, axis.pad_end]
        declared = None
        if index < min(len(declared_begin), len(declared_end)):
            declared = [declared_begin[index], declared_end[index]]
        rows.append(
            AxisRow(
                size=dim_value(axis.size),
                window=axis.kernel,
                stride=axis.stride,
                dilation=axis.dilation,
                pads=pads,
                # same_*/valid: the runtime's own pads replace the declared ones
                declared_pads=declared if declared != pads else None,
                windows=dim_value(axis.out),
            )
        )
    return rows
