"""What the language server knows of one open document: `irpool validate`'s engine (the same
load, configuration, inline suppressions and fixes) run on the editor's unsaved text, and the
questions an editor asks of it (hover, definition, outline), answered as irpool `Span`s (1-based
lines, columns in characters) so that they are where `validate` puts them.

Nothing here speaks the protocol; `irpool.lsp.server` turns these answers into LSP messages.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from lxml import etree

from irpool.cli.discovery import force_excluded
from irpool.cli.explain import explain_row, input_infos
from irpool.config import Config, ConfigError, load_config
from irpool.diagnostics import Diagnostic, IRError, Span
from irpool.fix import Fix, FixError, apply_fixes, find_fixes, verify
from irpool.graph.graph import Layer, Port
from irpool.model import Model, load
from irpool.ops.base import Attr, TensorInfo
from irpool.ops.explanation import shape_value
from irpool.parse.source_map import SourceMap
from irpool.parse.values import read_unsigned
from irpool.report.explain import LayerRow, shape_text
from irpool.report.sarif import help_uri
from irpool.rules import RULES

EDGE_ENDS = {"from-layer": True, "from-port": True, "to-layer": False, "to-port": False}


@dataclass(frozen=True, slots=True)
class Hover:
    markdown: str
    span: Span


@dataclass(frozen=True, slots=True)
class Symbol:
    """An outline entry: a layer (its ports as children) spanning `span`, named at `selection`."""

    name: str
    detail: str
    is_layer: bool
    span: Span
    selection: Span
    children: list[Symbol] = field(default_factory=list)


@dataclass(frozen=True)
class Analysis:
    """One version of a document. `model` is None when the text cannot be read as IR (the
    diagnostics then say why); `config_problem` is a `[tool.irpool]` that cannot be used
    (defaults apply meanwhile)."""

    path: Path
    text: str
    model: Model | None
    diagnostics: list[Diagnostic]
    config_problem: str | None = None

    @cached_property
    def fixes(self) -> list[Fix]:
        """The fixes `--fix` makes of the reported diagnostics."""
        return find_fixes(self.diagnostics)

    def fix_of(self, diagnostic: Diagnostic) -> Fix | None:
        return next((fix for fix in self.fixes if diagnostic in fix.resolves), None)

    def fix_all(self) -> list[Fix]:
        """Every fix, once validating the fixed text shows that they settle what they claim and
        add nothing (as `--fix` checks before writing); none when that fails."""
        if self.model is None or not self.fixes:
            return []
        data = self.text.encode("utf-8")
        try:
            fixed = apply_fixes(data, self.model, self.fixes)
            verify(fixed, self.path.with_suffix(".bin"), self.model.validate(), self.fixes)
        except FixError:
            return []
        return self.fixes

    def span(self, start: int, end: int) -> Span:
        assert self.model is not None
        return self.model.document.source.span(start, end)

    def hover(self, offset: int) -> Hover | None:
        """What the element under the offset is, as OpenVINO reads it."""
        if self.model is None:
            return None
        source = self.model.document.source
        element = source.element_at(offset)
        for node in () if element is None else (element, *element.iterancestors()):
            if node.tag in ("dim", "port"):
                return self._port_hover(node)
            if node.tag == "data":
                attribute = source.attribute_at(node, offset)
                if attribute is not None:
                    return self._attribute_hover(node, *attribute)
            if node.tag == "edge":
                return self._edge_hover(node)
            if node.tag == "layer":
                layer = self._layer(node)
                if layer is None:
                    return None
                row = explain_row(self.model, layer)
                return Hover(layer_markdown(row, layer), source.element(node))
        return None

    def definition(self, offset: int) -> Span | None:
        """From an edge's from-layer/to-layer to that layer, from its from-port/to-port to that
        port of the layer (an output port for `from-`, an input port for `to-`)."""
        if self.model is None:
            return None
        source = self.model.document.source
        edge = source.element_at(offset)
        if edge is None or edge.tag != "edge":
            return None
        attribute = source.attribute_at(edge, offset)
        if attribute is None or attribute[0] not in EDGE_ENDS:
            return None
        is_from = EDGE_ENDS[attribute[0]]
        end = "from" if is_from else "to"
        layer_id = read_unsigned(edge.get(f"{end}-layer", ""))
        layer = None if layer_id is None else self.model.graph.layers.get(layer_id)
        if layer is None:
            return None
        if attribute[0].endswith("-layer"):
            return source.element(layer.element)
        port_id = read_unsigned(edge.get(f"{end}-port", ""))
        index = None if port_id is None else _index(layer, is_from, port_id)
        if index is None:
            return None
        ports = layer.outputs if is_from else layer.inputs
        return source.element(layer.port_element(ports[index]))

    def symbols(self) -> list[Symbol]:
        """The layers in XML order, each with its ports."""
        if self.model is None:
            return []
        source = self.model.document.source
        layers = self.model.document.root.find("layers")
        symbols = []
        for element in () if layers is None else layers.iterchildren("layer"):
            ports = [
                Symbol(
                    f"{group.tag} port {port.get('id', '?')}",
                    _written_shape(port),
                    False,
                    _extent(source, port),
                    source.element(port),
                )
                for group in element.iterchildren("input", "output")
                for port in group.iterchildren("port")
            ]
            detail = (
                f"{element.get('type', '?')} {element.get('version', '')} id {element.get('id')}"
            )
            name = element.get("name") or f"layer {element.get('id', '?')}"
            span, selection = _extent(source, element), source.element(element)
            symbols.append(Symbol(name, detail.strip(), True, span, selection, ports))
        return symbols

    def _layer(self, element: etree._Element) -> Layer | None:
        """The graph's layer for a <layer> element (of a repeated id, OpenVINO keeps the last)."""
        assert self.model is not None
        layer_id = read_unsigned(element.get("id", ""))
        layer = None if layer_id is None else self.model.graph.layers.get(layer_id)
        return layer if layer is not None and layer.element is element else None

    def _port_hover(self, node: etree._Element) -> Hover | None:
        assert self.model is not None
        source = self.model.document.source
        port_element = node if node.tag == "port" else node.getparent()
        group = None if port_element is None else port_element.getparent()
        owner = None if group is None else group.getparent()
        if port_element is None or group is None or owner is None or owner.tag != "layer":
            return None
        layer = self._layer(owner)
        found = None if layer is None else _port(layer, port_element)
        if layer is None or found is None:
            return None
        port, index = found
        inferred = self._tensor(layer, port, index)
        declared = shape_text(None if port.declared is None else _declared(port.declared))
        lines = [f'**{port.side} port {port.id}** of layer {layer.id} "{layer.name}"']
        if inferred is None:
            lines.append(f"declared `{declared}`; not inferred (irpool trusts the declaration)")
        else:
            shape = shape_text(shape_value(inferred.shape))
            lines.append(f"declared `{declared}`, inferred `{shape}` ({inferred.element_type})")
        dim = node if node.tag == "dim" else None
        if dim is not None and inferred is not None and inferred.shape.dims is not None:
            position = list(port_element.iterchildren("dim")).index(dim)
            if position < len(inferred.shape.dims):
                written = (dim.text or "").strip()
                lines.insert(
                    1,
                    f"dim {position}: declared `{written}`, inferred `{inferred.shape[position]}`",
                )
        span = source.element_text(dim) if dim is not None else source.element(port_element)
        return Hover("\n\n".join(lines), span)

    def _tensor(self, layer: Layer, port: Port, index: int) -> TensorInfo | None:
        """What flows through a port: a layer's own inferred output, or what feeds its input."""
        assert self.model is not None
        if port.side == "input":
            return input_infos(self.model, layer)[index]
        if layer.id in self.model.checked.trusted:
            return None
        outputs = self.model.checked.outputs.get(layer.id)
        return outputs[index] if outputs is not None and index < len(outputs) else None

    def _attribute_hover(self, data: etree._Element, name: str, start: int, end: int) -> Hover:
        assert self.model is not None
        owner = data.getparent()
        layer = None if owner is None else self._layer(owner)
        op = None if layer is None else self.model.checked.ops.get(layer.id)
        if op is None:
            text = f"`{name}`: irpool does not model this layer's type, so it does not check it"
        else:
            attr = next((a for a in op.attributes if a.name == name), None)
            text = _attribute_doc(op.label(), op.version, attr, name, op.ignored_attributes)
        span = self.span(start, end)
        rules = [
            f"{_rule_link(d.code)} `{d.name}` ({d.severity.value}): {RULES[d.code].summary}"
            for d in self.diagnostics
            if _overlaps(span, d)
        ]
        return Hover("\n\n".join([text, *rules]), span)

    def _edge_hover(self, edge: etree._Element) -> Hover | None:
        assert self.model is not None
        numbers = [read_unsigned(edge.get(end, "")) for end in EDGE_ENDS]
        if None in numbers:
            return None
        from_layer, from_port, to_layer, to_port = (n for n in numbers if n is not None)
        producer = self.model.graph.layers.get(from_layer)
        index = None if producer is None else producer.output_index(from_port)
        if producer is None or index is None:
            return None
        tensor = self._tensor(producer, producer.outputs[index], index)
        shown = "not inferred" if tensor is None else _tensor_text(tensor)
        text = (
            f'layer {from_layer} "{producer.name}" port {from_port} -> layer {to_layer} port '
            f"{to_port}: `{shown}`"
        )
        return Hover(text, self.model.document.source.element(edge))


def analyse(path: Path, text: str) -> Analysis:
    """Validate the document's text as `irpool validate` validates the file at `path`: the
    `.bin` beside it, the closest `[tool.irpool]` above it (with `force-exclude`, its
    excludes too), its inline suppressions."""
    problem = None
    try:
        config = load_config(None, False, path.parent)
    except ConfigError as error:
        config, problem = Config(), str(error)
    if config.force_exclude and force_excluded(path, config):
        return Analysis(path, text, None, [], problem)  # as `validate FILE` skips it
    try:
        model = load(path, data=text.encode("utf-8"))
    except IRError as error:
        return Analysis(path, text, None, config.apply(error.diagnostics, path), problem)
    # An editor shows a merged finding at each of its places.
    placed = [each for found in model.validate() for each in found.occurrences()]
    return Analysis(path, text, model, config.apply(placed, path), problem)


def layer_markdown(row: LayerRow, layer: Layer) -> str:
    """What `irpool explain` says of one layer: op, version, shapes, and per pooling axis the
    window, stride, dilation, effective pads and number of windows."""
    inferred = (
        "not inferred (irpool trusts the declaration)"
        if row.inferred is None
        else " ".join(f"`{shape_text(shape)}`" for shape in row.inferred) or "-"
    )
    declared = " ".join(
        "(unreadable)" if isinstance(shape, str) else f"`{shape_text(shape)}`"
        for shape in row.declared
    )
    inputs = " ".join("?" if t is None else f"`{t.text()}`" for t in row.inputs) or "-"
    lines = [
        f'**{row.op}** layer {row.id} "{row.name}" (version `{layer.version}`)',
        f"inputs: {inputs}",
        f"outputs: inferred {inferred}; declared {declared or '-'}"
        + (" **(differs)**" if row.differs else ""),
    ]
    if row.axes:
        table = [
            "| axis | size | window | stride | dilation | pads | windows |",
            "|---:|---:|---:|---:|---:|---|---:|",
            *(f"| {i} | " + " | ".join(axis.cells()) + " |" for i, axis in enumerate(row.axes)),
        ]
        lines += [row.pooling, "\n".join(table)]
    return "\n\n".join(lines)


def _attribute_doc(
    label: str, version: int, attr: Attr | None, name: str, ignored: Sequence[str]
) -> str:
    if attr is None:
        reason = "the runtime never reads it" if name in ignored else "OpenVINO ignores it"
        return f"`{name}`: {label} has no such attribute; {reason}"
    facts = [attr.type.value]
    if attr.mandatory:
        facts.append("the runtime refuses the layer without it")
    elif attr.required:
        facts.append(
            f"required by the specification (default {attr.describe_default()}"
            f"{attr.default_effect})"
        )
    elif attr.default is not None:
        facts.append(f"default {attr.describe_default()}")
    if attr.choices:
        facts.append("one of " + ", ".join(f"`{choice}`" for choice in attr.choices))
    if attr.min_value is not None:
        facts.append(f"at least {attr.min_value}")
    for other, values in attr.replaced_when.items():
        facts.append(f"replaced by the runtime when {other} is " + " or ".join(values))
    if attr.since > version:
        facts.append(f"introduced in version {attr.since}: {label} ignores it")
    return f"`{name}` of {label}: " + "; ".join(facts)


def _port(layer: Layer, element: etree._Element) -> tuple[Port, int] | None:
    """The runtime's port for a <port> element, with its operand index; None for a port the
    runtime does not read (in a second <input>, say)."""
    group = element.getparent()
    assert group is not None
    side = str(group.tag)
    if side not in ("input", "output") or next(layer.element.iterchildren(side)) is not group:
        return None
    position = list(group.iterchildren("port")).index(element)
    ports = layer.inputs if side == "input" else layer.outputs
    return next(((p, i) for i, p in enumerate(ports) if p.position == position), None)


def _index(layer: Layer, output: bool, port_id: int) -> int | None:
    return layer.output_index(port_id) if output else layer.input_index(port_id)


def _declared(values: tuple[int, ...]) -> list[int | str]:
    return ["?" if value == -1 else value for value in values]


def _tensor_text(tensor: TensorInfo) -> str:
    return f"{shape_text(shape_value(tensor.shape))} {tensor.element_type}"


def _written_shape(port: etree._Element) -> str:
    dims: Iterator[str] = ((dim.text or "").strip() for dim in port.iterchildren("dim"))
    precision = port.get("precision")
    return "[" + ",".join(dims) + "]" + (f" {precision}" if precision else "")


def _extent(source: SourceMap, element: etree._Element) -> Span:
    offsets = source.extent(element)
    return source.element(element) if offsets is None else source.span(*offsets)


def _rule_link(code: str) -> str:
    url = help_uri(code)
    return code if url is None else f"[{code}]({url})"


def _overlaps(span: Span, d: Diagnostic) -> bool:
    starts_before_end = (d.line, d.column) < (span.end_line, span.end_column)
    return starts_before_end and (span.line, span.column) < (d.end_line, d.end_column)
