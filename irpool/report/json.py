"""`json`: a bare JSON array of diagnostic records (schemas/diagnostics.schema.json), as it
has always been. `json-with-metadata`: an object with those records under `diagnostics` and
what was checked in each file and in all (schemas/report.schema.json), so a consumer can tell
"no findings" from "nothing checked"."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from irpool.check.coverage import Coverage
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


def records(diagnostics: Sequence[Diagnostic]) -> list[dict[str, Any]]:
    return [{key: d.to_dict()[key] for key in FIELDS} for d in diagnostics]


def render(diagnostics: Sequence[Diagnostic]) -> str:
    return json.dumps(records(diagnostics), indent=2, ensure_ascii=False) + "\n"


def render_with_metadata(
    diagnostics: Sequence[Diagnostic], files: Sequence[tuple[str, Coverage | None]]
) -> str:
    """`files`: each file checked and its coverage (None: it could not be read as IR)."""
    read = [coverage for _, coverage in files if coverage is not None]
    document = {
        "diagnostics": records(diagnostics),
        "files": [
            {"path": path, "coverage": None if coverage is None else coverage.to_dict()}
            for path, coverage in files
        ],
        "coverage": Coverage.total(read).to_dict(),
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
