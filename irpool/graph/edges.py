"""Reading the `<edge>` elements and wiring them to the layers' ports."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lxml import etree

from irpool.graph.graph import Children, Layer

EDGE_ATTRIBUTES = ("from-layer", "from-port", "to-layer", "to-port")
# Each attribute of every <edge> child, in document order: one C-level pass per attribute.
_EDGE_COLUMNS = [etree.XPath(f"edge/@{name}", smart_strings=False) for name in EDGE_ATTRIBUTES]
# Compiled, as layers._COUNT_LAYERS is: another thread may be walking the tree.
COUNT_EDGES = etree.XPath("count(edge)")


def _edge_columns(container: etree._Element, count: int) -> list[list[str]]:
    """The four attributes of each of the `count` edges as four aligned columns of text. An
    edge without one reads it as "", as `edge.get(name, "")` would; columns are only taken
    from XPath when each has one value per edge, which makes them aligned (an attribute
    cannot repeat)."""
    columns: list[list[str]] = [find(container) for find in _EDGE_COLUMNS]
    if all(len(column) == count for column in columns):
        return columns
    edges = list(container.iterchildren("edge"))
    return [[edge.get(name, "") for edge in edges] for name in EDGE_ATTRIBUTES]


@dataclass(frozen=True, slots=True)
class Edges:
    """The <edge> elements' numbers, columns aligned by edge (None: unreadable)."""

    elements: Children | None
    from_layers: list[int | None]
    from_ports: list[int | None]
    to_layers: list[int | None]
    to_ports: list[int | None]


def read_edges(container: etree._Element | None, number: Callable[[str], int | None]) -> Edges:
    """The edges of <edges> `container`."""
    if container is None:
        return Edges(None, [], [], [], [])
    return edges_from(container, _edge_columns(container, int(COUNT_EDGES(container))), number)


def edges_from(
    container: etree._Element, columns: list[list[str]], number: Callable[[str], int | None]
) -> Edges:
    """The edges of <edges> `container` from their four attribute columns of text."""
    return Edges(Children(container, "edge"), *[list(map(number, c)) for c in columns])


# An edge whose numbers read but whose ends name no port: its position, then from-layer,
# from-port, to-layer and to-port.
LooseEdge = tuple[int, int, int, int, int]


@dataclass(frozen=True, slots=True)
class Wiring:
    producers: dict[tuple[int, int], tuple[int, int]]  # (layer, input index) -> (layer, output)
    broken: set[int | None]  # to-layers of edges not resolved (None: unreadable)
    loose: list[LooseEdge]  # not reported yet: that depends on whether the runtime reads them
    unreadable: list[int]  # positions of the edges with a number that does not read
    # Positions of the edges into an input that an earlier edge already feeds, with the
    # to-layer and to-port of each.
    doubled: list[tuple[int, int, int]]


def connect(layers: dict[int, Layer], edges: Edges) -> Wiring:
    """Resolve each edge's ends to operand positions; the first edge into an input wins."""
    producers: dict[tuple[int, int], tuple[int, int]] = {}
    broken: set[int | None] = set()
    loose: list[LooseEdge] = []
    unreadable: list[int] = []
    doubled: list[tuple[int, int, int]] = []
    numbers = zip(edges.from_layers, edges.from_ports, edges.to_layers, edges.to_ports, strict=True)
    for index, (from_layer, from_port, to_layer, to_port) in enumerate(numbers):
        if from_layer is None or from_port is None or to_layer is None or to_port is None:
            unreadable.append(index)
            broken.add(to_layer)
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
            doubled.append((index, to_layer, to_port))
    return Wiring(producers, broken, loose, unreadable, doubled)
