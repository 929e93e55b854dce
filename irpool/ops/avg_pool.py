"""AvgPool-1 (opset1-13), AvgPool-14 (opset14-15, `ceil_torch`), AvgPool-16 (opset16, `dilations`).

Shape rules follow OpenVINO 2026.4 (see docs/semantics.md), not the public spec pages, whose
formula and two examples are wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from numpy.typing import NDArray

from irpool.graph.shape import Dim, Shape
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo, cdiv
from irpool.ops.registry import register
from irpool.rules import ATTRIBUTE_LENGTH_MISMATCH, COMPILE_CRASH, OVERWRITTEN_PADS

if TYPE_CHECKING:
    from irpool.execute.window import Window

AUTO_PADS = ("explicit", "same_upper", "same_lower", "valid")
# auto_pad values under which the runtime computes the pads and never reads the declared ones
COMPUTED_PADS = {"auto_pad": AUTO_PADS[1:]}
# A negative list value wraps around 2**64 when OpenVINO reads it; anything this large is one.
WRAPPED = 1 << 63
UINT64 = 1 << 64
ROUNDINGS = ("floor", "ceil", "ceil_torch")

ATTRIBUTES = (
    Attr("kernel", AttrType.UINT_LIST, default=(), required=True, min_value=1),
    Attr("strides", AttrType.UINT_LIST, default=(), required=True, min_value=1),
    Attr("pads_begin", AttrType.UINT_LIST, default=(), required=True, replaced_when=COMPUTED_PADS),
    Attr("pads_end", AttrType.UINT_LIST, default=(), required=True, replaced_when=COMPUTED_PADS),
    Attr("exclude-pad", AttrType.BOOL, default=True, required=True),
    Attr("auto_pad", AttrType.ENUM, default="explicit", choices=AUTO_PADS),
    Attr(
        "rounding_type",
        AttrType.ENUM,
        default="floor",
        choices=ROUNDINGS,
        choice_since={"ceil_torch": 14},
    ),
    Attr("dilations", AttrType.UINT_LIST, default=(), since=16, min_value=1, neutral_item=1),
)


@dataclass(frozen=True, slots=True)
class Axis:
    """One spatial axis of a pooling layer as the runtime resolves it."""

    kernel: int
    stride: int
    dilation: int
    pad_begin: int
    pad_end: int
    size: Dim
    out: Dim

    @property
    def dilated_kernel(self) -> int:
        return (self.kernel - 1) * self.dilation + 1


def effective_pads(
    size: Dim, kernel: int, stride: int, dilation: int, pads: tuple[int, int], auto_pad: str
) -> tuple[int, int]:
    """The pads the runtime uses: declared (explicit), zero (valid), or computed (same_*)."""
    if auto_pad == "explicit":
        return pads
    if auto_pad == "valid" or not size.is_static:
        return 0, 0
    dilated = (kernel - 1) * dilation + 1
    total = max(0, (cdiv(size.value, stride) - 1) * stride + dilated - size.value)
    low, high = total // 2, total - total // 2
    return (low, high) if auto_pad == "same_upper" else (high, low)


def _out_length(
    length: int, pad_begin: int, dilated: int, stride: int, rounding: str, size: int
) -> int:
    """Output length for one bound; `length` is the padded size L, `size` the real size D."""
    if stride >= WRAPPED:
        return 1  # the runtime's arithmetic on a wrapped stride leaves a single window
    span = max(length - dilated, 0)
    if rounding == "floor":
        return span // stride + 1
    windows = cdiv(span, stride)
    if rounding == "ceil":
        return windows + 1
    # ceil_torch: the last window must start inside the data or the begin padding. The
    # runtime computes D + pads_begin - 1 unsigned, so at 0 it wraps and keeps the window.
    limit = (size + pad_begin - 1) % UINT64
    return windows + 1 if windows * stride <= limit else windows


def padding_total(pads: tuple[int, int]) -> int | None:
    """pads_begin + pads_end as the runtime adds them to a dim: a signed 64-bit sum, where -1
    (a wrapped negative pad) makes the dim dynamic and lower sums count as 0."""
    total = sum(pads) % UINT64
    if total >= WRAPPED:
        total -= UINT64
    return None if total == -1 else max(total, 0)


def axis_out(
    size: Dim,
    kernel: int,
    stride: int,
    dilation: int,
    pads: tuple[int, int],
    auto_pad: str,
    rounding: str,
) -> Dim:
    if auto_pad in ("same_upper", "same_lower") and not size.is_static:
        return Dim.dynamic()
    padding = padding_total(pads)
    if padding is None:
        if size.is_static:
            raise ShapeError(
                "pads_begin + pads_end is -1 after wrapping negative pads; OpenVINO fails "
                "(Cannot get length of dynamic dimension)",
                attribute="pads_end",
            )
        size, padding = Dim(size.low, None), 0
    dilated = (kernel - 1) * dilation + 1

    def bound(value: int) -> int:
        return _out_length(value + padding, pads[0], dilated, stride, rounding, value)

    low = bound(size.low)
    return Dim(low, None if size.high is None else bound(size.high))


class AvgPoolBase(Op):
    type_name = "AvgPool"
    attributes = ATTRIBUTES
    input_names = ("data",)

    def __init__(self, attrs: Mapping[str, Any]) -> None:
        super().__init__(attrs)
        self._geometry_cache: dict[tuple[int, ...], tuple[tuple[Window, ...], bool]] = {}

    def spatial_attributes(self) -> tuple[tuple[int, ...], ...]:
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
        axes = []
        for i, size in enumerate(shape.dims[2:] if shape.dims else ()):
            pads = effective_pads(
                size, kernel[i], strides[i], dilations[i], (pads_begin[i], pads_end[i]), auto_pad
            )
            out = axis_out(size, kernel[i], strides[i], dilations[i], pads, auto_pad, rounding)
            axes.append(Axis(kernel[i], strides[i], dilations[i], *pads, size, out))
        return axes

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data = inputs[0]
        kernel, strides, dilations, pads_begin, pads_end = self.spatial_attributes()
        count = len(kernel)
        for name, values in (("pads_begin", pads_begin), ("pads_end", pads_end)):
            if len(values) != count:
                raise ShapeError(
                    f"{name} has {len(values)} value(s) but kernel has {count}",
                    ATTRIBUTE_LENGTH_MISMATCH,
                    name,
                )
        rank = data.shape.rank
        if rank is not None and rank not in (3, 4, 5):
            raise ShapeError(f"AvgPool takes a 3D, 4D or 5D input, got {data.shape}")
        for name, values in (("strides", strides), ("dilations", dilations)):
            if len(values) != count:
                raise ShapeError(
                    f"{name} has {len(values)} value(s) but kernel has {count}",
                    ATTRIBUTE_LENGTH_MISMATCH,
                    name,
                )
        if any(v >= WRAPPED for v in strides):
            ctx.report(
                COMPILE_CRASH,
                "a negative stride wraps around 2**64: OpenVINO reads it (one output on that "
                "axis), but its CPU plugin cannot compile the layer",
                "strides",
            )
        if self.version >= 16 and not self.attrs["dilations"]:
            ctx.report(
                COMPILE_CRASH,
                "AvgPool-16 needs explicit dilations (e.g. all 1); with empty or missing "
                "dilations OpenVINO's CPU plugin crashes compiling the model",
                "dilations",
            )
        if rank is None:
            return [TensorInfo(data.element_type, Shape((Dim.dynamic(),) * (2 + count)))]
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
        self._check_windows(axes, ctx)
        self._report_overwritten_pads(axes, ctx)
        return [TensorInfo(data.element_type, Shape((batch, channels, *(a.out for a in axes))))]

    def _check_windows(self, axes: list[Axis], ctx: LayerContext) -> None:
        exclude_pad: bool = self.attrs["exclude-pad"]
        for index, axis in enumerate(axes):
            in_padding = exclude_pad and (
                axis.dilated_kernel <= axis.pad_begin or axis.dilated_kernel <= axis.pad_end
            )
            pads_name = "pads_begin" if axis.dilated_kernel <= axis.pad_begin else "pads_end"
            problem = (
                f"on spatial axis {index} the kernel after dilation ({axis.dilated_kernel}) "
                f"fits entirely in the padding (pads {axis.pad_begin}/{axis.pad_end}), which "
                "exclude-pad=true does not allow"
            )
            if not axis.size.is_static:
                # read_model checks windows only on static dims; the CPU plugin checks this
                # one on dynamic dims too, when it compiles.
                if in_padding:
                    ctx.report(
                        COMPILE_CRASH, f"{problem}; the CPU plugin refuses to compile it", pads_name
                    )
                continue
            padded = axis.size.value + (padding_total((axis.pad_begin, axis.pad_end)) or 0)
            if axis.kernel < 1 or axis.dilated_kernel >= WRAPPED or axis.dilated_kernel > padded:
                raise ShapeError(
                    f"on spatial axis {index} the kernel after dilation ({axis.dilated_kernel}) "
                    f"is larger than the padded input ({padded})",
                    attribute="kernel",
                )
            if in_padding:
                raise ShapeError(problem, attribute=pads_name)

    def _report_overwritten_pads(self, axes: list[Axis], ctx: LayerContext) -> None:
        auto_pad: str = self.attrs["auto_pad"]
        if auto_pad == "explicit" or not all(a.size.is_static for a in axes):
            return
        for name, effective in (
            ("pads_begin", [a.pad_begin for a in axes]),
            ("pads_end", [a.pad_end for a in axes]),
        ):
            # As written: a negative pad wraps around 2**64 when read, but is never used here.
            declared = [v - UINT64 if v >= WRAPPED else v for v in self.attrs[name]]
            if name in ctx.present and declared and declared != effective:
                ctx.report(
                    OVERWRITTEN_PADS,
                    f"{name} is declared {_csv(declared)} but auto_pad={auto_pad} makes the "
                    f"runtime use {_csv(effective)}",
                    name,
                )

    def compute(self, inputs: Sequence[NDArray[Any]]) -> list[NDArray[Any]]:
        windows, count_padding = self._geometry(inputs[0].shape)
        return [_kernel()(inputs[0], windows, count_padding)]

    def _geometry(self, shape: tuple[int, ...]) -> tuple[tuple[Window, ...], bool]:
        """Kernel geometry for a concrete input shape; cached, as runs repeat shapes."""
        known = self._geometry_cache
        if shape not in known:
            from irpool.execute.window import Window  # only running needs it (start-up time)

            axes = self.axes(Shape.of(*shape))
            windows = tuple(
                Window(a.size.value, a.out.value, a.kernel, a.stride, a.dilation, a.pad_begin)
                for a in axes
            )
            # The runtime divides by the full kernel only when padding counts and some pad,
            # on any axis, is non-zero; otherwise by the number of real taps.
            count_padding = not self.attrs["exclude-pad"] and any(
                a.pad_begin or a.pad_end for a in axes
            )
            known[shape] = windows, count_padding
        return known[shape]


def _csv(values: Sequence[int]) -> str:
    return ",".join(str(v) for v in values)


@register
class AvgPool1(AvgPoolBase):
    """AvgPool-1: floor/ceil rounding, no dilations."""

    version = 1
    opsets = range(1, 14)


@register
class AvgPool14(AvgPoolBase):
    """AvgPool-14: adds rounding_type="ceil_torch"."""

    version = 14
    opsets = range(14, 16)


@register
class AvgPool16(AvgPoolBase):
    """AvgPool-16: adds `dilations`."""

    version = 16
    opsets = range(16, 17)


@cache
def _kernel() -> Callable[..., NDArray[Any]]:
    """The NumPy kernel, imported once on first use: validating never loads it (start-up
    time), and an import statement in `compute` would cost each call a microsecond."""
    from irpool.execute.avg_pool import avg_pool

    return avg_pool
