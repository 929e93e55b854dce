"""GitHub Actions workflow commands: one `::error|warning|notice` annotation per diagnostic.

Escaping follows the actions/toolkit: `%`, CR and LF in the message; also `:` and `,` in
property values. GitHub caps annotations per step, so each message also carries its own
`path:line:col:` and the full list stays readable in the log.
"""

from __future__ import annotations

from collections.abc import Sequence

from irpool.diagnostics import Diagnostic
from irpool.rules import RULES, Severity

LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_line(d: Diagnostic) -> str:
    properties = [("file", d.path), ("line", str(d.line))]
    if d.end_line == d.line:
        properties += [
            ("col", str(d.column)),
            ("endLine", str(d.end_line)),
            ("endColumn", str(max(d.end_column, d.column + 1))),
        ]
    else:  # GitHub rejects columns on a range spanning lines
        properties.append(("endLine", str(max(d.end_line, d.line))))
    properties.append(("title", f"irpool {d.code} ({RULES[d.code].name})"))
    layer = f' [layer {d.layer_id} "{d.layer_name}"]' if d.layer_id is not None else ""
    message = f"{d.path}:{d.line}:{d.column}: {d.message}{layer}"
    fields = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
    return f"::{LEVELS[d.severity]} {fields}::{escape_data(message)}"


def render(diagnostics: Sequence[Diagnostic]) -> str:
    return "".join(render_line(d) + "\n" for d in diagnostics)
