"""`irpool compare MODEL.xml --input [NAME=]FILE ...`: irpool against OpenVINO's CPU plugin,
in its default precision and in f32, tensor by tensor (needs `openvino`: the `compare`
extra).

Exit codes: 0 compared (whatever the differences: they are the report), 1 invalid model or
inputs, or OpenVINO refuses the model or inputs, 2 usage, including an input file the
system cannot open, and OpenVINO not installed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from irpool.cli.app import EXIT_USAGE, load_or_exit, model_argument, weights_option
from irpool.cli.run import fail, gather_inputs, inputs_option
from irpool.execute.errors import InputError, InvalidModelError, cast_remedy
from irpool.report import text as text_report
from irpool.rules import Severity


def _positive(ctx: click.Context, param: click.Parameter, value: float) -> float:
    if not value > 0:
        raise click.BadParameter(f"{value:g} is not above 0")
    return value


def _told(note: str) -> None:
    """An input cast, said as `run` says it."""
    click.echo(f"irpool compare: {note}", err=True)


@click.command()
@model_argument
@inputs_option
@weights_option
@click.option(
    "--tolerance",
    type=float,
    default=1e-3,
    show_default=True,
    callback=_positive,
    help="The largest max abs difference allowed, as a share of the tensor's scale (the "
    "largest finite |value| of the reference).",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
)
@click.option("--cast", is_flag=True, help="Convert an input's dtype within a kind, as run does.")
def command(
    model_path: Path,
    input_specs: tuple[str, ...],
    weights: Path | None,
    tolerance: float,
    output_format: str,
    cast: bool,
) -> None:
    """Compare irpool with the CPU plugin in its default precision and f32, per tensor.

    Needs OpenVINO (pip install 'irpool[compare]'). Prints, per tensor irpool computes, the
    max abs and max rel differences of irpool vs f32, default vs f32 and irpool vs default,
    and the first tensor where each pair leaves the tolerance (docs/outputs.md).
    """
    from irpool.compare.openvino_runs import OpenVINOError, import_openvino

    try:
        openvino = import_openvino()
    except ImportError as error:
        fail(
            f"needs OpenVINO, which cannot be imported ({error}): pip install 'irpool[compare]'",
            EXIT_USAGE,
        )
    from irpool.compare.tensor_table import compare_model, model_parts
    from irpool.report.per_layer import render_json, render_table

    model = load_or_exit(model_path, weights)
    diagnostics = model.validate()
    if any(d.severity is not Severity.INFO for d in diagnostics):
        click.echo(text_report.render(diagnostics, 1), nl=False, err=True)
    try:
        parts = model_parts(model)
        inputs = gather_inputs(parts.inputs, input_specs)
        comparison = compare_model(openvino, model, parts, inputs, tolerance, cast, _told)
    except InvalidModelError:
        fail("the model has errors (above); it is not compared")
    except InputError as error:
        fail(f"{error.problem} ({cast_remedy('--cast')})" if error.cast_helps else str(error))
    except OpenVINOError as error:
        fail(f"OpenVINO refuses the model or inputs: {error}")
    render = render_json if output_format == "json" else render_table
    click.echo(render(comparison), nl=False)
    sys.stdout.flush()
