"""`irpool validate [PATHS...]`: check IR files and report every problem found; `--fix` and
`--diff` rewrite what is certain. `-` reads one document from stdin.

`--shape` checks the model as OpenVINO's `model.reshape` would make it (IR311 where it fails).

Exit codes: 0 nothing at or above `fail-on` (default: error) remains, 1 something does (with
`--diff`: a fix is pending), 2 usage or configuration error (a `--shape` naming no input).
`--exit-zero` turns 1 into 0.
Machine formats (json, github, sarif) put only their document on stdout; the human summary
goes to stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, TypeVar

import click

from irpool.check.coverage import Coverage
from irpool.cli.app import (
    EXIT_FINDINGS,
    EXIT_OK,
    UsageError,
    keep_to_exit,
    reshaped,
    shape_option,
)
from irpool.cli.discovery import Discovery, discover_files, root_is_not_net
from irpool.cli.reporting import render_document, render_summary
from irpool.cli.settings import (
    COMMA_LIST,
    ConfigProblem,
    Settings,
    configure,
    read_configuration,
    wants_colour,
)
from irpool.config import FAIL_ON, FORMATS, Config
from irpool.diagnostics import Collector, Diagnostic, IRError, Span
from irpool.fix import (
    Fix,
    FixError,
    apply_fixes,
    find_fixes,
    unified_diff,
    verify,
    write_atomically,
)
from irpool.model import Model, display_path, load
from irpool.parse.xml_reader import read_bounded, read_stream
from irpool.rules import FILE_UNREADABLE

Mode = Literal["check", "fix", "diff"]
F = TypeVar("F", bound=Callable[..., Any])
MACHINE_FORMATS = ("json", "json-with-metadata", "github", "sarif")


STDIN = Path("-")


@dataclass(frozen=True, slots=True)
class Job:
    """One file's work, picklable so --jobs can hand it to another process. `data` is the
    document when it came from stdin; `explicit` when the file was named, not walked to."""

    path: Path
    weights: Path | None
    config: Config
    mode: Mode
    want_source: bool
    explicit: bool = True
    data: bytes | None = None
    # `--shape`: (input name, or "" for the only input; a shape as OpenVINO writes one).
    shapes: tuple[tuple[str, str], ...] = ()


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
    coverage: Coverage | None = None  # None: the file could not be read as IR


def lint(job: Job) -> Outcome:
    """Validate one file under the configuration, fixing it if asked. The file is opened
    once: excerpts and fixes use the bytes read then (a FIFO or device is never reopened)."""
    shown = display_path(job.path)
    try:
        data = job.data if job.data is not None else read_bounded(job.path, Collector(shown))
    except IRError as error:
        return Outcome(shown, tuple(job.config.apply(error.diagnostics, job.path)))
    if not job.explicit and root_is_not_net(data):
        return Outcome(shown, (), skipped=True)
    try:
        model = load(job.path, job.weights, data=data, openvino_version=job.config.openvino_version)
    except IRError as error:
        kept = job.config.apply(error.diagnostics, job.path)
        # A binary file (it holds a NUL byte) has no lines to show, only bytes.
        text = job.want_source and b"\0" not in data
        source = data.decode("utf-8-sig", errors="replace") if text else None
        return Outcome(shown, tuple(kept), source=source)
    if job.shapes:
        model = reshaped(model, job.shapes)
    keep_to_exit(model)
    raw = model.validate()
    kept = job.config.apply(raw, job.path)
    fixes = find_fixes(kept)
    if job.mode == "check" or not fixes:
        return _outcome(shown, model, kept, fixes, job)
    weights = job.weights or job.path.with_suffix(".bin")
    try:
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
    model = load(job.path, job.weights)  # report what the written file says
    kept = job.config.apply(model.validate(), job.path)
    return replace(_outcome(shown, model, kept, find_fixes(kept), job), fixed=count)


def _outcome(
    shown: str, model: Model, kept: list[Diagnostic], fixes: list[Fix], job: Job
) -> Outcome:
    hints = {d: fix.message for fix in fixes for d in fix.resolves}
    source = model.document.source.text if job.want_source else None
    return Outcome(shown, tuple(kept), hints, source=source, coverage=model.coverage)


def run_jobs(jobs: Sequence[Job], workers: int) -> list[Outcome]:
    """Outcomes in the order of `jobs`, whatever order the workers finish in."""
    if workers <= 1 or len(jobs) <= 1:
        return [lint(job) for job in jobs]
    # Imported here: multiprocessing is slow to import, and most runs use one process.
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=min(workers, len(jobs))) as pool:
        return list(pool.map(lint, jobs))


def _directory_outcomes(found: Discovery, config: Config) -> list[Outcome]:
    """A directory that cannot be listed is an error: the models in it went unchecked."""
    outcomes = []
    for directory, reason in found.unreadable:
        shown = display_path(directory)
        sink = Collector(shown)
        message = f"cannot read the directory: {reason}; the files in it are not checked"
        sink.add(FILE_UNREADABLE, message, Span.at_line(1))
        kept = config.apply(sink.diagnostics, directory)
        outcomes.append(Outcome(shown, tuple(kept), counted=False))
    return outcomes


def _jobs(
    paths: tuple[Path, ...],
    stdin_filename: Path | None,
    weights: Path | None,
    config: Config,
    mode: Mode,
    want_source: bool,
    shapes: tuple[tuple[str, str], ...],
) -> tuple[list[Job], Discovery]:
    """The work: stdin's document (`-`), or the files found under PATHS (`.` if none)."""
    if STDIN in paths:
        if len(paths) != 1:
            raise UsageError("`-` (stdin) cannot be mixed with other paths")
        if mode == "fix":
            raise UsageError("--fix cannot rewrite stdin; use --diff to see the fixes")
        path = stdin_filename or STDIN
        data = read_stream(sys.stdin.buffer, Collector(display_path(path)))
        job = Job(path, weights, config, mode, want_source, data=data, shapes=shapes)
        return [job], Discovery()
    if stdin_filename is not None:
        raise UsageError("--stdin-filename names the document read from `-`; give `-`")
    found = discover_files(paths or (Path("."),), config)
    if weights is not None and (len(paths) != 1 or len(found.files) != 1):
        raise UsageError("--weights needs exactly one .xml file")
    jobs = [
        Job(f.path, weights, config, mode, want_source, f.explicit, shapes=shapes)
        for f in found.files
    ]
    return jobs, found


def _read_release(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from irpool.check.releases import ReleaseError, parse_release

    if value is not None:
        try:
            parse_release(value)
        except ReleaseError as error:
            raise click.BadParameter(str(error)) from None
    return value


def _list_option(name: str, metavar: str, summary: str, **extra: Any) -> Callable[[F], F]:
    """A comma-separated option (a tuple of items, or the configuration's tuple)."""
    return click.option(name, type=COMMA_LIST, metavar=metavar, help=summary, **extra)


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, allow_dash=True, path_type=Path))
@click.option(
    "--weights",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The .bin to use (a single .xml only); default: the .bin beside the file.",
)
@click.option(
    "--output-format",
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
@shape_option
@click.option("--fix", is_flag=True, help="Rewrite what is certain in place, then report the rest.")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff; write nothing.")
# --config and --isolated are eager: the configuration they choose is read first, and its
# settings become the defaults of the options below (click's `default_map`).
@click.option(
    "--config",
    "config_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    is_eager=True,
    expose_value=False,
    callback=read_configuration,
    help="Read settings from this file instead of the closest pyproject.toml.",
)
@click.option(
    "--isolated",
    is_flag=True,
    is_eager=True,
    expose_value=False,
    callback=read_configuration,
    help="Ignore configuration files.",
)
@_list_option("--select", "CODES", "Comma-separated rules to report (overrides).")
@_list_option("--ignore", "CODES", "Comma-separated rules to skip (overrides).")
@click.option(
    "--fail-on",
    type=click.Choice(FAIL_ON),
    help="The lowest severity that fails the run (default: error).",
)
@_list_option("--exclude", "GLOBS", "Comma-separated globs not to walk (overrides).")
@_list_option("--extend-exclude", "GLOBS", "Globs not to walk, besides `exclude`.", default=())
@click.option(
    "--respect-gitignore/--no-respect-gitignore",
    help="Skip what git ignores when walking directories (default: on).",
)
@click.option("--force-exclude", is_flag=True, help="Apply excludes to files named too.")
@click.option(
    "--stdin-filename",
    type=click.Path(path_type=Path),
    help="With `-`: the path the document stands for (reports name it; weights beside it).",
)
@click.option(
    "--openvino-version",
    metavar="RELEASE",
    callback=_read_release,
    help="Report what this OpenVINO release cannot read (IR230), e.g. 2023.0 (default: "
    "`openvino-version`, else the installed OpenVINO's, else the newest irpool knows).",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option("--statistics", is_flag=True, help="Count findings per rule.")
@click.option("-q", "--quiet", is_flag=True, help="Print the findings only, no summary.")
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Validate files in this many processes; the output order does not change.",
)
@click.pass_context
def command(
    ctx: click.Context,
    paths: tuple[Path, ...],
    weights: Path | None,
    output_format: str,
    output: Path | None,
    shapes: tuple[tuple[str, str], ...],
    fix: bool,
    diff: bool,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    fail_on: str,
    exclude: tuple[str, ...],
    extend_exclude: tuple[str, ...],
    respect_gitignore: bool,
    force_exclude: bool,
    stdin_filename: Path | None,
    openvino_version: str | None,
    exit_zero: bool,
    statistics: bool,
    quiet: bool,
    jobs: int,
) -> None:
    """Check IR files and directories and report every problem.

    PATHS default to `.`; directories are searched for *.xml, skipping excluded and
    git-ignored paths and XML that is not IR. `-` reads one document from stdin.
    """
    if fix and diff:
        raise UsageError("--fix writes the files and --diff only shows the changes; pick one")
    if shapes and (fix or diff):
        raise UsageError("--shape checks the model at other shapes; --fix and --diff edit the file")
    settings = Settings(
        select,
        ignore,
        fail_on,
        output_format,
        exclude,
        extend_exclude,
        respect_gitignore,
        force_exclude,
        openvino_version,
    )
    config = configure(ctx, settings)
    chosen_format = config.format
    mode: Mode = "fix" if fix else "diff" if diff else "check"
    want_source = chosen_format in ("text", "sarif") and not statistics and mode != "diff"
    work, found = _jobs(paths, stdin_filename, weights, config, mode, want_source, shapes)
    outcomes = _directory_outcomes(found, config) + run_jobs(work, jobs)
    if work and not found.unreadable and all(outcome.skipped for outcome in outcomes):
        raise UsageError(
            f"no IR to check: the {len(work)} .xml files found have a root element other "
            "than <net> (name a file to check it anyway)"
        )
    for outcome in outcomes:
        if outcome.note is not None:
            click.echo(f"irpool: warning: {outcome.note}", err=True)
    colour = output is None and wants_colour(sys.stdout.isatty())

    if mode == "diff":
        document = "".join(outcome.diff for outcome in outcomes)
        report = render_summary(chosen_format, outcomes, statistics=False, preview=True)
        _emit(document, output)
        click.echo("" if quiet else report, nl=False, err=True)
        pending = any(outcome.diff for outcome in outcomes)
        sys.exit(EXIT_FINDINGS if pending and not exit_zero else EXIT_OK)

    document = render_document(chosen_format, outcomes, statistics, colour)
    report = "" if quiet else render_summary(chosen_format, outcomes, statistics, preview=False)
    if chosen_format in MACHINE_FORMATS:
        _emit(document, output)
        click.echo(report, nl=False, err=True)
    else:
        _emit(document + report, output, colour)
    failed = any(config.fails(d) for outcome in outcomes for d in outcome.diagnostics)
    sys.exit(EXIT_FINDINGS if failed and not exit_zero else EXIT_OK)


def _emit(document: str, output: Path | None, colour: bool = False) -> None:
    if output is None:
        click.echo(document, nl=False, color=colour or None)
        return
    try:
        output.write_text(document, encoding="utf-8")
    except OSError as error:
        raise ConfigProblem(f"cannot write {output}: {error.strerror or error}") from None
