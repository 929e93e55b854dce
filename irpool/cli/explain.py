"""`irpool explain MODEL.xml`: every layer in topological order with its input shapes, its
output shape as inferred and as declared, and each pooling layer's geometry per axis (window,
stride, dilation, effective pads, number of windows), so a person can see why a dim is what
it is.

Exit codes: 0 explained (whatever the model's findings), 1 the file cannot be read as IR,
2 usage error.
"""

from __future__ import annotations

import difflib
from collections import Counter
from pathlib import Path

import click

from irpool.cli.app import (
    UsageError,
    load_or_exit,
    model_argument,
    reshaped,
    shape_option,
    weights_option,
)
from irpool.cli.settings import COMMA_LIST
from irpool.graph.graph import Layer
from irpool.graph.io_types import input_type, output_type
from irpool.model import Model
from irpool.ops.base import TensorInfo
from irpool.ops.explanation import ShapeValue, shape_value
from irpool.ops.opsets import op_types
from irpool.ops.registry import registered_ops
from irpool.report import dot
from irpool.report import explain as explain_report
from irpool.report.explain import LayerRow, TensorRow, list_text
from irpool.rules import UNCHECKED_OP, Severity
from irpool.shape import Shape


def declared_value(values: tuple[int, ...] | None) -> ShapeValue | str:
    if values is None:
        return "unreadable"
    return ["?" if v == -1 else v for v in values]


def tensor_row(info: TensorInfo | None) -> TensorRow | None:
    if info is None:
        return None
    value = None
    if info.value is not None and 0 < info.value.size <= 8:
        value = info.value.ravel().tolist()
    return TensorRow(shape_value(info.shape), value)


def input_infos(model: Model, layer: Layer) -> list[TensorInfo | None]:
    return list(model.checked.inputs(model.graph, layer))


def _differs(declared: tuple[int, ...] | None, inferred: Shape) -> bool:
    if declared is None or inferred.dims is None:
        return False
    if len(declared) != len(inferred.dims):
        return True
    return any(
        value != (dim.value if dim.is_static else -1)
        for value, dim in zip(declared, inferred.dims, strict=True)
    )


def _op_label(model: Model, layer: Layer) -> str:
    op = model.checked.ops.get(layer.id)
    return op.label() if op is not None else f"{layer.type} ({layer.version})"


def explain_row(model: Model, layer: Layer) -> LayerRow:
    """A layer's shapes (inputs, outputs inferred and declared) and its op's geometry."""
    op = model.checked.ops.get(layer.id)
    inputs = input_infos(model, layer)
    trusted = layer.id in model.checked.trusted
    outputs = None if trusted else model.checked.outputs.get(layer.id)
    inferred = [shape_value(info.shape) for info in outputs] if outputs is not None else None
    # A reshaped model's ports forget their dims; the file's are shown (for the old shapes).
    ports = (model.reshaped_from or model).graph.layers[layer.id].outputs
    declared = [declared_value(port.declared) for port in ports]
    differs = outputs is not None and any(
        _differs(port.declared, info.shape) for port, info in zip(ports, outputs, strict=False)
    )
    explained = op.explain(inputs, outputs) if op is not None and outputs else None
    return LayerRow(
        id=layer.id,
        name=layer.name,
        op=_op_label(model, layer),
        inputs=[tensor_row(info) for info in inputs],
        inferred=inferred,
        declared=declared,
        differs=differs,
        pooling=explained.settings if explained else "",
        axes=explained.axes if explained else [],
    )


def folded_constants(model: Model) -> set[int]:
    """The layers explain folds into their consumers' inputs: Consts, and Converts of them
    (how OpenVINO stores f16 weights: a Const converted to f32 when the model loads). A
    layer with a finding of its own is never folded."""
    with_findings = {d.layer_id for d in model.validate()}
    producers, folded = model.graph.producers, set()
    for layer_id in model.graph.order:
        layer = model.graph.layers[layer_id]
        if str(layer_id) in with_findings:
            continue
        kind = layer.type.lower()  # as the op registry matches types
        sources = [producers.get((layer_id, index)) for index in range(len(layer.inputs))]
        of_constants = bool(sources) and all(s is not None and s[0] in folded for s in sources)
        if kind == "const" or (kind == "convert" and of_constants):
            folded.add(layer_id)
    return folded


def selected_types(model: Model, names: tuple[str, ...]) -> frozenset[str]:
    """The --type names in lower case, as the op registry matches types. A name that is no
    op type of OpenVINO's opsets, of irpool's ops or of this model's layers is a usage error."""
    spellings = [
        *op_types(),
        *(cls.type_name for cls in registered_ops()),
        *(layer.type for layer in model.graph.layers.values()),
    ]
    known = {name.lower() for name in spellings}
    for name in names:
        if name.lower() not in known:
            close = difflib.get_close_matches(name, sorted(set(spellings)), n=3)
            hint = f" (did you mean {' or '.join(close)}?)" if close else ""
            raise UsageError(
                f'--type: "{name}" is no op type of OpenVINO\'s opsets and no layer of '
                f"{model.document.display_path} has it{hint}"
            )
    return frozenset(name.lower() for name in names)


def unchecked_layers(model: Model) -> dict[str, list[str]]:
    """Layer type (lower case) -> the ids of the layers of it that checking trusted."""
    unchecked: dict[str, list[str]] = {}
    for layer in model.graph.layers.values():
        if layer.id not in model.checked.ops:
            unchecked.setdefault(layer.type.lower(), []).append(str(layer.id))
    return unchecked


def findings_by_layer(model: Model) -> dict[str, list[Severity]]:
    """The severity of each finding on a layer. IR202 is reported once per type irpool does
    not model, on the first layer of it; here it counts for every layer of that type, so
    the graph colours all of them or (suppressed) none."""
    types = {str(layer.id): layer.type.lower() for layer in model.graph.layers.values()}
    unchecked = unchecked_layers(model)
    findings: dict[str, list[Severity]] = {}
    for d in model.validate():
        if d.layer_id is None:
            continue
        layers = [d.layer_id]
        if d.code == UNCHECKED_OP and d.layer_id in types:
            layers = unchecked.get(types[d.layer_id], layers)
        for layer_id in layers:
            findings.setdefault(layer_id, []).append(d.severity)
    return findings


def dot_graph(model: Model, folded: set[int]) -> str:
    """The model as Graphviz DOT: layers coloured by their worst finding, edges by shape.
    The `folded` layers (constants) are no nodes: their shapes are listed in the labels
    of the layers they feed."""
    findings = findings_by_layer(model)
    constants: dict[int, list[str]] = {}
    edges = []
    for (target, _), (source, port) in sorted(model.graph.producers.items()):
        produced = model.checked.outputs.get(source)
        shown = str(produced[port].shape) if produced and port < len(produced) else "?"
        if source in folded:
            constants.setdefault(target, []).append(shown)
        elif target not in folded:
            edges.append(dot.Edge(source, target, shown))
    nodes = [
        dot.Node(
            layer.id,
            layer.name,
            _op_label(model, layer),
            findings.get(str(layer.id), []),
            list_text(constants.get(layer.id, [])),
        )
        for layer in model.graph.layers.values()
        if layer.id not in folded
    ]
    return dot.render(model.document.root.get("name") or model.document.display_path, nodes, edges)


def _results_last(model: Model) -> list[int]:
    """The topological order with the Results last, in XML order: OpenVINO's output order
    (docs/inputs-outputs.md)."""
    layers = model.graph.layers
    results = [i for i in model.graph.order if layers[i].type.lower() == "result"]
    others = [i for i in model.graph.order if layers[i].type.lower() != "result"]
    return others + sorted(results, key=lambda layer_id: layers[layer_id].position)


def _presented_types(model: Model) -> list[str]:
    """Where OpenVINO presents an input or output in another type than the file's (IR v10)."""
    version = model.document.ir_version
    notes = []
    for layer_id in model.graph.order:
        layer = model.graph.layers[layer_id]
        kind = layer.type.lower()
        if kind not in ("parameter", "result") or layer_id not in model.graph.reachable:
            continue
        infos = model.checked.outputs.get(layer_id)
        if kind == "result":
            source = model.graph.producers.get((layer_id, 0))
            infos = None if source is None else model.checked.outputs.get(source[0])
            index = 0 if source is None else source[1]
        else:
            index = 0
        if not infos or index >= len(infos):
            continue
        written = infos[index].element_type
        shown = (input_type if kind == "parameter" else output_type)(version, written)
        if shown != written:
            role = "input" if kind == "parameter" else "output"
            notes.append(
                f"IR v10: OpenVINO presents {role} {layer.describe()} as {shown}, not the "
                f"file's {written} (docs/ir-versions.md)."
            )
    return notes


def _text(model: Model, rows: list[LayerRow], type_names: tuple[str, ...], folded: int) -> str:
    """The table with its title, and what it leaves out."""
    total = len(model.graph.layers)
    counted = f"{len(rows)} of {total}" if len(rows) < total else str(total)
    noun = "layer" if total == 1 else "layers"
    title = f"{model.document.display_path}: {counted} {noun} in topological order"
    if model.reshaping is not None:
        title += f", reshaped to {model.reshaping.asked} (declared: the file's dims)"
    notes = []
    present = {layer.type.lower() for layer in model.graph.layers.values()}
    missing = [name for name in type_names if name.lower() not in present]
    if missing:
        notes.append(f"No layer of type {', '.join(missing)}.")
    if folded:
        notes.append(
            f"{folded} constant layer(s) (Const, and Convert of a Const) folded into their "
            "consumers' inputs; --constants shows them."
        )
    skipped = total - len(model.graph.order)
    if skipped:
        notes.append(f"{skipped} layer(s) in a cycle are not shown (see IR504).")
    notes += _presented_types(model)
    return explain_report.render_text(title, rows, notes)


@click.command()
@model_argument
@weights_option
@shape_option
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "dot"]),
    default="text",
    show_default=True,
)
@click.option(
    "--dot",
    "output_format",
    flag_value="dot",
    help="The graph as Graphviz DOT (same as --format dot): `| dot -Tsvg > model.svg`.",
)
@click.option(
    "--type",
    "type_names",
    type=COMMA_LIST,
    default=(),
    metavar="TYPES",
    help="Only layers of these comma-separated op types (any case): --type MaxPool,AvgPool.",
)
@click.option(
    "--constants",
    is_flag=True,
    help="Also show Consts and Converts of them, otherwise folded into their consumers' "
    "inputs (JSON always has every layer).",
)
def command(
    model_path: Path,
    weights: Path | None,
    shapes: tuple[tuple[str, str], ...],
    output_format: str,
    type_names: tuple[str, ...],
    constants: bool,
) -> None:
    """Show each layer's shapes (inferred and declared) and pooling geometry, in order."""
    if type_names and output_format == "dot":
        raise UsageError("--type selects table rows; the DOT graph shows every layer")
    model = load_or_exit(model_path, weights)
    if shapes:
        model = reshaped(model, shapes)
    types = selected_types(model, type_names)
    folded = set() if constants or types or output_format == "json" else folded_constants(model)
    if output_format == "dot":
        click.echo(dot_graph(model, folded), nl=False)
        return
    rows = [
        explain_row(model, model.graph.layers[layer_id])
        for layer_id in _results_last(model)
        if layer_id not in folded
        and (not types or model.graph.layers[layer_id].type.lower() in types)
    ]
    if output_format == "json":
        click.echo(explain_report.render_json(rows), nl=False)
        return
    click.echo(_text(model, rows, type_names, len(folded)), nl=False)
    found = Counter(d.severity.value for d in model.validate())
    counts = ", ".join(
        f"{found[s.value]} {s.value}{'s' if found[s.value] != 1 else ''}" for s in Severity
    )
    if found:
        click.echo(f"Findings: {counts}; `irpool validate {model_path}` lists them.", err=True)
    else:
        click.echo("Findings: none.", err=True)
