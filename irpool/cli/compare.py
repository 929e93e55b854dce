"""`irpool compare MODEL.xml --input [NAME=]FILE ...`: irpool against OpenVINO's CPU plugin,
in its default precision and in f32, tensor by tensor (needs `openvino`: the `compare`
extra). `irpool compare A.xml B.xml --input ...`: two models of one network on irpool's
engine, each of B's tensors against A's and the difference its layer introduces
(irpool/compare/model_pair.py); no OpenVINO needed.

Exit codes: 0 compared (whatever the differences: they are the report), 1 invalid model or
inputs, or OpenVINO refuses the model or inputs, 2 usage, including an input file the
system cannot open, OpenVINO not installed for one model, and matplotlib not installed for
`--plot`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from irpool.cli.app import EXIT_USAGE, load_or_exit, model_argument, weights_option
from irpool.cli.run import fail, gather_inputs, inputs_option
from irpool.execute.errors import ExecutionError, InputError, InvalidModelError, cast_remedy
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
@click.argument(
    "other_path",
    metavar="[MODEL_B.xml]",
    required=False,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
)
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
@click.option(
    "--openvino",
    "on_openvino",
    is_flag=True,
    help="With two models: run both on OpenVINO's CPU plugin (f32) instead of irpool.",
)
@click.option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    help="With two models: draw the difference along the network to this PNG (matplotlib).",
)
def command(
    model_path: Path,
    other_path: Path | None,
    input_specs: tuple[str, ...],
    weights: Path | None,
    tolerance: float,
    output_format: str,
    cast: bool,
    on_openvino: bool,
    plot: Path | None,
) -> None:
    """Compare irpool with the CPU plugin per tensor, or two models of one network.

    One model needs OpenVINO (pip install 'irpool[compare]'). Prints, per tensor irpool
    computes, the max abs and max rel differences of irpool vs f32, default vs f32 and irpool
    vs default, and the first tensor where each pair leaves the tolerance (docs/outputs.md).
    Two models: per tensor of B matched to A's, B vs A and the difference B's layer
    introduces on A's inputs, the layers ranked by it, and the first tensor beyond the
    tolerance (docs/compare.md).
    """
    if other_path is not None:
        models = (model_path, other_path)
        _compare_two(models, input_specs, tolerance, output_format, cast, on_openvino, plot)
        return
    if plot is not None or on_openvino:
        fail("--plot and --openvino compare two models: give MODEL_B.xml", EXIT_USAGE)
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


def _compare_two(
    paths: tuple[Path, Path],
    input_specs: tuple[str, ...],
    tolerance: float,
    output_format: str,
    cast: bool,
    on_openvino: bool,
    plot: Path | None,
) -> None:
    from irpool.compare.model_pair import compare_models, compare_models_on_openvino
    from irpool.compare.openvino_runs import OpenVINOError, import_openvino
    from irpool.report import pair_report

    openvino = None
    if on_openvino:
        try:
            openvino = import_openvino()
        except ImportError as error:
            fail(f"--openvino needs OpenVINO, which cannot be imported ({error})", EXIT_USAGE)

    if plot is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            fail("--plot needs matplotlib, which cannot be imported", EXIT_USAGE)
    a, b = load_or_exit(paths[0], None), load_or_exit(paths[1], None)
    try:
        inputs = gather_inputs(b.inputs, input_specs)
        if openvino is not None:
            comparison = compare_models_on_openvino(openvino, a, b, inputs, tolerance, cast, _told)
        else:
            comparison = compare_models(a, b, inputs, tolerance, cast, _told)
    except InvalidModelError as error:
        click.echo(text_report.render(error.diagnostics, 1), nl=False, err=True)
        fail(f"{error}")
    except InputError as error:
        fail(f"{error.problem} ({cast_remedy('--cast')})" if error.cast_helps else str(error))
    except ExecutionError as error:
        fail(f"irpool cannot run both models: {error}")
    except OpenVINOError as error:
        fail(f"OpenVINO refuses a model or the inputs: {error}")
    render = pair_report.render_json if output_format == "json" else pair_report.render_table
    click.echo(render(comparison), nl=False)
    if plot is not None:
        pair_report.plot(comparison, plot)
        click.echo(f"irpool compare: the plot is in {plot}", err=True)
    sys.stdout.flush()
