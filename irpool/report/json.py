"""A JSON array of diagnostic records (schemas/diagnostics.schema.json)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from irpool.diagnostics import Diagnostic

FIELDS = (
    "path",
    "line",
    "column",
    "end_line",
    "end_column",
    "code",
    "name",
    "severity",
    "message",
    "layer_id",
    "layer_name",
)


def render(diagnostics: Sequence[Diagnostic]) -> str:
    records = [{key: d.to_dict()[key] for key in FIELDS} for d in diagnostics]
    return json.dumps(records, indent=2, ensure_ascii=False) + "\n"
