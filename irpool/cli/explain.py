"""`irpool explain MODEL.xml`: every layer in topological order with its input shapes, its
output shape as inferred and as declared, and each pooling layer's geometry per axis (window,
stride, dilation, effective pads, number of windows), so a person can see why a dim is what
it is.

Exit codes: 0 explained (whatever the model's findings), 1 the file cannot be read as IR,
2 usage error.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import click

from irpool.cli.app import load_or_exit, model_argument, weights_option
from irpool.graph.model import Layer
from irpool.graph.shape import Shape
from irpool.model import Model
from irpool.ops.base import TensorInfo
from irpool.report import dot
from irpool.report import explain as explain_report
from irpool.report.explain import LayerRow, ShapeValue, TensorRow, shape_value
from irpool.rules import Severity


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
    infos: list[TensorInfo | None] = []
    for index in range(len(layer.inputs)):
        source = model.graph.producers.get((layer.id, index))
        produced = None if source is None else model.checked.outputs.get(source[0])
        infos.append(
            produced[source[1]] if produced and source and source[1] < len(produced) else None
        )
    return infos


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


def explain_rows(model: Model) -> list[LayerRow]:
    """One row per layer irpool could order, in topological order."""
    return [explain_row(model, model.graph.layers[layer_id]) for layer_id in model.graph.order]


def explain_row(model: Model, layer: Layer) -> LayerRow:
    """A layer's shapes (inputs, outputs inferred and declared) and its op's geometry."""
    op = model.checked.ops.get(layer.id)
    inputs = input_infos(model, layer)
    trusted = layer.id in model.checked.trusted
    outputs = None if trusted else model.checked.outputs.get(layer.id)
    inferred = [shape_value(info.shape) for info in outputs] if outputs is not None else None
    declared = [declared_value(port.declared) for port in layer.outputs]
    differs = outputs is not None and any(
        _differs(port.declared, info.shape)
        for port, info in zip(layer.outputs, outputs, strict=False)
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


def dot_graph(model: Model) -> str:
    """The model as Graphviz DOT: layers coloured by their worst finding, edges by shape."""
    findings: dict[str, list[Severity]] = {}
    for d in model.validate():
        if d.layer_id is not None:
            findings.setdefault(d.layer_id, []).append(d.severity)
    nodes = [
        dot.Node(layer.id, layer.name, _op_label(model, layer), findings.get(str(layer.id), []))
        for layer in model.graph.layers.values()
    ]
    edges = []
    for (target, _), (source, port) in sorted(model.graph.producers.items()):
        produced = model.checked.outputs.get(source)
        shown = str(produced[port].shape) if produced and port < len(produced) else "?"
        edges.append(dot.Edge(source, target, shown))
    return dot.render(model.document.root.get("name") or model.document.display_path, nodes, edges)


@click.command()
@model_argument
@weights_option
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
def command(model_path: Path, weights: Path | None, output_format: str) -> None:
    """Show each layer's shapes (inferred and declared) and pooling geometry, in order."""
    model = load_or_exit(model_path, weights)
    if output_format == "dot":
        click.echo(dot_graph(model), nl=False)
        return
    rows = explain_rows(model)
    skipped = len(model.graph.layers) - len(rows)
    if output_format == "json":
        click.echo(explain_report.render_json(rows), nl=False)
    else:
        click.echo(explain_report.render_text(model.document.display_path, rows, skipped), nl=False)
        found = Counter(d.severity.value for d in model.validate())
        counts = ", ".join(
            f"{found[s.value]} {s.value}{'s' if found[s.value] != 1 else ''}" for s in Severity
        )
        if found:
            click.echo(f"Findings: {counts}; `irpool validate {model_path}` lists them.", err=True)
        else:
            click.echo("Findings: none.", err=True)
