"""`irpool explain` tables: a row per layer, and per pooling layer a row per spatial axis (the
op's own `irpool.ops.explanation`), as text or JSON."""

from __future__ import annotations

import itertools
import json
import re
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


# A list column (inputs, outputs) is as wide as its cells up to this many characters; a
# longer cell (a Concat of 25 inputs) wraps within that width instead of widening every row.
LIST_WIDTH = 40
# Runs of this many equal tensors or more are written once with a count: "24x[1,32,56,56]".
RUN_LENGTH = 3


def _column_width(header: str, cells: Sequence[str], limit: int | None) -> int:
    """The widest of the header and the cells, counting only cells within `limit`."""
    fitting = [len(cell) for cell in cells if limit is None or len(cell) <= limit]
    if limit is not None and not fitting and cells:
        fitting = [limit]
    return max([len(header), *fitting])


def wrap(cell: str, width: int) -> list[str]:
    """A cell in lines of at most `width` characters, broken between tensors, else after a
    comma, else anywhere."""
    lines = [""]
    for token in cell.split(" "):
        if lines[-1] and len(lines[-1]) + 1 + len(token) <= width:
            lines[-1] += " " + token
            continue
        lines += [""] if lines[-1] else []
        for piece in re.findall(r"[^,]+,?|,", token):
            if lines[-1] and len(lines[-1]) + len(piece) > width:
                lines.append("")
            lines[-1] += piece
            while len(lines[-1]) > width:
                lines[-1:] = [lines[-1][:width], lines[-1][width:]]
    return lines


def _table(
    header: Sequence[str], rows: Sequence[Sequence[str]], right: set[int], wrapped: set[int]
) -> list[str]:
    """Columns padded to their width; the `wrapped` ones are as wide as their cells of at
    most LIST_WIDTH characters, and longer cells continue on the lines below. The last
    column is never padded, so a long name there widens nothing."""
    columns = range(len(header))
    widths = [
        _column_width(header[i], [row[i] for row in rows], LIST_WIDTH if i in wrapped else None)
        for i in columns
    ]
    lines = []
    for row in [header, *rows]:
        cells = [
            wrap(cell, widths[i]) if i in wrapped and len(cell) > widths[i] else [cell]
            for i, cell in enumerate(row)
        ]
        for depth in range(max(map(len, cells))):
            parts = [lines_of[depth] if depth < len(lines_of) else "" for lines_of in cells]
            aligned = [
                part.rjust(widths[i]) if i in right else part.ljust(widths[i])
                for i, part in enumerate(parts)
            ]
            lines.append("  ".join(aligned).rstrip())
    return lines


def _declared_text(shape: ShapeValue | str) -> str:
    return "(unreadable)" if isinstance(shape, str) else shape_text(shape)


def list_text(items: Sequence[str]) -> str:
    """Tensors separated by spaces, a run of RUN_LENGTH or more equal ones written once."""
    parts: list[str] = []
    for item, run in itertools.groupby(items):
        count = len(list(run))
        parts += [f"{count}x{item}"] if count >= RUN_LENGTH else [item] * count
    return " ".join(parts)


def render_text(title: str, rows: Sequence[LayerRow], notes: Sequence[str]) -> str:
    """The table under its title line, the notes (what is left out, and why) below it, then
    each layer's own section (pooling geometry per axis)."""
    # The DIFFERS column is there only when a row differs.
    flagged = any(row.differs for row in rows)
    header = ("id", "op", "inputs", "output (inferred)", "declared", *("",) * flagged, "name")
    body = [
        (
            str(row.id),
            row.op,
            list_text(["?" if t is None else t.text() for t in row.inputs]) or "-",
            (
                list_text([shape_text(shape) for shape in row.inferred]) or "-"
                if row.inferred is not None
                else "not inferred"
            ),
            list_text([_declared_text(shape) for shape in row.declared]) or "-",
            *("DIFFERS" if row.differs else "",) * flagged,
            row.name,
        )
        for row in rows
    ]
    lines = [title, *notes, ""]
    lines += _table(header, body, right={0}, wrapped={2, 3, 4})
    for row in rows:
        if not row.axes:
            continue
        lines += ["", f'layer {row.id} "{row.name}" {row.op}: {row.pooling}']
        axes = [(str(i), *axis.cells()) for i, axis in enumerate(row.axes)]
        axis_header = ("axis", "size", "window", "stride", "dilation", "pads", "windows")
        lines += ["  " + line for line in _table(axis_header, axes, {0, 1, 2, 3, 4, 6}, set())]
    return "\n".join(lines) + "\n"


def render_json(rows: Sequence[LayerRow]) -> str:
    return json.dumps([asdict(row) for row in rows], indent=2) + "\n"
