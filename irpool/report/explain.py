"""`irpool explain` tables: a row per layer, and per pooling layer a row per spatial axis (the
op's own `irpool.ops.explanation`), as text or JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from irpool.ops.explanation import AxisRow, ShapeValue


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
