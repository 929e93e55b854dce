"""`irpool run MODEL.xml --input [NAME=]FILE ...`: execute a model with the NumPy engine.

Exit codes: 0 success, 1 invalid model or inputs (or a model irpool cannot run), 2 usage,
including an input or output file the system cannot open and a --dump DIR that cannot take
the dump (a file, not empty, no parent, or not writable), --steps with --dump, and a --feed
that names no output or input.

`--steps N` runs N steps on one infer request (`Model.create_infer_request`), so a stateful
model's variables go from each step to the next; every step takes the same inputs, except
those a `--feed OUTPUT=INPUT` replaces with the previous step's OUTPUT.

NumPy is imported by the functions that read, write and describe arrays, not with this
module: `irpool run --help` prints text only, and starts as fast as the other commands.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from irpool.cli.app import (
    EXIT_FINDINGS,
    EXIT_USAGE,
    UsageError,
    load_or_exit,
    model_argument,
    weights_option,
)
from irpool.cli.dump import INDEX, dump_problem, write_dump
from irpool.diagnostics import IRError
from irpool.execute.errors import InputError, InvalidModelError, cast_remedy
from irpool.model import Model
from irpool.report import text as text_report
from irpool.rules import Severity

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from irpool.execute.bind import ModelInput


def fail(message: str, code: int = EXIT_FINDINGS) -> NoReturn:
    """The message, prefixed by the command (run, or compare which reads inputs alike)."""
    click.echo(f"irpool {click.get_current_context().info_name}: {message}", err=True)
    sys.exit(code)


def _file_error(what: str, path: Path, error: OSError) -> NoReturn:
    """A file the system cannot open is a usage error (exit 2) naming the path and why."""
    reason = error.strerror or str(error)
    fail(f"cannot {what} {path}: {reason}", EXIT_USAGE)


def _load_array_file(path: Path) -> dict[str, NDArray[Any]] | NDArray[Any]:
    """An .npy array, or an .npz's arrays by key; never unpickles (allow_pickle=False)."""
    import numpy as np

    if path.is_dir():
        fail(f"input file {path} is a directory", EXIT_USAGE)
    try:
        loaded = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        fail(f"input file {path} does not exist", EXIT_USAGE)
    except (PermissionError, IsADirectoryError) as error:
        _file_error("read input file", path, error)
    except (OSError, ValueError, EOFError) as error:  # EOFError: an empty or cut file
        if not _numpy_file(path):  # NumPy would only say that it holds no pickle
            hint = "; the model is the first argument" if path.suffix.lower() == ".xml" else ""
            fail(f"cannot read input file {path}: not an .npy or .npz file{hint}")
        fail(f"cannot read input file {path} as .npy/.npz: {error}")
    if isinstance(loaded, np.lib.npyio.NpzFile):
        with loaded:
            return {key: loaded[key] for key in loaded.files}
    return loaded  # type: ignore[no-any-return]


def _numpy_file(path: Path) -> bool:
    """Whether the file starts as an .npy (its magic string) or an .npz (a zip) does."""
    try:
        with path.open("rb") as stream:
            return stream.read(6).startswith((b"\x93NUMPY", b"PK\x03\x04"))
    except OSError:
        return True  # unreadable now: NumPy's own error says why


def gather_inputs(
    parameters: list[ModelInput], specs: tuple[str, ...]
) -> dict[str | int, NDArray[Any]]:
    """`NAME=FILE` binds by name, `FILE` by position (Parameters in XML order), .npz by keys."""
    inputs: dict[str | int, NDArray[Any]] = {}
    position = 0
    for spec in specs:
        name, sep, file_text = spec.partition("=")
        if not sep or Path(spec).exists():
            name, file_text = "", spec
        loaded = _load_array_file(Path(file_text))
        pairs: list[tuple[str | int, NDArray[Any]]]
        if isinstance(loaded, dict):
            if name:
                raise UsageError(f"--input {spec}: an .npz binds by its own keys; drop '{name}='")
            pairs = list(loaded.items())
        elif name:
            pairs = [(name, loaded)]
        else:
            if position >= len(parameters):
                fail(
                    f"--input {spec}: the model has only {len(parameters)} input(s): "
                    + ", ".join(p.describe() for p in parameters)
                )
            pairs = [(position, loaded)]  # by position: a Parameter may have no name
            position += 1
        for key, array in pairs:
            if key in inputs:
                fail(f'input "{key}" is given twice')
            inputs[key] = array
    return inputs


def check_destination(destination: Path) -> None:
    """Refuse an --output the run could not write before running (exit 2)."""
    folder = destination.parent
    if not folder.exists():
        fail(f"--output {destination}: directory {folder} does not exist", EXIT_USAGE)
    if not folder.is_dir():
        fail(f"--output {destination}: {folder} is not a directory", EXIT_USAGE)


def save_outputs(outputs: dict[str, NDArray[Any]], destination: Path) -> None:
    import numpy as np

    if destination.suffix != ".npz" and len(outputs) != 1:
        raise UsageError(
            f"--output {destination}: the model has {len(outputs)} results; use an .npz file"
        )
    try:
        if destination.suffix == ".npz":
            np.savez(destination, **outputs)  # type: ignore[arg-type]
        else:
            np.save(destination, next(iter(outputs.values())))
    except OSError as error:
        _file_error("write --output", destination, error)


def describe(name: str, result: str, array: NDArray[Any]) -> str:
    """One output: its key and Result layer, shape, dtype, and for floats the NaN and inf
    counts; min, max and mean are over the finite values only, and say so when some are not."""
    import numpy as np

    shape = "x".join(str(n) for n in array.shape) or "scalar"
    head = f'{name} (Result "{result}"): shape {shape}, {array.dtype}'
    if array.dtype.kind != "f":
        return f"{head}, {_statistics(array, '')}" if array.size else f"{head}, empty"
    finite = np.isfinite(array)
    count = int(np.count_nonzero(finite))
    nan = int(np.count_nonzero(np.isnan(array)))
    counts = f"nan {nan}, inf {array.size - count - nan}"
    if array.size == 0:
        return f"{head}, empty"
    if count == 0:
        return f"{head}, no finite values, {counts}"
    if count == array.size:
        return f"{head}, {_statistics(array, '')}, {counts}"
    return f"{head}, {_statistics(array[finite], ' (finite values)')}, {counts}"


def _statistics(values: NDArray[Any], note: str) -> str:
    # min and max need no copy; the mean accumulates in f64 without widening the array.
    mean = values.mean(dtype="f8")
    return f"min {float(values.min()):.6g}, max {float(values.max()):.6g}, mean {mean:.6g}{note}"


# The inputs of a run, as `run` and `compare` take them (gather_inputs reads them).
inputs_option = click.option(
    "--input",
    "-i",
    "input_specs",
    multiple=True,
    metavar="[NAME=]FILE",
    help="An .npy for one input (by position, or NAME=), or an .npz keyed by names.",
)


def parse_feeds(model: Model, specs: tuple[str, ...]) -> dict[str, str]:
    """`--feed OUTPUT=INPUT` pairs, output key -> input name; a name neither has: exit 2."""
    outputs = {result.name for result in model.outputs}
    inputs = {name for parameter in model.inputs for name in parameter.names}
    feeds: dict[str, str] = {}
    for spec in specs:
        output, sep, name = spec.partition("=")
        if not sep or output not in outputs or name not in inputs:
            raise UsageError(
                f"--feed {spec}: write OUTPUT=INPUT, an output of the model ("
                + ", ".join(sorted(outputs))
                + ") and one of its inputs ("
                + ", ".join(sorted(inputs))
                + ")"
            )
        feeds[output] = name
    return feeds


def _run_steps(
    model: Model,
    inputs: dict[str | int, NDArray[Any]],
    cast: bool,
    steps: int,
    feeds: dict[str, str],
) -> list[dict[str, NDArray[Any]]]:
    """Each step's outputs, run on one infer request; from the second step on, each fed
    input is the previous step's output."""

    def on_cast(note: str) -> None:
        click.echo(f"irpool run: {note}", err=True)

    request = model.create_infer_request()
    # The keys a fed input may be given by: its position and every name it answers to.
    replaced = {
        key
        for position, parameter in enumerate(model.inputs)
        if set(feeds.values()) & set(parameter.names)
        for key in (position, *parameter.names)
    }
    results: list[dict[str, NDArray[Any]]] = []
    for _ in range(steps):
        if results:
            inputs = {key: array for key, array in inputs.items() if key not in replaced}
            inputs.update({name: results[-1][output] for output, name in feeds.items()})
        results.append(request.infer(inputs, cast=cast, on_cast=on_cast))
    return results


def _run(
    model: Model, inputs: dict[str | int, NDArray[Any]], cast: bool, keep: bool
) -> tuple[dict[str, NDArray[Any]], dict[str, NDArray[Any]]]:
    """The outputs, and every tensor computed when the run `keep`s them (else {})."""

    def on_cast(note: str) -> None:
        click.echo(f"irpool run: {note}", err=True)

    if keep:
        return model.run(inputs, cast=cast, on_cast=on_cast, intermediates=True)
    return model.run(inputs, cast=cast, on_cast=on_cast), {}


@click.command()
@model_argument
@inputs_option
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the result to OUT.npy (one result) or all results to OUT.npz, keyed by "
    "their tensor names.",
)
@click.option(
    "--dump",
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="Also write every tensor the run computes to DIR (new or empty), one .npy each, "
    "with DIR/index.json naming the tensor, layer and port of each file.",
)
@weights_option
@click.option(
    "--cast",
    is_flag=True,
    help="Convert an input whose dtype differs from its Parameter (within a kind; a value "
    "beyond the target's range is refused).",
)
@click.option(
    "--steps",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Run N steps on one infer request: a stateful model's variables (ReadValue/Assign) "
    "carry from each step to the next.",
)
@click.option(
    "--feed",
    "feed_specs",
    multiple=True,
    metavar="OUTPUT=INPUT",
    help="From the second step on, give INPUT the previous step's OUTPUT (repeatable).",
)
def command(
    model_path: Path,
    input_specs: tuple[str, ...],
    output: Path | None,
    dump: Path | None,
    weights: Path | None,
    cast: bool,
    steps: int,
    feed_specs: tuple[str, ...],
) -> None:
    """Run MODEL.xml on NumPy inputs and print or save its results."""
    if steps > 1 and dump is not None:
        raise UsageError("--dump writes one run's tensors; use it without --steps")
    if output is not None and output.suffix not in (".npy", ".npz"):
        raise UsageError(f"--output {output}: use a .npy or .npz file")
    if output is not None:
        check_destination(output)
    problem = None if dump is None else dump_problem(dump)
    if problem is not None:
        fail(problem, EXIT_USAGE)
    model = load_or_exit(model_path, weights)
    diagnostics = model.validate()
    if any(d.severity is not Severity.INFO for d in diagnostics):
        click.echo(text_report.render(diagnostics, 1), nl=False, err=True)
    try:
        feeds = parse_feeds(model, feed_specs)
        inputs = gather_inputs(model.inputs, input_specs)
        tensors: dict[str, NDArray[Any]] = {}  # --dump's, of one run only
        if steps > 1 or feeds:
            each = _run_steps(model, inputs, cast, steps, feeds)
        else:
            first, tensors = _run(model, inputs, cast, dump is not None)
            each = [first]
        outputs = each[-1]
    except InvalidModelError:
        fail("the model has errors (above); it is not run")
    except InputError as error:
        fail(f"{error.problem} ({cast_remedy('--cast')})" if error.cast_helps else str(error))
    except IRError as error:
        fail(str(error))
    if dump is not None:
        try:
            write_dump(model, tensors, dump, model.document.display_path)
        except OSError as error:
            _file_error("write --dump", Path(error.filename or dump), error)
        click.echo(f"wrote {len(tensors)} tensor(s) and {INDEX} to {dump}", err=True)
    if output is not None:
        save_outputs(outputs, output)
        click.echo(f"wrote {len(outputs)} result(s) to {output}", err=True)
    else:
        for step, produced in enumerate(each, 1):
            if len(each) > 1:
                click.echo(f"step {step}:")
            for result in model.outputs:  # not `output`: that is the --output path
                click.echo(describe(result.name, result.layer.name, produced[result.name]))
