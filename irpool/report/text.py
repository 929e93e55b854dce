"""`path:line:col: CODE severity message [layer id "name"]`, then a summary line."""

from __future__ import annotations

from collections.abc import Sequence

from irpool.diagnostics import Diagnostic
from irpool.rules import Severity


def render_line(d: Diagnostic) -> str:
    layer = f' [layer {d.layer_id} "{d.layer_name}"]' if d.layer_id is not None else ""
    return f"{d.path}:{d.line}:{d.column}: {d.code} {d.severity.value} {d.message}{layer}"


def summary(diagnostics: Sequence[Diagnostic], files: int) -> str:
    counts = {s: sum(1 for d in diagnostics if d.severity is s) for s in Severity}
    parts = [f"{counts[s]} {s.value}{'s' if counts[s] != 1 else ''}" for s in Severity]
    noun = "file" if files == 1 else "files"
    return f"Checked {files} {noun}: " + ", ".join(parts) + "."


def render(diagnostics: Sequence[Diagnostic], files: int) -> str:
    lines = [render_line(d) for d in diagnostics]
    lines.append(summary(diagnostics, files))
    return "\n".join(lines) + "\n"
