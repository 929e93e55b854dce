"""The command line. It only calls the Python API and formats what it returns.

Exit codes: 0 no errors (warnings allowed), 1 at least one error, 2 usage or internal error.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import click

from irpool.diagnostics import Diagnostic, IRError
from irpool.model import load
from irpool.report import json as json_report
from irpool.report import text as text_report
from irpool.rules import RULES, Severity

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class UsageError(click.UsageError):
    """Bad invocation (exit 2), raised where click's own parameter checks cannot see."""


def _ir_files(paths: tuple[Path, ...]) -> Iterator[Path]:
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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="irpool")
def cli() -> None:
    """Check and run OpenVINO IR pooling models exactly as the runtime reads them."""


@cli.command()
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
def validate(paths: tuple[Path, ...], weights: Path | None, output_format: str) -> None:
    """Check IR files (or directories, searched for *.xml) and report every problem."""
    files = list(_ir_files(paths))
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


@cli.command()
def rules() -> None:
    """List every rule irpool reports."""
    width = max(len(rule.name) for rule in RULES.values())
    for rule in RULES.values():
        click.echo(f"{rule.code}  {rule.name:<{width}}  {rule.severity.value:<7}  {rule.summary}")


def main() -> None:
    try:
        cli(standalone_mode=True)
    except Exception as error:
        if os.environ.get("IRPOOL_DEBUG"):
            raise
        click.echo(
            f"irpool: internal error: {type(error).__name__}: {error} "
            "(set IRPOOL_DEBUG=1 for the traceback)",
            err=True,
        )
        sys.exit(EXIT_USAGE)
