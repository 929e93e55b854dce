"""The graph's own rules: repeated layer ids (IR106), unreadable ids (IR105), edges that
name no port (IR501, IR502), inputs fed by no edge or by several (IR503), cycles (IR504),
layers that feed no sink (IR505) and a model without one (IR507)."""

from __future__ import annotations

from typing import Literal

from lxml import etree

from irpool.diagnostics import Collector
from irpool.graph.edges import EDGE_ATTRIBUTES, Edges, LooseEdge, Wiring
from irpool.graph.layers import ReadLayers
from irpool.graph.model import Layer
from irpool.graph.topology import RESULT
from irpool.parse.values import trailing_blank
from irpool.parse.xml_reader import Document
from irpool.rules import (
    CYCLE,
    DUPLICATE_LAYER_ID,
    INPUT_EDGE_COUNT,
    IR_STRUCTURE,
    NO_RESULT,
    UNKNOWN_EDGE_LAYER,
    UNKNOWN_EDGE_PORT,
    UNREACHABLE_LAYER,
)

# What an edge leads into: a layer OpenVINO builds, one it drops, or no layer at all.
EdgeTarget = Literal["kept", "dropped", "nothing"]


def report_layer_reading(doc: Document, read: ReadLayers, sink: Collector) -> None:
    """Layer ids that do not read (the schema check has reported all but a trailing blank),
    and ids used twice."""
    for element in read.unreadable:
        ref = (element.get("id", ""), element.get("name", ""))
        _report_trailing_blanks(doc, element, ("id",), ref, sink)
    for repeat in read.repeats:
        layer = repeat.layer
        sink.add(
            DUPLICATE_LAYER_ID,
            f'layer id {layer.id} is already used by "{repeat.replaced}" on line '
            f"{repeat.first.sourceline}; OpenVINO keeps only this later layer",
            doc.source.attribute(layer.element, "id"),
            layer.ref,
        )


def report_wiring(
    doc: Document, layers: dict[int, Layer], edges: Edges, wiring: Wiring, sink: Collector
) -> None:
    """Edge numbers that do not read, inputs with more than one edge, inputs with none."""
    if edges.elements is not None:
        for index in wiring.unreadable:
            _report_trailing_blanks(doc, edges.elements[index], EDGE_ATTRIBUTES, None, sink)
        for index, to_layer, to_port in wiring.doubled:
            layer = layers[to_layer]
            sink.add(
                INPUT_EDGE_COUNT,
                f"input port {to_port} of {layer.describe()} has more than one incoming "
                "edge; an input takes exactly one",
                doc.source.element(edges.elements[index]),
                layer.ref,
            )
    broken = wiring.broken
    for layer in layers.values():
        if layer.id in broken or None in broken:
            continue  # its edge is there but broken, and already reported
        for index, port in enumerate(layer.inputs):
            if (layer.id, index) not in wiring.producers:
                sink.add(
                    INPUT_EDGE_COUNT,
                    f"input port {port.id} of {layer.describe()} has no incoming edge",
                    doc.source.element(layer.port_element(port)),
                    layer.ref,
                )


def report_cycle(
    doc: Document, layers: dict[int, Layer], cycle: list[int], sink: Collector
) -> None:
    first = layers[cycle[0]]
    chain = " -> ".join(f'{layers[i].id} "{layers[i].name}"' for i in [*cycle, cycle[0]])
    sink.add(
        CYCLE, f"the edges form a cycle: {chain}", doc.source.element(first.element), first.ref
    )


def report_reach(
    doc: Document,
    layers: dict[int, Layer],
    sinks: list[int],
    reachable: frozenset[int],
    sink: Collector,
    *,
    known: bool,
) -> list[str]:
    """A model without a sink, and Results OpenVINO does not read as Results (IR507); and,
    when the dataflow is `known`, the layers the runtime drops, whose ids are returned.
    Without a sink every layer but the Parameters is dropped: IR507 says so once, not IR505
    on each."""
    misspelt = [layer for layer in layers.values() if _looks_like_result(layer)]
    if layers and not sinks:
        spellings = sorted({f'"{layer.type}"' for layer in misspelt})
        also = f" (a type written {' or '.join(spellings)} is no Result)" if spellings else ""
        sink.add(
            NO_RESULT,
            "the model has no Result layer, so OpenVINO loads it with no outputs and drops "
            f"every layer but its Parameters{also}",
            doc.source.element(doc.root),
        )
    elif misspelt:
        written = len(sinks) + len(misspelt)
        for layer in misspelt:
            sink.add(
                NO_RESULT,
                f'type "{layer.type}" is no Result to OpenVINO, which takes only "{RESULT}" '
                f"written exactly: it drops the layer, and the model has {len(sinks)} output(s), "
                f"not {written}",
                doc.source.attribute(layer.element, "type"),
                layer.ref,
            )
    dropped: list[str] = []
    if known and len(reachable) < len(layers):
        for layer in layers.values():
            if layer.id not in reachable:
                if sinks and not _looks_like_result(layer):
                    sink.add(
                        UNREACHABLE_LAYER,
                        f"{layer.describe()} feeds no Result; OpenVINO silently drops it",
                        doc.source.element(layer.element),
                        layer.ref,
                    )
                dropped.append(layer.ref[0])
    return dropped


def _looks_like_result(layer: Layer) -> bool:
    return layer.type.lower() == RESULT.lower() and layer.type != RESULT


def report_loose_edges(
    doc: Document,
    layers: dict[int, Layer],
    edges: Edges,
    loose: list[LooseEdge],
    dropped: frozenset[str],
    sink: Collector,
) -> None:
    """Say why each end of a loose edge names no port; only a warning when the edge leads
    into a layer the runtime drops, or into no layer at all (OpenVINO skips that edge)."""
    for index, from_layer, from_port, to_layer, to_port in loose:
        assert edges.elements is not None
        edge = edges.elements[index]
        producer, consumer = layers.get(from_layer), layers.get(to_layer)
        # OpenVINO reads the edges into the layers it builds: one into no layer, it skips.
        into: EdgeTarget = (
            "nothing" if consumer is None else "dropped" if str(to_layer) in dropped else "kept"
        )
        if producer is None or producer.output_index(from_port) is None:
            _report_edge_end(doc, edge, producer, from_layer, from_port, "from", sink, into)
        if consumer is None or consumer.input_index(to_port) is None:
            _report_edge_end(doc, edge, consumer, to_layer, to_port, "to", sink, into)


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
    into: EdgeTarget,
) -> None:
    """Say why one end of an edge names no port, given what the edge leads `into`."""
    skipped = into == "nothing"
    if layer is None:
        sink.add(
            UNKNOWN_EDGE_LAYER,
            f"edge {side}-layer={layer_id}: there is no layer with id {layer_id}"
            + (", and the edge leads into no layer, so OpenVINO skips it" if skipped else ""),
            doc.source.attribute(edge, f"{side}-layer"),
            about_dropped=into == "dropped",
            skipped=skipped,
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
        about_dropped=into == "dropped",
        skipped=skipped,
    )
