"""Stage 2: a parsed document -> the graph model, reporting every structural problem found."""

from __future__ import annotations

import re
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from lxml import etree

from irpool.diagnostics import Collector
from irpool.graph.model import Children, Graph, Layer, Port
from irpool.parse.schema import StructureCheck
from irpool.parse.values import read_dim, read_precision, read_unsigned, trailing_blank
from irpool.parse.xml_reader import Document
from irpool.rules import (
    CYCLE,
    DUPLICATE_LAYER_ID,
    DUPLICATE_PORT_ID,
    INPUT_EDGE_COUNT,
    INVALID_DIM,
    INVALID_PRECISION,
    IR_STRUCTURE,
    MISSING_PRECISION,
    NO_LAYERS,
    NO_RESULT,
    NON_CANONICAL_DIM,
    REINTERPRETED_DIM,
    UNKNOWN_EDGE_LAYER,
    UNKNOWN_EDGE_PORT,
    UNREACHABLE_LAYER,
    Code,
)

# Sinks the runtime walks back from; everything else must feed one of them.
_SINK_TYPES = ("result", "assign")
# What OpenVINO's IR reader checks in every layer, even one it then drops for feeding no
# sink: the layer's id and version, its ports' precisions and dims. Everything else it
# checks only while creating an op, and it creates none for a dropped layer.
_READ_IN_EVERY_LAYER = frozenset(
    {IR_STRUCTURE, DUPLICATE_LAYER_ID, MISSING_PRECISION, INVALID_PRECISION, INVALID_DIM}
)
_DROPPED = " (the layer feeds no Result, so OpenVINO drops it without reading this)"


def build_graph(doc: Document, sink: Collector) -> Graph:
    container = _first(doc.root, "layers")
    beside = _Beside(container, StructureCheck(doc))
    number = cache(read_unsigned)  # layer ids recur in the edges, port numbers everywhere
    edges = _read_edges(doc, number)  # while <layers> is serialized beside
    read = _read_layers(doc, container, beside.layers_text(), number, sink)
    layers = read.layers
    wiring = _connect(doc, layers, edges, sink)
    producers, broken = wiring.producers, wiring.broken
    _check_fan_in(doc, layers, producers, broken, sink)
    order = _topological_order(doc, layers, producers, sink)
    # An edge naming a missing port may still be what keeps its from-layer; with an
    # unreadable number the real dataflow is unknown, so "unreachable" would be a guess.
    maybe = [(to_layer, from_layer) for _, from_layer, _, to_layer, _ in wiring.loose]
    reachable, dropped = _reachable(
        doc, layers, producers, maybe, sink, known=not wiring.unreadable
    )
    if dropped:
        sink.drop_layers(dropped, _READ_IN_EVERY_LAYER.__contains__, _DROPPED)
    _report_loose_edges(doc, layers, edges, wiring.loose, frozenset(dropped), sink)
    beside.finish(sink)
    if not layers and not sink.has_errors:
        sink.add(NO_LAYERS, "the model has no layers", doc.source.element(doc.root))
    return Graph(layers, producers, order, reachable, read.repeated_ids, read.names_written)


class _Beside:
    """lxml work that releases the GIL, done on a second thread while the main thread reads
    in Python: serializing <layers> (which the main thread reads the layers from), then the
    schema check. Both only read the tree."""

    def __init__(self, container: etree._Element | None, structure: StructureCheck) -> None:
        self._container = container
        self._structure = structure
        self._text: str | None = None
        self._error: BaseException | None = None
        self._serialized = threading.Event()
        self._thread: threading.Thread | None = None
        if structure.runs_beside:
            self._thread = threading.Thread(target=self._work, name="irpool-beside")
            self._thread.start()
        else:
            structure.run()
            self._serialize()

    def _work(self) -> None:
        self._serialize()
        self._structure.run()

    def _serialize(self) -> None:
        try:
            if self._container is not None:
                # As str: lxml writes that faster than bytes, and the reader reads no bytes.
                self._text = etree.tostring(self._container, with_tail=False, encoding="unicode")
        except BaseException as error:  # raised again on the main thread
            self._error = error
        finally:
            self._serialized.set()

    def layers_text(self) -> str | None:
        """The serialization of <layers> (None without one)."""
        self._serialized.wait()
        if self._error is not None:
            raise self._error
        return self._text

    def finish(self, sink: Collector) -> None:
        """Wait for the schema check and report what it found."""
        if self._thread is not None:
            self._thread.join()
        self._structure.report(sink)


def _first(element: etree._Element, tag: str) -> etree._Element | None:
    """The first child with this tag: the runtime reads only the first of a repeated one."""
    return next(element.iterchildren(tag), None)


@dataclass(frozen=True, slots=True)
class _Layers:
    layers: dict[int, Layer]
    repeated_ids: frozenset[int]  # as Graph's
    names_written: tuple[str, ...]  # as Graph's


# A names attribute as lxml serializes it (its value escaped: no quote inside).
_NAMES_WRITTEN = re.compile(r' names="([^"]*)"')


def _read_layers(
    doc: Document,
    container: etree._Element | None,
    text: str | None,
    number: Callable[[str], int | None],
    sink: Collector,
) -> _Layers:
    """The layers, from `text`, the serialization of <layers> `container`."""
    layers: dict[int, Layer] = {}
    first_seen: dict[int, int] = {}  # layer id -> position of the first layer with it
    repeated: set[int] = set()
    if container is None or text is None:
        return _Layers(layers, frozenset(), ())
    bodies = _BodyReader(doc, sink)
    cut = _cut(text, container)
    # The cut holds only when every child of <layers> is a <layer>.
    elements = Children(container, "layer", uniform=cut is not None)
    if cut is None:
        texts = [_body_text(element) for element in elements.all()]
        heads = None
    else:
        texts, heads = cut
    if heads is None:
        heads = [
            (e.get("id", ""), e.get("name", ""), e.get("type", ""), e.get("version", ""))
            for e in elements.all()
        ]
    for position, ((id_text, name, type_, version), body_text) in enumerate(
        zip(heads, texts, strict=True)
    ):
        layer_id = number(id_text)
        if layer_id is None:
            # The schema check has reported anything but a trailing blank.
            _report_trailing_blanks(doc, elements[position], ("id",), (id_text, name), sink)
            continue
        body = bodies.read(elements, position, body_text)
        layer = Layer(
            layer_id,
            name,
            type_,
            version,
            elements,
            position,
            body.data_items,
            body.inputs,
            body.outputs,
            body.positions,
        )
        if body.findings:
            bodies.place(layer, body.findings)
        if layer_id in layers:
            repeated.add(layer_id)
            earlier = elements[first_seen[layer_id]]
            sink.add(
                DUPLICATE_LAYER_ID,
                f'layer id {layer_id} is already used by "{layers[layer_id].name}" on line '
                f"{earlier.sourceline}; OpenVINO keeps only this later layer",
                doc.source.attribute(layer.element, "id"),
                layer.ref,
            )
        else:
            first_seen[layer_id] = position
        layers[layer_id] = layer
    return _Layers(layers, frozenset(repeated), tuple(_NAMES_WRITTEN.findall(text)))


# id, name, type and version as written.
Head = tuple[str, str, str, str]


def _body_text(element: etree._Element) -> str:
    """A layer's serialization after its start tag: its children and its end tag."""
    text: str = etree.tostring(element, with_tail=False, encoding="unicode")
    # The start tag (id, name, type, version) ends at the first ">": serialized attribute
    # values have theirs escaped.
    return text[text.find(">") + 1 :]


# A <layer> start tag as lxml serializes it (a ">" in a value is escaped), its attributes
# captured; and those attributes as OpenVINO's serializer writes them, with no escape.
_LAYER_START = re.compile(r"<layer ([^>]*)>")
_HEAD = re.compile(
    r'^id="([^"&]*)" name="([^"&]*)" type="([^"&]*)" version="([^"&]*)"(?: .*)?$', re.M
)


def _cut(text: str, container: etree._Element) -> tuple[list[str], list[Head] | None] | None:
    """From the serialization of <layers>: each layer's `_body_text`, and each layer's head
    when every start tag is written id, name, type, version (the serializer's order) with
    nothing to unescape. None when the cut could go wrong.

    Cutting at each "<layer " is exact when every child is a <layer> with attributes, none
    contains another, and no comment or processing instruction can hold that text. The
    layers must not declare namespaces either, since a body is read without its start tag.
    """
    # A lone "!" or "?" is found at memchr speed; "<!--" and "<?" only where one occurs.
    if ("!" in text and "<!--" in text) or ("?" in text and "<?" in text) or "xmlns" in text:
        return None
    pieces = _LAYER_START.split(text)
    count = len(pieces) // 2
    if not count == len(container) == container.xpath("count(layer)"):
        return None
    pieces[-1] = pieces[-1].removesuffix("</layers>")
    heads: list[Head] | None = _HEAD.findall("\n".join(pieces[1::2]))
    return pieces[2::2], heads if heads is not None and len(heads) == count else None


# A port as written: its side, id and precision attributes, and the text of each <dim>.
PortText = tuple[str, str, str | None, tuple[str, ...]]
# Where a port finding points: an attribute of the port, one of its dims (by index), or,
# with None, the port element.
Where = str | int | None
# A finding in a layer's ports: rule code, message, the side and position of the port among
# the <port>s of the layer's first <input> or <output>, and where in the port.
PortFinding = tuple[Code, str, str, int, Where]


@dataclass(frozen=True, slots=True)
class PortReading:
    """A port as the runtime reads it, from its text alone, with every finding."""

    id: int | None  # None: unreadable (the schema check reports it)
    precision: str | None  # the element type the precision names, if it names one
    declared: tuple[int, ...] | None  # dims as the runtime reads them; None if one cannot be
    findings: tuple[tuple[Code, str, Where], ...]


# A port's id, position, dims, precision and precision text, as Port holds them.
_PortValues = tuple[int, int, tuple[int, ...] | None, str | None, str | None]


@dataclass(frozen=True, slots=True)
class _Body:
    """What a layer's children say: its first <data>'s attributes and its ports."""

    data_items: tuple[tuple[str, str], ...] | None
    inputs: tuple[Port, ...]
    outputs: tuple[Port, ...]
    positions: dict[tuple[bool, int], int]  # as Layer.positions
    findings: tuple[PortFinding, ...]


# The names attribute of a serialized <port> (values are escaped: no quote inside).
_PORT_NAMES = re.compile(r'(<port [^>]*?) names="[^"]*"')


class _BodyReader:
    """Reads what is inside `<layer>` elements. Real models repeat it (the same `<data>`,
    ports, dims and precisions, layer after layer), so each distinct serialization is read
    once and shared by every layer that writes it; its findings are placed on each of them.
    A port's tensor names are not part of what is read, and models name every tensor, so a
    body not seen before is looked up again without them. Ports and <data> attributes that
    read alike are one shared tuple, which makes the checks' memo key cheap."""

    def __init__(self, doc: Document, sink: Collector) -> None:
        self.doc = doc
        self.sink = sink
        self.bodies: dict[str, _Body] = {}
        self.unnamed: dict[str, _Body] = {}  # by the text without port names
        self.ports: dict[PortText, PortReading] = {}
        self.port_tuples: dict[tuple[str, tuple[_PortValues, ...]], tuple[Port, ...]] = {}
        self.data: dict[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]] = {}

    def read(self, elements: Children, position: int, text: str) -> _Body:
        """The body of the layer at `position`, given its `_body_text`."""
        body = self.bodies.get(text)
        if body is None:
            unnamed = _PORT_NAMES.sub(r"\1", text)
            body = self.unnamed.get(unnamed)
            if body is None:
                body = self.unnamed[unnamed] = self._read(elements[position])
            self.bodies[text] = body
        return body

    def _read(self, element: etree._Element) -> _Body:
        data_items = None
        groups: dict[str, etree._Element] = {}
        for child in element:  # plain iteration: lxml's tag filters are slower
            tag = child.tag
            if tag == "data":
                if data_items is None:
                    items = tuple(child.items())
                    data_items = self.data.setdefault(items, items)
            elif tag not in groups:
                groups[tag] = child
        findings: list[PortFinding] = []
        inputs, outputs = (
            () if group is None else self._read_ports(group, side, findings)
            for side, group in (("input", groups.get("input")), ("output", groups.get("output")))
        )
        positions: dict[tuple[bool, int], int] = {}
        for output, ports in ((False, inputs), (True, outputs)):
            for index, port in enumerate(ports):
                positions.setdefault((output, port.id), index)
        return _Body(data_items, inputs, outputs, positions, tuple(findings))

    def _read_ports(
        self, group: etree._Element, side: str, findings: list[PortFinding]
    ) -> tuple[Port, ...]:
        readings: list[_PortValues] = []
        seen: set[int] = set()
        elements = [child for child in group if child.tag == "port"]
        for position, element in enumerate(elements):
            precision_text = element.get("precision")
            text = (
                side,
                element.get("id", ""),
                precision_text,
                tuple([dim.text or "" for dim in element if dim.tag == "dim"]),
            )
            reading = self.ports.get(text)
            if reading is None:
                reading = self.ports[text] = read_port(*text)
            findings.extend(
                (code, message, side, position, where) for code, message, where in reading.findings
            )
            if reading.id is None:
                continue
            if reading.id in seen:
                message = (
                    f"{side} port id {reading.id} appears twice in this layer; edges can reach "
                    "only the first"
                )
                findings.append((DUPLICATE_PORT_ID, message, side, position, "id"))
            seen.add(reading.id)
            readings.append(
                (reading.id, position, reading.declared, reading.precision, precision_text)
            )
        key = (side, tuple(readings))
        ports = self.port_tuples.get(key)
        if ports is None:
            ports = self.port_tuples[key] = tuple(
                Port(id, side, position, declared, precision, text)
                for id, position, declared, precision, text in readings
            )
        return ports

    def place(self, layer: Layer, findings: tuple[PortFinding, ...]) -> None:
        source = self.doc.source
        for code, message, side, position, where in findings:
            group = next(layer.element.iterchildren(side))
            element = [child for child in group if child.tag == "port"][position]
            if isinstance(where, int):
                dims = [child for child in element if child.tag == "dim"]
                span = source.element_text(dims[where])
            elif where is not None:
                span = source.attribute(element, where)
            else:
                span = source.element(element)
            self.sink.add(code, message, span, layer.ref)


_DIM_CODES = {
    "rejected": INVALID_DIM,
    "reinterpreted": REINTERPRETED_DIM,
    "noncanonical": NON_CANONICAL_DIM,
}


def read_port(
    side: str, id_text: str, precision_text: str | None, dim_texts: tuple[str, ...]
) -> PortReading:
    """A port read from its text alone, with every finding."""
    findings: list[tuple[Code, str, Where]] = []
    precision = None
    if precision_text is None:
        if side == "output":
            findings.append(
                (
                    MISSING_PRECISION,
                    f"output port {id_text} has no precision; OpenVINO requires one",
                    None,
                )
            )
    else:
        reading = read_precision(precision_text)
        precision = reading.value
        # The runtime parses output precisions only; a bad one on an input port is ignored.
        if reading.finding is not None and side == "output":
            message = f"output port {id_text} precision: {reading.finding.message}"
            findings.append((INVALID_PRECISION, message, "precision"))
    values: list[int] = []
    for index, text in enumerate(dim_texts):
        dim = read_dim(text)
        if dim.finding is not None:
            message = f"port {id_text} dim {index}: {dim.finding.message}"
            findings.append((_DIM_CODES[dim.finding.kind], message, index))
        if dim.value is not None:
            values.append(dim.value)
    declared = tuple(values) if len(values) == len(dim_texts) else None
    blank = trailing_blank(id_text)
    if blank is not None:  # one the schema check lets through
        findings.append((IR_STRUCTURE, f"<port> attribute id: {blank}", "id"))
    return PortReading(read_unsigned(id_text), precision, declared, tuple(findings))


_EDGE_ATTRIBUTES = ("from-layer", "from-port", "to-layer", "to-port")
# Each attribute of every <edge> child, in document order: one C-level pass per attribute.
_EDGE_COLUMNS = [etree.XPath(f"edge/@{name}", smart_strings=False) for name in _EDGE_ATTRIBUTES]


def _edge_columns(container: etree._Element, count: int) -> list[list[str]]:
    """The four attributes of each of the `count` edges as four aligned columns of text. An
    edge without one reads it as "", as `edge.get(name, "")` would; columns are only taken
    from XPath when each has one value per edge, which makes them aligned (an attribute
    cannot repeat)."""
    columns: list[list[str]] = [find(container) for find in _EDGE_COLUMNS]
    if all(len(column) == count for column in columns):
        return columns
    edges = list(container.iterchildren("edge"))
    return [[edge.get(name, "") for edge in edges] for name in _EDGE_ATTRIBUTES]


@dataclass(frozen=True, slots=True)
class _Edges:
    """The <edge> elements' numbers, columns aligned by edge (None: unreadable)."""

    elements: Children | None
    from_layers: list[int | None]
    from_ports: list[int | None]
    to_layers: list[int | None]
    to_ports: list[int | None]


def _read_edges(doc: Document, number: Callable[[str], int | None]) -> _Edges:
    container = _first(doc.root, "edges")
    if container is None:
        return _Edges(None, [], [], [], [])
    count = int(container.xpath("count(edge)"))
    columns = _edge_columns(container, count)
    return _Edges(Children(container, "edge"), *[list(map(number, c)) for c in columns])


# An edge whose numbers read but whose ends name no port: its position, then from-layer,
# from-port, to-layer and to-port.
_LooseEdge = tuple[int, int, int, int, int]


@dataclass(frozen=True, slots=True)
class _Wiring:
    producers: dict[tuple[int, int], tuple[int, int]]  # (layer, input index) -> (layer, output)
    broken: set[int | None]  # to-layers of edges not resolved (None: unreadable)
    loose: list[_LooseEdge]  # not reported yet: that depends on whether the runtime reads them
    unreadable: bool  # some edge has a number that does not read


def _connect(doc: Document, layers: dict[int, Layer], edges: _Edges, sink: Collector) -> _Wiring:
    producers: dict[tuple[int, int], tuple[int, int]] = {}
    broken: set[int | None] = set()
    loose: list[_LooseEdge] = []
    unreadable = False
    numbers = zip(edges.from_layers, edges.from_ports, edges.to_layers, edges.to_ports, strict=True)
    for index, (from_layer, from_port, to_layer, to_port) in enumerate(numbers):
        if from_layer is None or from_port is None or to_layer is None or to_port is None:
            # The schema check has reported anything but a trailing blank.
            assert edges.elements is not None
            _report_trailing_blanks(doc, edges.elements[index], _EDGE_ATTRIBUTES, None, sink)
            broken.add(to_layer)
            unreadable = True
            continue
        producer = layers.get(from_layer)
        consumer = layers.get(to_layer)
        source_index = None if producer is None else producer.positions.get((True, from_port))
        target_index = None if consumer is None else consumer.positions.get((False, to_port))
        if source_index is None or target_index is None:
            loose.append((index, from_layer, from_port, to_layer, to_port))
            broken.add(to_layer)
            continue
        source, target = (from_layer, source_index), (to_layer, target_index)
        if target not in producers:
            producers[target] = source
        else:
            assert edges.elements is not None
            layer = layers[to_layer]
            sink.add(
                INPUT_EDGE_COUNT,
                f"input port {to_port} of {layer.describe()} has more than one incoming "
                "edge; an input takes exactly one",
                doc.source.element(edges.elements[index]),
                layer.ref,
            )
    return _Wiring(producers, broken, loose, unreadable)


def _report_loose_edges(
    doc: Document,
    layers: dict[int, Layer],
    edges: _Edges,
    loose: list[_LooseEdge],
    dropped: frozenset[str],
    sink: Collector,
) -> None:
    """Say why each end of a loose edge names no port; only a warning when the edge leads
    into a layer the runtime drops, since it never reads that layer's inputs."""
    for index, from_layer, from_port, to_layer, to_port in loose:
        assert edges.elements is not None
        edge = edges.elements[index]
        producer, consumer = layers.get(from_layer), layers.get(to_layer)
        into_dropped = str(to_layer) in dropped
        if producer is None or producer.output_index(from_port) is None:
            _report_edge_end(doc, edge, producer, from_layer, from_port, "from", sink, into_dropped)
        if consumer is None or consumer.input_index(to_port) is None:
            _report_edge_end(doc, edge, consumer, to_layer, to_port, "to", sink, into_dropped)


def _report_trailing_blanks(
    doc: Document,
    element: etree._Element,
    names: tuple[str, ...],
    layer: tuple[str | None, str | None] | None,
    sink: Collector,
) -> None:
    """Ids that end with a blank, which XML Schema collapses away but OpenVINO refuses."""
    for name in names:
        message = trailing_blank(element.get(name, ""))
        if message is not None:
            span = doc.source.attribute(element, name)
            message = f"<{element.tag}> attribute {name}: {message}"
            sink.add(IR_STRUCTURE, message, span, layer or (None, None))


def _report_edge_end(
    doc: Document,
    edge: etree._Element,
    layer: Layer | None,
    layer_id: int,
    port_id: int,
    side: str,
    sink: Collector,
    into_dropped: bool,
) -> None:
    """Say why one end of an edge names no port."""
    if layer is None:
        sink.add(
            UNKNOWN_EDGE_LAYER,
            f"edge {side}-layer={layer_id}: there is no layer with id {layer_id}",
            doc.source.attribute(edge, f"{side}-layer"),
            about_dropped=into_dropped,
        )
        return
    outgoing = side == "from"
    kind, other = ("output", "input") if outgoing else ("input", "output")
    wrong = layer.input_index(port_id) if outgoing else layer.output_index(port_id)
    hint = (
        f"; port {port_id} is an {other} port, and edges run from an output port to an input port"
        if wrong is not None
        else ""
    )
    sink.add(
        UNKNOWN_EDGE_PORT,
        f"edge {side}-port={port_id}: {layer.describe()} has no {kind} port {port_id}{hint}",
        doc.source.attribute(edge, f"{side}-port"),
        layer.ref,
        about_dropped=into_dropped,
    )


def _check_fan_in(
    doc: Document,
    layers: dict[int, Layer],
    producers: dict[tuple[int, int], tuple[int, int]],
    broken: set[int | None],
    sink: Collector,
) -> None:
    for layer in layers.values():
        if layer.id in broken or None in broken:
            continue  # its edge is there but broken, and already reported
        for index, port in enumerate(layer.inputs):
            if (layer.id, index) not in producers:
                sink.add(
                    INPUT_EDGE_COUNT,
                    f"input port {port.id} of {layer.describe()} has no incoming edge",
                    doc.source.element(layer.port_element(port)),
                    layer.ref,
                )


def _topological_order(
    doc: Document,
    layers: dict[int, Layer],
    producers: dict[tuple[int, int], tuple[int, int]],
    sink: Collector,
) -> list[int]:
    """Kahn's algorithm in XML order (iterative: no recursion limit on deep chains)."""
    indegree = dict.fromkeys(layers, 0)
    successors: dict[int, list[int]] = {layer_id: [] for layer_id in layers}
    for (target, _), (source, _) in producers.items():
        indegree[target] += 1
        successors[source].append(target)
    ready = deque(layer_id for layer_id, count in indegree.items() if count == 0)
    order: list[int] = []
    while ready:
        layer_id = ready.popleft()
        order.append(layer_id)
        for successor in successors[layer_id]:
            indegree[successor] -= 1
            if indegree[successor] == 0:
                ready.append(successor)
    if len(order) < len(layers):
        _report_cycle(doc, layers, producers, indegree, sink)
    return order


def _report_cycle(
    doc: Document,
    layers: dict[int, Layer],
    producers: dict[tuple[int, int], tuple[int, int]],
    indegree: dict[int, int],
    sink: Collector,
) -> None:
    """Every layer left with inputs lies on or after a cycle; walking back finds one."""
    stuck = {layer_id for layer_id, count in indegree.items() if count > 0}
    predecessor = {
        target: source for (target, _), (source, _) in producers.items() if source in stuck
    }
    path: list[int] = []
    position: dict[int, int] = {}
    current = next(layer_id for layer_id in layers if layer_id in stuck)
    while current not in position:
        position[current] = len(path)
        path.append(current)
        current = predecessor[current]
    cycle = list(reversed(path[position[current] :]))
    first = layers[cycle[0]]
    chain = " -> ".join(f'{layers[i].id} "{layers[i].name}"' for i in [*cycle, cycle[0]])
    sink.add(
        CYCLE, f"the edges form a cycle: {chain}", doc.source.element(first.element), first.ref
    )


def _reachable(
    doc: Document,
    layers: dict[int, Layer],
    producers: dict[tuple[int, int], tuple[int, int]],
    maybe: list[tuple[int, int]],
    sink: Collector,
    known: bool,
) -> tuple[frozenset[int], list[str]]:
    """Layers the runtime builds: those some sink depends on (through `producers`, or
    perhaps through a loose edge: the (to-layer, from-layer) pairs in `maybe`), plus every
    Parameter; and, when the dataflow is `known`, the ids of the layers it drops."""
    inputs_of: dict[int, list[int]] = {}
    for (target, _), (source, _) in producers.items():
        inputs_of.setdefault(target, []).append(source)
    for target, source in maybe:
        if source in layers:
            inputs_of.setdefault(target, []).append(source)
    kinds = {kind: kind.lower() for kind in {layer.type for layer in layers.values()}}
    sinks = [i for i, layer in layers.items() if kinds[layer.type] in _SINK_TYPES]
    if layers and not sinks:
        sink.add(
            NO_RESULT,
            "the model has no Result layer, so it has no outputs",
            doc.source.element(doc.root),
        )
    seen = set(sinks)
    stack = list(sinks)
    while stack:
        for source in inputs_of.get(stack.pop(), ()):
            if source not in seen:
                seen.add(source)
                stack.append(source)
    seen.update(i for i, layer in layers.items() if kinds[layer.type] == "parameter")
    dropped: list[str] = []
    if sinks and known and len(seen) < len(layers):
        for layer in layers.values():
            if layer.id not in seen:
                sink.add(
                    UNREACHABLE_LAYER,
                    f"{layer.describe()} feeds no Result; OpenVINO silently drops it",
                    doc.source.element(layer.element),
                    layer.ref,
                )
                dropped.append(layer.ref[0])
    return frozenset(seen), dropped
