"""The `irpool` command group and the entry point that guarantees no traceback escapes."""

from __future__ import annotations

import atexit
import gc
import importlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from irpool import __version__
from irpool.diagnostics import IRError
from irpool.report import text as text_report

if TYPE_CHECKING:  # the model needs NumPy: only commands that load one import it
    from irpool.model import Model

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
# A bug in irpool, not in the invocation: the same documented code as a usage error (a run
# that could not check anything), under its own name so that the two are never confused.
EXIT_INTERNAL = 2
# Each command's one-line summary, for `irpool --help`: listing the commands must not import
# them (run, validate and explain need NumPy). A test keeps these equal to their docstrings.
COMMANDS = {
    "compare": "Compare irpool with the CPU plugin per tensor, or two models of one network.",
    "explain": "Show each layer's shapes (inferred and declared) and pooling geometry, in order.",
    "rule": "Document one rule, with a wrong and a right IR snippet.",
    "rules": "List every rule irpool reports: code, name, default severity, summary.",
    "run": "Run MODEL.xml on NumPy inputs and print or save its results.",
    "server": "Serve the Language Server Protocol on stdin/stdout (needs irpool[server]).",
    "validate": "Check IR files and directories and report every problem.",
}


# When the process ends right after the command (`main`), the last model each command loads is
# kept to the end instead of freed: freeing a large model's tree costs ~45 ms (10,000 layers,
# measured) to give back memory that the exit gives back anyway. The list holds itself, a cycle
# that `gc.freeze` at exit exempts from the final collection, so teardown does not free it.
_kept_to_exit: list[object] = []
_kept_to_exit.append(_kept_to_exit)
_process_ends_after_command = False


def keep_to_exit(model: Model) -> None:
    """Keep `model` until the process exits when it ends after this command; the model kept
    before is released, so validating many files holds one model at a time."""
    if _process_ends_after_command:
        del _kept_to_exit[1:]
        _kept_to_exit.append(model)


class UsageError(click.UsageError):
    """Bad invocation (exit 2), raised where click's own parameter checks cannot see."""


# The argument and option every single-model command (run, explain) takes.
model_argument = click.argument(
    "model_path", metavar="MODEL.xml", type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
weights_option = click.option(
    "--weights",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The .bin to use; default: the .bin beside MODEL.xml.",
)


def load_or_exit(model_path: Path, weights: Path | None) -> Model:
    """The model, or its diagnostics on stderr and exit 1 when it cannot be read as IR."""
    from irpool.model import load

    try:
        return load(model_path, weights)
    except IRError as error:
        click.echo(text_report.render(error.diagnostics, 1), nl=False, err=True)
        sys.exit(EXIT_FINDINGS)


class _Commands(click.Group):
    """Imports a command's module only when that command is used (or help lists them all):
    `irpool validate` should not pay at start-up for run's engine or explain's report."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, COMMANDS[name]) for name in self.list_commands(ctx)])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        command: click.Command = importlib.import_module(f"irpool.cli.{cmd_name}").command
        return command


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, package_name="irpool")  # no metadata lookup: start-up
def cli() -> None:
    """Check and run OpenVINO IR pooling models exactly as the runtime reads them."""


def main() -> None:
    """The program's entry point (the `irpool` script, `python -m irpool`); it ends the
    process. To call the command line in-process, invoke `cli`, as the tests do."""
    # The process ends right after the command: the interpreter's final garbage collection
    # would walk every object the run made only to free the memory the exit frees anyway
    # (10-17 ms on a small file, measured). `gc.freeze` (public, documented) exempts them.
    global _process_ends_after_command
    _process_ends_after_command = True
    atexit.register(gc.freeze)
    try:
        cli(standalone_mode=True)  # click handles usage errors, --help, and a closed pipe
    except Exception as error:  # the last line of defence: never a traceback
        if os.environ.get("IRPOOL_DEBUG"):
            raise
        click.echo(
            f"irpool: internal error: {type(error).__name__}: {error} "
            "(set IRPOOL_DEBUG=1 for the traceback)",
            err=True,
        )
        sys.exit(EXIT_INTERNAL)


def _read_shapes(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
) -> tuple[tuple[str, str], ...]:
    """`NAME[dims]` or `[dims]` (the only input), each a shape as OpenVINO writes one."""
    from irpool.check.reshaping import ReshapeError, read_shape

    shapes = []
    for value in values:
        name, bracket, dims = value.partition("[")
        if not bracket or not dims.endswith("]"):
            raise click.BadParameter(f"{value!r} is not NAME[dims] or [dims], e.g. x[1,3,?,?]")
        try:
            read_shape(bracket + dims)
        except ReshapeError as error:
            raise click.BadParameter(f"{value!r}: {error}") from None
        shapes.append((name, bracket + dims))
    return tuple(shapes)


# `--shape` of validate and explain: (input name, "" for the only input; the shape's text).
shape_option = click.option(
    "--shape",
    "shapes",
    multiple=True,
    metavar="NAME[DIMS]",
    callback=_read_shapes,
    help="Check the model reshaped: input NAME (or the only input: [DIMS]) at this shape, "
    "written as OpenVINO writes one (x[1,3,?,?], [1..8,3,640,640]). Repeatable.",
)


def reshaped(model: Model, shapes: tuple[tuple[str, str], ...]) -> Model:
    """The model at the `--shape`s (IR311 where OpenVINO's reshape fails); a name that is no
    input of it is a usage error."""
    from irpool.check.reshaping import ReshapeError

    try:
        return model.reshape(dict(shapes))
    except ReshapeError as error:
        raise UsageError(f"--shape: {model.document.display_path}: {error}") from None
