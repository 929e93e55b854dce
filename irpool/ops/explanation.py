"""What an op says about one of its layers for `irpool explain` (`Op.explain`): its settings
and a row per spatial axis, as structured values (`--format json` gives shapes as arrays: a
static dim as an int, a dynamic one as OpenVINO prints it, "?", "1..8"). irpool.report.explain
renders them."""

from __future__ import annotations

from dataclasses import dataclass

from irpool.shape import Dim, Shape

DimValue = int | str
# A shape as a list of dims; None when its rank is unknown.
ShapeValue = list[DimValue] | None


def dim_value(dim: Dim) -> DimValue:
    return dim.value if dim.is_static else str(dim)


def shape_value(shape: Shape) -> ShapeValue:
    if shape.dims is None:
        return None
    return [dim.value if dim.is_static else str(dim) for dim in shape.dims]


@dataclass(frozen=True, slots=True)
class AxisRow:
    """One spatial axis: input size, window (or the range of adaptive bin sizes, "2-3"),
    stride, dilation, effective pads [begin, end] with the declared ones when the runtime
    replaces them, and the number of windows, which is the output size."""

    size: DimValue
    window: DimValue
    stride: int | None
    dilation: int | None
    pads: list[int] | None
    declared_pads: list[int] | None
    windows: DimValue

    def cells(self) -> tuple[str, ...]:
        pads = "-" if self.pads is None else ",".join(map(str, self.pads))
        if self.declared_pads is not None:
            pads += f" (declared {','.join(map(str, self.declared_pads))})"
        return (
            str(self.size),
            str(self.window),
            "-" if self.stride is None else str(self.stride),
            "-" if self.dilation is None else str(self.dilation),
            pads,
            str(self.windows),
        )


@dataclass(frozen=True, slots=True)
class Explanation:
    """An op's own section of a layer's explanation (`Op.explain`): its settings line and a
    row per spatial axis."""

    settings: str
    axes: list[AxisRow]
