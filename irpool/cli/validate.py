"""`irpool validate PATHS...`: check IR files and report every problem found."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import click

from irpool.cli.app import EXIT_FINDINGS, EXIT_OK, UsageError
from irpool.diagnostics import Diagnostic, IRError
from irpool.model import load
from irpool.report import json as json_report
from irpool.report import text as text_report
from irpool.rules import Severity


def ir_files(paths: tuple[Path, ...]) -> Iterator[Path]:
    """Files as given; directories searched recursively for *.xml, in sorted order."""
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.rglob("*.xml") if p.is_file())
            if not found:
                raise UsageError(f"no .xml files under {path}")
            yield from found
        else:
            yield path


def check_file(path: Path, weights: Path | None) -> list[Diagnostic]:
    try:
        return load(path, weights).validate()
    except IRError as error:
        return error.diagnostics


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
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Report format.",
)
def command(paths: tuple[Path, ...], weights: Path | None, output_format: str) -> None:
    """Check IR files (or directories, searched for *.xml) and report every problem."""
    files = list(ir_files(paths))
    if weights is not None and len(files) != 1:
        raise UsageError("--weights needs exactly one .xml file")
    diagnostics = [d for path in files for d in check_file(path, weights)]
    if output_format == "json":
        click.echo(json_report.render(diagnostics), nl=False)
        click.echo(text_report.summary(diagnostics, len(files)), err=True)
    else:
        click.echo(text_report.render(diagnostics, len(files)), nl=False)
    failed = any(d.severity is Severity.ERROR for d in diagnostics)
    sys.exit(EXIT_FINDINGS if failed else EXIT_OK)
