"""`irpool explain` tables: a row per layer, and per pooling layer a row per spatial axis.

The rows hold structured values, so `--format json` gives shapes as arrays (a static dim as
an int, a dynamic one as OpenVINO prints it: "?", "1..8") and the text table formats them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from irpool.graph.shape import Dim, Shape

DimValue = int | str
# A shape as a list of dims; None when its rank is unknown.
ShapeValue = list[DimValue] | None


def dim_value(dim: Dim) -> DimValue:
    return dim.value if dim.is_static else str(dim)


def shape_value(shape: Shape) -> ShapeValue:
    if shape.dims is None:
        return None
    return [dim.value if dim.is_static else str(dim) for dim in shape.dims]


def shape_text(shape: ShapeValue) -> str:
    if shape is None:
        return "[...]"
    return "[" + ",".join(str(dim) for dim in shape) + "]"


@dataclass(frozen=True, slots=True)
class TensorRow:
    """A tensor a layer consumes; `value` holds a small constant's values, which often decide
    the next layer's shape."""

    shape: ShapeValue
    value: list[int | float] | None = None

    def text(self) -> str:
        shown = shape_text(self.shape)
        if self.value is not None:
            shown += "=" + ",".join(str(v) for v in self.value)
        return shown


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


@dataclass(frozen=True, slots=True)
class LayerRow:
    id: int
    name: str
    op: str
    inputs: list[TensorRow | None]  # None: nothing connected, or its producer not ordered
    inferred: list[ShapeValue] | None  # None: not inferred (declared outputs trusted)
    declared: list[ShapeValue | str]  # "unreadable" when a <dim> cannot be read
    differs: bool
    pooling: str
    axes: list[AxisRow]


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], right: set[int]) -> list[str]:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [
            cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def _declared_text(shape: ShapeValue | str) -> str:
    return "(unreadable)" if isinstance(shape, str) else shape_text(shape)


def render_text(path: str, rows: Sequence[LayerRow], skipped: int) -> str:
    header = ("id", "name", "op", "inputs", "output (inferred)", "declared", "")
    body = [
        (
            str(row.id),
            row.name,
            row.op,
            " ".join("?" if t is None else t.text() for t in row.inputs) or "-",
            (
                " ".join(shape_text(shape) for shape in row.inferred) or "-"
                if row.inferred is not None
                else "not inferred"
            ),
            " ".join(_declared_text(shape) for shape in row.declared) or "-",
            "DIFFERS" if row.differs else "",
        )
        for row in rows
    ]
    noun = "layer" if len(rows) == 1 else "layers"
    lines = [f"{path}: {len(rows)} {noun} in topological order", ""]
    lines += _table(header, body, right={0})
    for row in rows:
        if not row.axes:
            continue
        lines += ["", f'layer {row.id} "{row.name}" {row.op}: {row.pooling}']
        axes = [(str(i), *axis.cells()) for i, axis in enumerate(row.axes)]
        axis_header = ("axis", "size", "window", "stride", "dilation", "pads", "windows")
        lines += ["  " + line for line in _table(axis_header, axes, right={0, 1, 2, 3, 4, 6})]
    if skipped:
        lines += ["", f"{skipped} layer(s) in a cycle are not shown (see IR504)"]
    return "\n".join(lines) + "\n"


def render_json(rows: Sequence[LayerRow]) -> str:
    return json.dumps([asdict(row) for row in rows], indent=2) + "\n"
