"""`irpool compare` rendered: a table for people, JSON for programs
(schemas/compare.schema.json). Only renders a Comparison (irpool/compare/tensor_table.py)."""

from __future__ import annotations

import json
from typing import Any

from irpool.compare.differences import Difference
from irpool.compare.tensor_table import LAYER_PAIRS, OUTPUT_PAIRS, Comparison, Row

CELL = 20  # "1.23e-02 4.56e-04 *" and a space


def pair_key(pair: tuple[str, str]) -> str:
    """A pair's JSON key: irpool_vs_f32, probed_default_vs_default, ..."""
    return "_vs_".join(name.replace(" ", "_") for name in pair)


def render_json(comparison: Comparison) -> str:
    first = {pair_key(p): _name(comparison.first_outside(p)) for p in LAYER_PAIRS}
    document = {
        "model": comparison.model,
        "openvino": comparison.openvino_version,
        "tolerance": comparison.tolerance,
        "precisions": comparison.precisions,
        "irpool": {"ran": comparison.irpool_problem is None, "problem": comparison.irpool_problem},
        "tensors": [_row_json(row, LAYER_PAIRS) for row in comparison.layers],
        "first_outside": first,
        "outputs": [_row_json(row, OUTPUT_PAIRS) for row in comparison.outputs],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _name(row: Row | None) -> str | None:
    return None if row is None else row.tensor


def _row_json(row: Row, pairs: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    layer = row.layer
    return {
        "tensor": row.tensor,
        "layer": {"id": layer.id, "name": layer.name, "type": layer.type},
        "output": row.index,
        "shape": None if row.shape is None else list(row.shape),
        "produced": {name.replace(" ", "_"): made for name, made in sorted(row.produced.items())},
        "differences": {pair_key(p): difference_json(row.differences[p]) for p in pairs},
    }


def difference_json(found: Difference | None) -> dict[str, Any] | None:
    if found is None:
        return None
    return {
        "max_abs": found.max_abs,
        "max_rel": found.max_rel,
        "scale": found.scale,
        "nonfinite_mismatches": found.nonfinite_mismatches,
        "shapes_differ": found.shapes_differ,
        "within": found.within,
    }


def render_table(comparison: Comparison) -> str:
    labels = {"irpool": "irpool", "f32": "f32", "default": _default_label(comparison)}
    lines = [
        f"irpool compare: {comparison.model}, OpenVINO "
        f"{comparison.openvino_version.split('-')[0]} CPU plugin, "
        f"default precision {comparison.precisions['default']}",
        f"tolerance: max rel <= {comparison.tolerance:g} (max rel: max abs / the largest finite "
        "|value| of the second run of a pair)",
        "marks: * beyond the tolerance, ! NaN/inf placed differently, - not produced",
    ]
    if comparison.irpool_problem is not None:
        lines.append(f"irpool does not run this model: {comparison.irpool_problem}")
    lines += ["", *_table(comparison.layers, LAYER_PAIRS, labels), ""]
    lines.append("first beyond the tolerance:")
    for pair in LAYER_PAIRS:
        lines.append(f"  {_title(pair, labels)}: {_first(comparison, pair)}")
    lines += ["", "model outputs, from runs without probes (probes can change low precision):"]
    lines += _table(comparison.outputs, OUTPUT_PAIRS, labels)
    return "\n".join(lines) + "\n"


def _table(
    rows: list[Row], pairs: tuple[tuple[str, str], ...], labels: dict[str, str]
) -> list[str]:
    """A column of max abs and max rel per pair, a line per tensor, its key last."""
    titles = [_title(pair, labels) for pair in pairs]
    width = len(str(len(rows)))
    cells = [max(CELL, len(title) + 2) for title in titles]
    lines = [" " * (width + 2) + "".join(t.ljust(c) for t, c in zip(titles, cells, strict=True))]
    head = "".join("max abs  max rel".ljust(cell) for cell in cells)
    lines.append(" " * (width + 2) + head + "tensor (layer type)")
    for number, row in enumerate(rows):
        found = [row.differences[pair] for pair in pairs]
        line = "".join(difference_cell(f).ljust(c) for f, c in zip(found, cells, strict=True))
        lines.append(f"{number:>{width}}  {line}{row.tensor} ({row.layer.type})")
    return lines


def _title(pair: tuple[str, str], labels: dict[str, str]) -> str:
    """A pair's title: default(bf16) vs f32, probed f32 vs f32, ..."""
    named = []
    for name in pair:
        probed, _, run = name.rpartition(" ")
        named.append(f"{probed} {labels[run]}".strip())
    return " vs ".join(named)


def _default_label(comparison: Comparison) -> str:
    return f"default({comparison.precisions['default']})"


def difference_cell(found: Difference | None) -> str:
    if found is None:
        return "-"
    if found.shapes_differ:
        return "shapes differ"
    mark = "!" if found.nonfinite_mismatches else ("*" if not found.within else "")
    return f"{number_text(found.max_abs):<8} {number_text(found.max_rel):<8} {mark}"


def number_text(value: float) -> str:
    return "0" if value == 0 else f"{value:.2e}"


def _first(comparison: Comparison, pair: tuple[str, str]) -> str:
    row = comparison.first_outside(pair)
    if row is None:
        compared = sum(other.differences[pair] is not None for other in comparison.layers)
        return f"none of {compared} tensor(s) compared" if compared else "nothing compared"
    found = row.differences[pair]
    assert found is not None
    number = comparison.layers.index(row)
    where = f'"{row.tensor}" (row {number}, {row.layer.describe()})'
    if found.shapes_differ:
        return f"{where}: shapes differ"
    misplaced = f", {found.nonfinite_mismatches} NaN/inf placed differently"
    return f"{where}: max abs {found.max_abs:.3g}, max rel {found.max_rel:.3g}" + (
        misplaced if found.nonfinite_mismatches else ""
    )
