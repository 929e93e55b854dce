"""The plain graph reader: a test oracle for the fast paths of irpool/graph/.

It reads every layer and edge through lxml, one element at a time, on one thread, sharing and
memoizing nothing: no serialization cut at each layer, no regular expression over start tags,
no walk from the nearer end, no body, port, tuple or number read once for many, no XPath
columns, no schema check beside, no layer read from the source text. `plain_reading` makes
`irpool.load` use it, so a test can require that the fast reader gives exactly what it gives.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from lxml import etree

from irpool.diagnostics import Collector
from irpool.graph import build, source_text
from irpool.graph.bodies import BodyReader
from irpool.graph.edges import EDGE_ATTRIBUTES, Edges
from irpool.graph.graph import Children
from irpool.graph.layers import ReadLayers, assemble_layers, names_written
from irpool.parse import xml_reader
from irpool.parse.schema import StructureCheck
from irpool.parse.values import read_unsigned
from irpool.parse.xml_reader import Document


def read_layers(
    doc: Document,
    container: etree._Element | None,
    text: str | None,
    number: Callable[[str], int | None],
    sink: Collector,
) -> ReadLayers:
    if container is None or text is None:
        return ReadLayers({}, [], [], ())
    elements = Children(container, "layer")
    return assemble_layers(
        doc,
        sink,
        elements,
        None,  # every head through lxml
        # A reader per layer: nothing read for one layer is shared with another.
        lambda position: BodyReader().read_element(elements[position]),
        read_unsigned,
        names_written(text),
    )


def read_edges(container: etree._Element | None, number: Callable[[str], int | None]) -> Edges:
    if container is None:
        return Edges(None, [], [], [], [])
    edges = list(container.iterchildren("edge"))
    columns = [[read_unsigned(edge.get(name, "")) for edge in edges] for name in EDGE_ATTRIBUTES]
    return Edges(Children(container, "edge"), *columns)


def plain_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on in this test, `irpool.load` reads graphs with the plain reader."""
    monkeypatch.setattr(source_text, "read_source", lambda text: None)
    monkeypatch.setattr(build, "read_layers", read_layers)
    monkeypatch.setattr(build, "read_edges", read_edges)
    monkeypatch.setattr(StructureCheck, "runs_beside", property(lambda self: False))


def source_text_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on in this test, `irpool.load` reads every file's layers and edges from its
    text beside the parse, as it reads a large file's whose bodies repeat."""
    monkeypatch.setattr(xml_reader, "READ_SOURCE_BESIDE_BYTES", 0)
    monkeypatch.setattr(source_text, "MOST_DISTINCT_SHARE", 1.0)
