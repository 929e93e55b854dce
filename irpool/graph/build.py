"""Stage 2: a parsed document -> the graph model, reporting every structural problem found."""

from __future__ import annotations

from collections import deque

from lxml import etree

from irpool.diagnostics import Collector
from irpool.graph.model import Connection, Graph, Layer, Port
from irpool.parse.schema import check_structure
from irpool.parse.values import read_dim, read_precision, read_unsigned
from irpool.parse.xml_reader import Document

# Sinks the runtime walks back from; everything else must feed one of them.
_SINK_TYPES = ("result", "assign")


def build_graph(doc: Document, sink: Collector) -> Graph:
    check_structure(doc, sink)
    layers = _read_layers(doc, sink)
    producers, broken = _read_edges(doc, layers, sink)
    _check_fan_in(doc, layers, producers, broken, sink)
    connections = [Connection(src[0], src[1], dst[0], dst[1]) for dst, src in producers.items()]
    order = _topological_order(doc, layers, connections, sink)
    # With a broken edge the real dataflow is unknown, so "unreachable" would be a guess.
    reachable = _reachable(doc, layers, producers, sink, warn=not broken)
    return Graph(layers, connections, producers, order, reachable)


def _children(element: etree._Element, tag: str) -> list[etree._Element]:
    return [child for child in element if child.tag == tag]


def _read_layers(doc: Document, sink: Collector) -> dict[int, Layer]:
    layers: dict[int, Layer] = {}
    first_seen: dict[int, etree._Element] = {}
    for container in _children(doc.root, "layers")[:1]:
        for element in _children(container, "layer"):
            layer_id = read_unsigned(element.get("id", ""))
            if layer_id is None:
                continue  # the schema check has reported it
            layer = Layer(
                id=layer_id,
                name=element.get("name", ""),
                type=element.get("type", ""),
                version=element.get("version", ""),
                element=element,
                data=next(iter(_children(element, "data")), None),
            )
            if layer_id in layers:
                earlier = first_seen[layer_id]
                sink.add(
                    "IR106",
                    f'layer id {layer_id} is already used by "{layers[layer_id].name}" on line '
                    f"{earlier.sourceline}; OpenVINO keeps only this later layer",
                    doc.source.attribute(element, "id"),
                    layer.ref,
                )
            else:
                first_seen[layer_id] = element
            layer.inputs = _read_ports(doc, layer, "input", sink)
            layer.outputs = _read_ports(doc, layer, "output", sink)
            layers[layer_id] = layer
    if not layers and not sink.has_errors:
        sink.add("IR108", "the model has no layers", doc.source.element(doc.root))
    return layers


def _read_ports(doc: Document, layer: Layer, side: str, sink: Collector) -> list[Port]:
    ports: list[Port] = []
    seen: set[int] = set()
    for group in _children(layer.element, side)[:1]:
        for element in _children(group, "port"):
            port_id = read_unsigned(element.get("id", ""))
            if port_id is None:
                continue  # the schema check has reported it
            if port_id in seen:
                sink.add(
                    "IR107",
                    f"{side} port id {port_id} appears twice in {layer.describe()}; edges can "
                    "reach only the first",
                    doc.source.attribute(element, "id"),
                    layer.ref,
                )
            seen.add(port_id)
            precision = _read_port_precision(doc, layer, element, side, sink)
            ports.append(Port(port_id, element, _read_dims(doc, layer, element, sink), precision))
    return ports


def _read_port_precision(
    doc: Document, layer: Layer, element: etree._Element, side: str, sink: Collector
) -> str | None:
    text = element.get("precision")
    if text is None:
        if side == "output":
            sink.add(
                "IR109",
                f"output port {element.get('id')} has no precision; OpenVINO requires one",
                doc.source.element(element),
                layer.ref,
            )
        return None
    reading = read_precision(text)
    # The runtime parses output precisions only; a bad one on an input port is ignored.
    if reading.finding is not None and side == "output":
        sink.add(
            "IR110",
            f"output port {element.get('id')} precision: {reading.finding.message}",
            doc.source.attribute(element, "precision"),
            layer.ref,
        )
    return reading.value


_DIM_CODES = {"rejected": "IR111", "reinterpreted": "IR112", "noncanonical": "IR113"}


def _read_dims(
    doc: Document, layer: Layer, port: etree._Element, sink: Collector
) -> tuple[int, ...] | None:
    values: list[int] = []
    readable = True
    for index, dim in enumerate(_children(port, "dim")):
        reading = read_dim(dim.text or "")
        if reading.finding is not None:
            sink.add(
                _DIM_CODES[reading.finding.kind],
                f"port {port.get('id')} dim {index}: {reading.finding.message}",
                doc.source.element_text(dim),
                layer.ref,
            )
        if reading.value is None:
            readable = False
        else:
            values.append(reading.value)
    return tuple(values) if readable else None


_EDGE_ATTRIBUTES = ("from-layer", "from-port", "to-layer", "to-port")


def _read_edges(
    doc: Document, layers: dict[int, Layer], sink: Collector
) -> tuple[dict[tuple[int, int], tuple[int, int]], set[int | None]]:
    """Producers by (layer, input index), and the to-layers of edges that could not be
    resolved (None when even that is unreadable)."""
    producers: dict[tuple[int, int], tuple[int, int]] = {}
    incoming: dict[tuple[int, int], int] = {}
    broken: set[int | None] = set()
    for container in _children(doc.root, "edges")[:1]:
        for edge in _children(container, "edge"):
            numbers = [read_unsigned(edge.get(name, "")) for name in _EDGE_ATTRIBUTES]
            if None in numbers:
                broken.add(numbers[2])  # the schema check has reported it
                continue
            from_layer, from_port, to_layer, to_port = (n for n in numbers if n is not None)
            source = _edge_end(doc, edge, layers, from_layer, from_port, "from", sink)
            target = _edge_end(doc, edge, layers, to_layer, to_port, "to", sink)
            if source is None or target is None:
                broken.add(to_layer)
                continue
            incoming[target] = incoming.get(target, 0) + 1
            if incoming[target] == 1:
                producers[target] = source
            else:
                layer = layers[target[0]]
                sink.add(
                    "IR503",
                    f"input port {to_port} of {layer.describe()} has more than one incoming "
                    "edge; an input takes exactly one",
                    doc.source.element(edge),
                    layer.ref,
                )
    return producers, broken


def _edge_end(
    doc: Document,
    edge: etree._Element,
    layers: dict[int, Layer],
    layer_id: int,
    port_id: int,
    side: str,
    sink: Collector,
) -> tuple[int, int] | None:
    layer = layers.get(layer_id)
    if layer is None:
        sink.add(
            "IR501",
            f"edge {side}-layer={layer_id}: there is no layer with id {layer_id}",
            doc.source.attribute(edge, f"{side}-layer"),
        )
        return None
    if side == "from":
        index, wrong = layer.output_index(port_id), layer.input_index(port_id)
        kind, other = "output", "input"
    else:
        index, wrong = layer.input_index(port_id), layer.output_index(port_id)
        kind, other = "input", "output"
    if index is None:
        hint = (
            (
                f"; port {port_id} is an {other} port, and edges run from an output port to "
                "an input port"
            )
            if wrong is not None
            else ""
        )
        sink.add(
            "IR502",
            f"edge {side}-port={port_id}: {layer.describe()} has no {kind} port {port_id}{hint}",
            doc.source.attribute(edge, f"{side}-port"),
            layer.ref,
        )
        return None
    return layer_id, index


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
                    "IR503",
                    f"input port {port.id} of {layer.describe()} has no incoming edge",
                    doc.source.element(port.element),
                    layer.ref,
                )


def _topological_order(
    doc: Document, layers: dict[int, Layer], connections: list[Connection], sink: Collector
) -> list[int]:
    """Kahn's algorithm in XML order (iterative: no recursion limit on deep chains)."""
    indegree = dict.fromkeys(layers, 0)
    successors: dict[int, list[int]] = {layer_id: [] for layer_id in layers}
    for connection in connections:
        indegree[connection.target_layer] += 1
        successors[connection.source_layer].append(connection.target_layer)
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
        _report_cycle(doc, layers, connections, indegree, sink)
    return order


def _report_cycle(
    doc: Document,
    layers: dict[int, Layer],
    connections: list[Connection],
    indegree: dict[int, int],
    sink: Collector,
) -> None:
    """Every layer left with inputs lies on or after a cycle; walking back finds one."""
    stuck = {layer_id for layer_id, count in indegree.items() if count > 0}
    predecessor = {c.target_layer: c.source_layer for c in connections if c.source_layer in stuck}
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
        "IR504", f"the edges form a cycle: {chain}", doc.source.element(first.element), first.ref
    )


def _reachable(
    doc: Document,
    layers: dict[int, Layer],
    producers: dict[tuple[int, int], tuple[int, int]],
    sink: Collector,
    warn: bool,
) -> frozenset[int]:
    """Layers the runtime builds: those some sink depends on, plus every Parameter."""
    inputs_of: dict[int, list[int]] = {}
    for (target, _), (source, _) in producers.items():
        inputs_of.setdefault(target, []).append(source)
    sinks = [i for i, layer in layers.items() if layer.type.lower() in _SINK_TYPES]
    if layers and not sinks:
        sink.add(
            "IR507",
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
    seen.update(i for i, layer in layers.items() if layer.type.lower() == "parameter")
    if sinks and warn:
        for layer in layers.values():
            if layer.id not in seen:
                sink.add(
                    "IR505",
                    f"{layer.describe()} feeds no Result; OpenVINO silently drops it",
                    doc.source.element(layer.element),
                    layer.ref,
                )
    return frozenset(seen)
