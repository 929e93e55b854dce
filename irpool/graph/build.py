"""Stage 2: a parsed document -> the graph model, reporting every structural problem found.
Reading (source_text.py while lxml parses, else layers.py, bodies.py, edges.py, with
beside.py's second thread), order and reach
(topology.py) and the graph's rules (checks.py) meet here."""

from __future__ import annotations

from functools import cache

from lxml import etree

from irpool.diagnostics import Collector
from irpool.graph import graph_rules
from irpool.graph.beside import Beside
from irpool.graph.edges import connect, read_edges
from irpool.graph.graph import Graph
from irpool.graph.layers import read_layers
from irpool.graph.source_text import SourceReading
from irpool.graph.topology import find_cycle, reach, topological_order
from irpool.parse.schema import StructureCheck
from irpool.parse.values import read_unsigned
from irpool.parse.xml_reader import Document
from irpool.rules import (
    DUPLICATE_LAYER_ID,
    INVALID_DIM,
    INVALID_PRECISION,
    IR_STRUCTURE,
    MISSING_PRECISION,
    NO_LAYERS,
    NO_RESULT,
)

# What OpenVINO's IR reader checks in every layer, even one it then drops for feeding no
# sink: the layer's id and version, its ports' precisions and dims. Everything else it
# checks only while creating an op, and it creates none for a dropped layer.
_READ_IN_EVERY_LAYER = frozenset(
    {IR_STRUCTURE, DUPLICATE_LAYER_ID, MISSING_PRECISION, INVALID_PRECISION, INVALID_DIM}
)
# IR507 on a layer is about its being dropped: it stays an error there.
_KEPT_IN_DROPPED_LAYERS = _READ_IN_EVERY_LAYER | {NO_RESULT}
_DROPPED = " (the layer feeds no Result, so OpenVINO builds and compiles nothing from it)"


def build_graph(doc: Document, sink: Collector, early: SourceReading | None = None) -> Graph:
    """The graph of `doc`; `early`: its layers and edges read from the source text, used
    where the tree confirms them."""
    container = _first(doc.root, "layers")
    edges_container = _first(doc.root, "edges")
    if early is not None and not early.fits(container):
        early = None
    # Layer ids recur in the edges, port numbers everywhere.
    number = cache(read_unsigned)
    edges_read = early is not None and early.edges_fit(edges_container)
    beside = None
    if early is None or not early.proves_skeleton(doc.root, edges_read or edges_container is None):
        beside = Beside(container, StructureCheck(doc), serialize=early is None)
    if early is not None and edges_read:
        assert edges_container is not None
        edges = early.read_edges(edges_container, number)
    else:
        edges = read_edges(edges_container, number)  # while <layers> serializes
    if early is not None and container is not None:
        read = early.read_layers(doc, container, number, sink)
    else:
        read = read_layers(doc, container, beside.layers_text() if beside else None, number, sink)
    graph_rules.report_layer_reading(doc, read, sink)
    layers = read.layers
    wiring = connect(layers, edges)
    graph_rules.report_wiring(doc, layers, edges, wiring, sink)
    order = topological_order(layers, wiring.producers)
    if len(order) < len(layers):
        graph_rules.report_cycle(doc, layers, find_cycle(layers, wiring.producers, order), sink)
    # An edge naming a missing port may still be what keeps its from-layer; with an
    # unreadable number the real dataflow is unknown, so "unreachable" would be a guess.
    maybe = [(to_layer, from_layer) for _, from_layer, _, to_layer, _ in wiring.loose]
    sinks, reachable = reach(layers, wiring.producers, maybe)
    known = not wiring.unreadable
    dropped = graph_rules.report_reach(doc, layers, sinks, reachable, sink, known=known)
    if dropped:
        sink.drop_layers(dropped, _KEPT_IN_DROPPED_LAYERS.__contains__, _DROPPED)
    graph_rules.report_loose_edges(doc, layers, edges, wiring.loose, frozenset(dropped), sink)
    if beside is not None:
        beside.finish(sink)
    if not layers and not sink.has_errors:
        sink.add(NO_LAYERS, "the model has no layers", doc.source.element(doc.root))
    repeated_ids = frozenset(repeat.layer.id for repeat in read.repeats)
    return Graph(layers, wiring.producers, order, reachable, repeated_ids, read.names_written)


def _first(element: etree._Element, tag: str) -> etree._Element | None:
    """The first child with this tag: the runtime reads only the first of a repeated one."""
    return next(element.iterchildren(tag), None)
