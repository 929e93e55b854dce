"""AvgPool-1 (opset1-13), AvgPool-14 (opset14-15, `ceil_torch`), AvgPool-16 (opset16, `dilations`).

Shape rules follow OpenVINO 2026.4 (see docs/ops/AvgPool.md), not the public spec pages, whose
formula and two examples are wrong. The window geometry is shared with MaxPool
(`irpool.ops.pooling`); the kernel is `irpool.execute.kernels.avg_pool`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from irpool.ops.base import Attr, AttrType, LayerContext, ShapeError, TensorInfo
from irpool.ops.pooling import RecentShapes, WindowPoolBase, window_attributes
from irpool.ops.pooling_geometry import Axis, Window
from irpool.ops.registry import register
from irpool.shape import Shape

WINDOW_ATTRIBUTES = window_attributes(ceil_torch_since=14, dilations_since=16)
# In the specification's order: exclude-pad follows the pads.
ATTRIBUTES = (
    *WINDOW_ATTRIBUTES[:4],
    Attr("exclude-pad", AttrType.BOOL, default=True, required=True),
    *WINDOW_ATTRIBUTES[4:],
)


class AvgPoolBase(WindowPoolBase):
    type_name = "AvgPool"
    attributes = ATTRIBUTES

    def __init__(self, attrs: Mapping[str, Any]) -> None:
        super().__init__(attrs)
        self._geometry: RecentShapes[tuple[tuple[Window, ...], bool]] = RecentShapes()

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data = inputs[0]
        axes = self.infer_axes(data, ctx)
        return [TensorInfo(data.type, self.output_shape(data, axes))]

    def check_window(self, index: int, axis: Axis, ctx: LayerContext) -> None:
        in_begin = axis.dilated_kernel <= axis.pad_begin
        in_end = axis.dilated_kernel <= axis.pad_end
        in_padding = self.attrs["exclude-pad"] and (in_begin or in_end)
        pads_name = "pads_begin" if in_begin else "pads_end"
        problem = (
            f"on spatial axis {index} the kernel after dilation ({axis.dilated_kernel}) "
            f"fits entirely in the padding (pads {axis.pad_begin}/{axis.pad_end}), which "
            "exclude-pad=true does not allow"
        )
        if not axis.size.is_static:
            return  # read_model checks windows only on static dims (the CPU: IR606)
        super().check_window(index, axis, ctx)
        if in_padding:
            raise ShapeError(problem, attribute=pads_name)

    def explain_settings(self) -> str:
        exclude_pad = "true" if self.attrs["exclude-pad"] else "false"
        return f"{super().explain_settings()} exclude-pad={exclude_pad}"

    def geometry(self, shape: tuple[int, ...]) -> tuple[tuple[Window, ...], bool]:
        """The windows for a concrete input shape, and whether padding taps count in the
        divisor (cached, as runs repeat shapes)."""
        return self._geometry.get(shape, self._computed_geometry)

    def _computed_geometry(self, shape: tuple[int, ...]) -> tuple[tuple[Window, ...], bool]:
        # The runtime divides by the full kernel only when padding counts and some pad, on
        # any axis, is non-zero; otherwise by the number of real taps.
        count_padding = not self.attrs["exclude-pad"] and any(
            a.pad_begin or a.pad_end for a in self.axes(Shape.of(*shape))
        )
        return self.windows(shape), count_padding


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
