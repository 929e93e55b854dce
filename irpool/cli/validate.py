"""`irpool validate PATHS...`: check IR files and report every problem found; `--fix` and
`--diff` rewrite what is certain.

Exit codes: 0 nothing at or above `fail-on` (default: error) remains, 1 something does (with
`--diff`: a fix is pending), 2 usage or configuration error. `--exit-zero` turns 1 into 0.
Machine formats (json, github, sarif) put only their document on stdout; the human summary
goes to stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

import click

from irpool.cli.app import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, UsageError, load_held
from irpool.config import FAIL_ON, FORMATS, Config, ConfigError, load_config, resolve
from irpool.diagnostics import Diagnostic, IRError
from irpool.fix import (
    Fix,
    FixError,
    apply_fixes,
    find_fixes,
    unified_diff,
    verify,
    write_atomically,
)
from irpool.model import Model, display_path
from irpool.report import summary, text
from irpool.rules import Severity

Mode = Literal["check", "fix", "diff"]
MACHINE_FORMATS = ("json", "github", "sarif")


class ConfigProblem(click.ClickException):
    """A configuration error: exit 2, like any other usage error."""

    exit_code = EXIT_USAGE


def ir_files(paths: tuple[Path, ...]) -> Iterator[Path]:
    """Files as given; directories searched recursively for *.xml, in sorted order. A file
    named twice is checked once (two --fix workers must never write the same file)."""
    seen: set[Path] = set()
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.rglob("*.xml") if p.is_file())
            if not found:
                raise UsageError(f"no .xml files under {path}")
        else:
            found = [path]
        for file in found:
            if file.resolve() not in seen:
                seen.add(file.resolve())
                yield file


@dataclass(frozen=True, slots=True)
class Job:
    """One file's work, picklable so --jobs can hand it to another process."""

    path: Path
    weights: Path | None
    config: Config
    mode: Mode
    want_source: bool


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one file left to report. `fixable` maps a remaining diagnostic to what --fix
    would write; `fixed` counts the diagnostics fixed (or, with --diff, that would be)."""

    path: str
    diagnostics: tuple[Diagnostic, ...]
    fixable: dict[Diagnostic, str] = field(default_factory=dict)
    fixed: int = 0
    diff: str = ""
    source: str | None = None
    note: str | None = None


def lint(job: Job) -> Outcome:
    """Validate one file under the configuration, fixing it if asked."""
    shown = display_path(job.path)
    try:
        model = load_held(job.path, job.weights)
    except IRError as error:
        kept = job.config.apply(error.diagnostics, job.path)
        return Outcome(shown, tuple(kept), source=_read_text(job.path) if job.want_source else None)
    raw = model.validate()
    kept = job.config.apply(raw, job.path)
    fixes = find_fixes(model, kept)
    if job.mode == "check" or not fixes:
        return _outcome(shown, model, kept, fixes, job)
    weights = job.weights or job.path.with_suffix(".bin")
    try:
        data = job.path.read_bytes()
        fixed = apply_fixes(data, model, fixes)
        verify(fixed, weights, raw, fixes)
        if job.mode == "fix":
            write_atomically(job.path, fixed)
    except (FixError, OSError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        note = f"{shown}: not fixed: {reason}"
        return replace(_outcome(shown, model, kept, fixes, job), note=note)
    count = sum(len(fix.resolves) for fix in fixes)
    if job.mode == "diff":
        diff = unified_diff(shown, data, fixed, model)
        return replace(_outcome(shown, model, kept, fixes, job), fixed=count, diff=diff)
    model = load_held(job.path, job.weights)  # report what the written file says
    kept = job.config.apply(model.validate(), job.path)
    return replace(_outcome(shown, model, kept, find_fixes(model, kept), job), fixed=count)


def _outcome(
    shown: str, model: Model, kept: list[Diagnostic], fixes: list[Fix], job: Job
) -> Outcome:
    hints = {d: fix.message for fix in fixes for d in fix.resolves}
    source = model.document.source.text if job.want_source else None
    return Outcome(shown, tuple(kept), hints, source=source)


def _read_text(path: Path) -> str | None:
    """The source of a file that did not load, for excerpts (it may not even be text)."""
    try:
        return path.read_bytes().decode("utf-8-sig", errors="replace")
    except OSError:
        return None


def run_jobs(jobs: Sequence[Job], workers: int) -> list[Outcome]:
    """Outcomes in the order of `jobs`, whatever order the workers finish in."""
    if workers <= 1 or len(jobs) <= 1:
        return [lint(job) for job in jobs]
    # Imported here: multiprocessing is slow to import, and most runs use one process.
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=min(workers, len(jobs))) as pool:
        return list(pool.map(lint, jobs))


def _selectors(value: str | None) -> tuple[str, ...] | None:
    return None if value is None else tuple(s.strip() for s in value.split(",") if s.strip())


def _configure(
    config_path: Path | None,
    isolated: bool,
    select: str | None,
    ignore: str | None,
    fail_on: str | None,
) -> Config:
    """The file's settings, then the command line's on top."""
    try:
        config = load_config(config_path, isolated, Path.cwd())
    except ConfigError as error:
        raise ConfigProblem(str(error)) from None
    for warning in config.warnings:
        click.echo(f"irpool: warning: {warning}", err=True)
    chosen, dropped = _selectors(select), _selectors(ignore)
    for option, selectors in (("--select", chosen), ("--ignore", dropped)):
        for selector in selectors or ():
            if not resolve((selector,)):
                click.echo(f"irpool: warning: {option} names no rule: '{selector}'", err=True)
    if chosen is not None:
        config = replace(config, select=chosen)
    if dropped is not None:
        config = replace(config, ignore=dropped)
    if fail_on is not None:
        config = replace(config, fail_on=Severity(fail_on))
    return config


def render_document(output_format: str, outcomes: Sequence[Outcome], statistics: bool) -> str:
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
        return "".join(text.render_line(d) + "\n" for d in diagnostics)
    sources = {o.path: o.source for o in outcomes if o.source is not None}
    fixable = {d: hint for outcome in outcomes for d, hint in outcome.fixable.items()}
    full = text.render_full(diagnostics, sources, fixable)
    return full + "\n" if full else ""


def render_summary(
    output_format: str, outcomes: Sequence[Outcome], statistics: bool, preview: bool
) -> str:
    """The human summary: per-file table (text, several files), statistics, fixes, totals."""
    diagnostics = [d for outcome in outcomes for d in outcome.diagnostics]
    fixable = [d for outcome in outcomes for d in outcome.fixable]
    parts = []
    if output_format != "concise" and len(outcomes) > 1:
        parts.append(summary.per_file([(o.path, o.diagnostics) for o in outcomes]))
    if statistics:
        parts.append(summary.statistics(diagnostics, fixable))
    fixed = sum(o.fixed for o in outcomes)
    fixed_files = sum(1 for o in outcomes if o.fixed)
    parts.append(summary.fixes(fixed, fixed_files, len(fixable), preview))
    parts.append(text.summary(diagnostics, len(outcomes)) + "\n")
    return "".join(parts)


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--weights",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The .bin to use (a single .xml only); default: the .bin beside the file.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    help="Report format (default: `format` from the configuration, else text).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the report to FILE instead of stdout.",
)
@click.option("--fix", is_flag=True, help="Rewrite what is certain in place, then report the rest.")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff; write nothing.")
@click.option(
    "--config",
    "config_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Read settings from this file instead of the closest pyproject.toml.",
)
@click.option("--isolated", is_flag=True, help="Ignore configuration files.")
@click.option("--select", metavar="CODES", help="Comma-separated rules to report (overrides).")
@click.option("--ignore", metavar="CODES", help="Comma-separated rules to skip (overrides).")
@click.option(
    "--fail-on",
    type=click.Choice(FAIL_ON),
    help="The lowest severity that fails the run (default: error).",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option("--statistics", is_flag=True, help="Count findings per rule.")
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Validate files in this many processes; the output order does not change.",
)
def command(
    paths: tuple[Path, ...],
    weights: Path | None,
    output_format: str | None,
    output: Path | None,
    fix: bool,
    diff: bool,
    config_path: Path | None,
    isolated: bool,
    select: str | None,
    ignore: str | None,
    fail_on: str | None,
    exit_zero: bool,
    statistics: bool,
    jobs: int,
) -> None:
    """Check IR files (or directories, searched for *.xml) and report every problem."""
    if fix and diff:
        raise UsageError("--fix writes the files and --diff only shows the changes; pick one")
    config = _configure(config_path, isolated, select, ignore, fail_on)
    files = list(ir_files(paths))
    if weights is not None and (len(paths) != 1 or len(files) != 1):
        raise UsageError("--weights needs exactly one .xml file")
    chosen_format = output_format or config.format
    mode: Mode = "fix" if fix else "diff" if diff else "check"
    want_source = chosen_format == "text" and not statistics and mode != "diff"
    outcomes = run_jobs([Job(p, weights, config, mode, want_source) for p in files], jobs)
    for outcome in outcomes:
        if outcome.note is not None:
            click.echo(f"irpool: warning: {outcome.note}", err=True)

    if mode == "diff":
        document = "".join(outcome.diff for outcome in outcomes)
        report = render_summary(chosen_format, outcomes, statistics=False, preview=True)
        _emit(document, output)
        click.echo(report, nl=False, err=True)
        pending = any(outcome.diff for outcome in outcomes)
        sys.exit(EXIT_FINDINGS if pending and not exit_zero else EXIT_OK)

    document = render_document(chosen_format, outcomes, statistics)
    report = render_summary(chosen_format, outcomes, statistics, preview=False)
    if chosen_format in MACHINE_FORMATS:
        _emit(document, output)
        click.echo(report, nl=False, err=True)
    else:
        _emit(document + report, output)
    failed = any(config.fails(d) for outcome in outcomes for d in outcome.diagnostics)
    sys.exit(EXIT_FINDINGS if failed and not exit_zero else EXIT_OK)


def _emit(document: str, output: Path | None) -> None:
    if output is None:
        click.echo(document, nl=False)
        return
    try:
        output.write_text(document, encoding="utf-8")
    except OSError as error:
        raise ConfigProblem(f"cannot write {output}: {error.strerror or error}") from None
