"""What `irpool validate` prints: the document in the chosen format (stdout or `-o`) and the
human summary (stderr for machine formats), from the outcomes of the files it checked."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from irpool.check.coverage import Coverage
from irpool.report import summary, text

if TYPE_CHECKING:
    from irpool.cli.validate import Outcome


def render_document(
    output_format: str, outcomes: Sequence[Outcome], statistics: bool, colour: bool = False
) -> str:
    """What goes to stdout (or -o): the diagnostics in the chosen format."""
    diagnostics = [d for outcome in outcomes for d in outcome.diagnostics]
    sources = {o.path: o.source for o in outcomes if o.source is not None}
    # Each machine format is imported only when chosen (start-up time).
    if output_format == "json":
        from irpool.report import json as json_report

        return json_report.render(diagnostics)
    if output_format == "json-with-metadata":
        from irpool.report import json as json_report

        files = [(o.path, o.coverage) for o in outcomes if o.counted and not o.skipped]
        return json_report.render_with_metadata(diagnostics, files)
    if output_format == "github":
        from irpool.report import github

        return github.render(diagnostics)
    if output_format == "sarif":
        from importlib.metadata import version

        from irpool.report import sarif

        return sarif.render(diagnostics, sources, version("irpool"), covered(outcomes))
    if statistics:
        return ""
    if output_format == "concise":
        return "".join(text.render_line(d, colour) + "\n" for d in diagnostics)
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
    parts.append(text.summary(diagnostics, len(checked), skipped, covered(outcomes)) + "\n")
    return "".join(parts)


def covered(outcomes: Sequence[Outcome]) -> Coverage:
    """What was checked in all the files read."""
    return Coverage.total(o.coverage for o in outcomes if o.coverage is not None)
