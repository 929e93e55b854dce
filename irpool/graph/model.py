"""Stage 2: the graph model: layers, their ports, and the edges between them."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import NamedTuple

from lxml import etree


@dataclass(frozen=True, slots=True, eq=False)
class Port:
    """A port as the runtime reads it. Layers whose `<input>` (or `<output>`) is written
    identically share one tuple of these, so a port holds no element of its own: a layer
    finds the element again with `port_element`, which only diagnostics need."""

    id: int
    side: str  # "input" or "output"
    position: int  # among the <port> children of the layer's first <input>/<output>
    # Declared dims as the runtime reads them (-1: dynamic); None if a dim cannot be read.
    declared: tuple[int, ...] | None
    precision: str | None  # the element type the precision names, if it names one
    precision_text: str | None  # the attribute as written


LINEAR_PORTS = 8  # up to this many ports, a scan beats building an index


@dataclass(slots=True, eq=False)
class Layer:
    id: int
    name: str
    type: str
    version: str
    element: etree._Element
    # The first <data> element's attributes in document order; None without one.
    data_items: tuple[tuple[str, str], ...] | None
    inputs: tuple[Port, ...] = ()
    outputs: tuple[Port, ...] = ()
    # (is output, port id) -> position of the first such port; built on first use, once the
    # builder has set the ports, so resolving many edges into a wide layer stays linear.
    _positions: dict[tuple[bool, int], int] | None = field(default=None, repr=False)

    @property
    def data(self) -> etree._Element | None:
        """The <data> element the runtime reads (the first one)."""
        return next(self.element.iterchildren("data"), None)

    def port_element(self, port: Port) -> etree._Element:
        group = next(self.element.iterchildren(port.side))
        return next(itertools.islice(group.iterchildren("port"), port.position, None))

    @property
    def ref(self) -> tuple[str, str]:
        return str(self.id), self.name

    def describe(self) -> str:
        return f'layer {self.id} "{self.name}" ({self.type})'

    def input_index(self, port_id: int) -> int | None:
        """The operand index of an input port id: its position among the <input> ports."""
        return self._position(False, port_id)

    def output_index(self, port_id: int) -> int | None:
        return self._position(True, port_id)

    def _position(self, output: bool, port_id: int) -> int | None:
        ports = self.outputs if output else self.inputs
        if len(ports) <= LINEAR_PORTS:
            for index, port in enumerate(ports):
                if port.id == port_id:
                    return index
            return None
        if self._positions is None:
            positions: dict[tuple[bool, int], int] = {}
            for side, ports in ((False, self.inputs), (True, self.outputs)):
                for index, port in enumerate(ports):
                    positions.setdefault((side, port.id), index)
            self._positions = positions
        return self._positions.get((output, port_id))


class Connection(NamedTuple):
    """An edge resolved to operand positions: output `source` of one layer feeds input `target`.

    A named tuple: a model can have 100,000 of them, and tuples are built in C."""

    source_layer: int
    source_index: int
    target_layer: int
    target_index: int


@dataclass(slots=True, eq=False)
class Graph:
    layers: dict[int, Layer]  # in XML order
    connections: list[Connection]
    # (layer id, input index) -> (layer id, output index)
    producers: dict[tuple[int, int], tuple[int, int]]
    order: list[int]  # topological order of the layers outside cycles
    reachable: frozenset[int]
