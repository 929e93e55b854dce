"""What is inside a `<layer>`: its first `<data>`'s attributes and its ports, each distinct
text read once and shared by every layer that writes it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

from irpool.diagnostics import Collector, text_edit
from irpool.graph.graph import Children, Layer, Port
from irpool.parse.ports import PortReading, PortText, Where, read_port
from irpool.parse.values import read_dim
from irpool.parse.xml_reader import Document
from irpool.rules import DUPLICATE_PORT_ID, Code

# A finding in a layer's ports: rule code, message, the side and position of the port among
# the <port>s of the layer's first <input> or <output>, and where in the port.
PortFinding = tuple[Code, str, str, int, Where]
# A port's id, position, dims, precision and precision text, as Port holds them.
_PortValues = tuple[int, int, tuple[int, ...] | None, str | None, str | None]


@dataclass(frozen=True, slots=True)
class Body:
    """What a layer's children say: its first <data>'s attributes and its ports."""

    data_items: tuple[tuple[str, str], ...] | None
    inputs: tuple[Port, ...]
    outputs: tuple[Port, ...]
    positions: dict[tuple[bool, int], int]  # as Layer.positions
    findings: tuple[PortFinding, ...]


# The names attribute of a serialized <port> (values are escaped: no quote inside).
PORT_NAMES = re.compile(r'(<port [^>]*?) names="[^"]*"')


class BodyReader:
    """Reads what is inside `<layer>` elements. Real models repeat it (the same `<data>`,
    ports, dims and precisions, layer after layer), so each distinct serialization is read
    once and shared by every layer that writes it; its findings are placed on each of them.
    A port's tensor names are not part of what is read, and models name every tensor, so a
    body not seen before is looked up again without them. Ports and <data> attributes that
    read alike are one shared tuple, which makes the checks' memo key cheap."""

    def __init__(self) -> None:
        self.bodies: dict[str, Body] = {}
        self.unnamed: dict[str, Body] = {}  # by the text without port names
        self.ports: dict[PortText, PortReading] = {}
        self.port_tuples: dict[tuple[str, tuple[_PortValues, ...]], tuple[Port, ...]] = {}
        self.data: dict[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]] = {}

    def read(self, text: str, elements: Children, position: int) -> Body:
        """The body of the layer at `position`, given its text after the start tag."""
        body = self.bodies.get(text)
        if body is None:
            unnamed = self.key(text)
            body = self.unnamed.get(unnamed)
            if body is None:
                body = self.unnamed[unnamed] = self.read_element(elements[position])
            self.bodies[text] = body
        return body

    @staticmethod
    def key(text: str) -> str:
        """A body's text without its port names: bodies alike but for those read alike."""
        # Splitting keeps each captured port start and drops its names; joining is
        # sub(r"\1") without a template expansion per call (twice as fast).
        return "".join(PORT_NAMES.split(text))

    def read_element(self, element: etree._Element) -> Body:
        """The body of one `<layer>`, read from its element."""
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
        return Body(data_items, inputs, outputs, positions, tuple(findings))

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
            reading = self._read_port(text)
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
            ports = self.port_tuples[key] = _ports(side, readings)
        return ports

    def _read_port(self, text: PortText) -> PortReading:
        reading = self.ports.get(text)
        if reading is None:
            reading = self.ports[text] = read_port(*text)
        return reading


def place_findings(
    doc: Document, sink: Collector, layer: Layer, findings: tuple[PortFinding, ...]
) -> None:
    """Report a body's findings at their positions in this layer."""
    source = doc.source
    for code, message, side, position, where in findings:
        group = next(layer.element.iterchildren(side))
        element = [child for child in group if child.tag == "port"][position]
        edit = None
        if isinstance(where, int):
            dims = [child for child in element if child.tag == "dim"]
            span = source.element_text(dims[where])
            value = read_dim(dims[where].text or "").value  # a dim read, but not plainly
            edit = None if value is None else text_edit(source, dims[where], str(value))
        elif where is not None:
            span = source.attribute(element, where)
        else:
            span = source.element(element)
        sink.add(code, message, span, layer.ref, edit=edit)


def _ports(side: str, readings: list[_PortValues]) -> tuple[Port, ...]:
    return tuple(
        Port(id, side, position, declared, precision, text)
        for id, position, declared, precision, text in readings
    )
