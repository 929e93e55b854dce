"""`irpool explain` tables: a row per layer, and per pooling layer a row per spatial axis."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass


@dataclass(frozen=True, slots=True)
class AxisRow:
    """One spatial axis: input size, window (or adaptive bin sizes), stride, dilation,
    effective pads (begin,end) and the number of windows, which is the output size."""

    size: str
    window: str
    stride: str
    dilation: str
    pads: str
    windows: str


@dataclass(frozen=True, slots=True)
class LayerRow:
    id: int
    name: str
    op: str
    inputs: list[str]
    inferred: list[str] | None  # None: not inferred (declared outputs trusted)
    declared: list[str]
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


def render_text(path: str, rows: Sequence[LayerRow], skipped: int) -> str:
    header = ("id", "name", "op", "inputs", "output (inferred)", "declared", "")
    body = [
        (
            str(row.id),
            row.name,
            row.op,
            " ".join(row.inputs) or "-",
            (" ".join(row.inferred) or "-") if row.inferred is not None else "not inferred",
            " ".join(row.declared) or "-",
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
        axes = [
            (str(i), a.size, a.window, a.stride, a.dilation, a.pads, a.windows)
            for i, a in enumerate(row.axes)
        ]
        axis_header = ("axis", "size", "window", "stride", "dilation", "pads", "windows")
        lines += ["  " + line for line in _table(axis_header, axes, right={0, 1, 2, 3, 4, 6})]
    if skipped:
        lines += ["", f"{skipped} layer(s) in a cycle are not shown (see IR504)"]
    return "\n".join(lines) + "\n"


def render_json(rows: Sequence[LayerRow]) -> str:
    return json.dumps([asdict(row) for row in rows], indent=2) + "\n"
