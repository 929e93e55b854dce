"""What `irpool validate` prints: each file's outcome, rendered in the chosen format, then
the human summary; colour only for a terminal (or FORCE_COLOR), never in a report file."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import click

from irpool.cli.app import EXIT_USAGE
from irpool.diagnostics import Diagnostic
from irpool.report import summary, text


class ConfigProblem(click.ClickException):
    """A configuration error: exit 2, like any other usage error."""

    exit_code = EXIT_USAGE


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one file left to report. `fixable` maps a remaining diagnostic to what --fix
    would write; `fixed` counts the diagnostics fixed (or, with --diff, that would be).
    `skipped`: found by walking, but its root element is not <net>; `counted` is false for
    a directory that could not be read, which is reported but is not a file checked."""

    path: str
    diagnostics: tuple[Diagnostic, ...]
    fixable: dict[Diagnostic, str] = field(default_factory=dict)
    fixed: int = 0
    diff: str = ""
    source: str | None = None
    note: str | None = None
    skipped: bool = False
    counted: bool = True


def render_document(
    output_format: str, outcomes: Sequence[Outcome], statistics: bool, colour: bool = False
) -> str:
    """What goes to stdout (or -o): the diagnostics in the chosen format."""
    diagnostics = [d for outcome in outcomes for d in outcome.diagnostics]
    # Each machine format is imported only when chosen (start-up time).
    if output_format == "json":
        from irpool.report import json as json_report

        return json_report.render(diagnostics)
    if output_format == "github":
        from irpool.report import github

        return github.render(diagnostics)
    if output_format == "sarif":
        from importlib.metadata import version

        from irpool.report import sarif

        return sarif.render(diagnostics, version("irpool"))
    if statistics:
        return ""
    if output_format == "concise":
        return "".join(text.render_line(d, colour) + "\n" for d in diagnostics)
    sources = {o.path: o.source for o in outcomes if o.source is not None}
    fixable = {d: hint for outcome in outcomes for d, hint in outcome.fixable.items()}
    full = text.render_full(diagnostics, sources, fixable, colour)
    return full + "\n" if full else ""


def render_summary(
    output_format: str, outcomes: Sequence[Outcome], statistics: bool, preview: bool
) -> str:
    """The human summary: per-file table (text, several files), statistics, fixes, totals."""
    checked = [o for o in outcomes if o.counted and not o.skipped]
    diagnostics = [d for outcome in outcomes for d in outcome.diagnostics]
    fixable = [d for outcome in outcomes for d in outcome.fixable]
    parts = []
    if output_format != "concise" and len(checked) > 1:
        parts.append(summary.per_file([(o.path, o.diagnostics) for o in outcomes if not o.skipped]))
    if statistics:
        parts.append(summary.statistics(diagnostics, fixable))
    fixed = sum(o.fixed for o in outcomes)
    fixed_files = sum(1 for o in outcomes if o.fixed)
    parts.append(summary.fixes(fixed, fixed_files, len(fixable), preview))
    skipped = len(outcomes) - len(checked) - sum(1 for o in outcomes if not o.counted)
    parts.append(text.summary(diagnostics, len(checked), skipped) + "\n")
    return "".join(parts)


def wants_colour(is_terminal: bool) -> bool:
    """Colour for a terminal; NO_COLOR (any value) turns it off and FORCE_COLOR on, NO_COLOR
    winning when both are set, as Python's own interpreter decides (no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return is_terminal and os.environ.get("TERM") != "dumb"


def emit(document: str, output: Path | None, colour: bool = False) -> None:
    if output is None:
        click.echo(document, nl=False, color=colour or None)
        return
    try:
        output.write_text(document, encoding="utf-8")
    except OSError as error:
        raise ConfigProblem(f"cannot write {output}: {error.strerror or error}") from None
