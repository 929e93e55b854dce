"""`irpool compare A.xml B.xml` rendered: a table for people, JSON for programs, a plot of
the error along the network. Only renders a PairComparison (irpool/compare/model_pair.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from irpool.compare.model_pair import PairComparison, PairRow
from irpool.report.per_layer import difference_cell, difference_json

RANKED = 10  # layers listed by the difference they introduce
UNMATCHED_SHOWN = 8


def render_json(comparison: PairComparison) -> str:
    first = comparison.first_outside()
    document = {
        "model_a": comparison.model_a,
        "model_b": comparison.model_b,
        "tolerance": comparison.tolerance,
        "tensors": [_row_json(row) for row in comparison.tensors],
        "first_outside": None if first is None else first.tensor,
        "ranked": [row.tensor for row in comparison.ranked()],
        "outputs": [
            {"tensor": key, "differences": {"b_vs_a": difference_json(found)}}
            for key, found in comparison.outputs
        ],
        "unmatched": {"a": comparison.unmatched_a, "b": comparison.unmatched_b},
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _row_json(row: PairRow) -> dict[str, Any]:
    return {
        "tensor": row.tensor,
        "layer": {"id": row.layer.id, "name": row.layer.name, "type": row.layer.type},
        "output": row.index,
        "shape": list(row.shape),
        "matched": {"tensor": row.matched, "by": row.how},
        "differences": {
            "b_vs_a": difference_json(row.b_vs_a),
            "introduced": difference_json(row.introduced),
        },
    }


def render_table(comparison: PairComparison) -> str:
    lines = [
        f"irpool compare: B {comparison.model_b} against A {comparison.model_a}, both on "
        "irpool's engine",
        f"tolerance: max rel <= {comparison.tolerance:g} (max abs / the largest finite |value| "
        "of A's tensor); introduced: B's layer on A's values of its inputs, against A",
        "marks: * beyond the tolerance, ! NaN/inf placed differently, - not computed",
        "",
        f"{'':>5}  {'B vs A':<20}{'introduced':<20}",
        f"{'':>5}  {'max abs  max rel':<20}{'max abs  max rel':<20}tensor (layer type)",
    ]
    for number, row in enumerate(comparison.tensors):
        cells = f"{difference_cell(row.b_vs_a):<20}{difference_cell(row.introduced):<20}"
        lines.append(f"{number:>5}  {cells}{row.tensor} ({row.layer.type})")
    first = comparison.first_outside()
    lines += ["", "first beyond the tolerance: " + ("none" if first is None else _where(first))]
    lines.append(f"layers by the difference they introduce (top {RANKED}):")
    for row in comparison.ranked()[:RANKED]:
        assert row.introduced is not None
        lines.append(f"  {difference_cell(row.introduced)}  {_where(row)}")
    lines += ["", "model outputs (B vs A):"]
    for key, found in comparison.outputs:
        lines.append(f"  {difference_cell(found):<20}{key}")
    for side, names in (("A", comparison.unmatched_a), ("B", comparison.unmatched_b)):
        if names:
            shown = ", ".join(names[:UNMATCHED_SHOWN])
            more = f", ... ({len(names) - UNMATCHED_SHOWN} more)" if len(names) > 8 else ""
            lines.append(f"unmatched in {side}: {len(names)}: {shown}{more}")
    return "\n".join(lines) + "\n"


def _where(row: PairRow) -> str:
    return f'"{row.tensor}" ({row.layer.describe()})'


def plot(comparison: PairComparison, path: Path) -> None:
    """The error along the network as a PNG (needs matplotlib: ImportError without it)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    rows = comparison.tensors
    positions = range(len(rows))
    figure, axes = pyplot.subplots(figsize=(10, 4))
    floor = 1e-12  # a log scale cannot show 0
    accumulated = [max(row.b_vs_a.max_rel, floor) for row in rows]
    introduced = [max(row.introduced.max_rel, floor) if row.introduced else None for row in rows]
    axes.semilogy(positions, accumulated, label="B vs A", linewidth=1)
    axes.semilogy(
        [i for i, v in zip(positions, introduced, strict=True) if v is not None],
        [v for v in introduced if v is not None],
        ".",
        label="introduced by the layer",
        markersize=3,
    )
    axes.axhline(comparison.tolerance, color="grey", linestyle="--", label="tolerance")
    axes.set_xlabel(f"tensor of B, in run order ({comparison.model_b})")
    axes.set_ylabel("max rel difference")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    pyplot.close(figure)
