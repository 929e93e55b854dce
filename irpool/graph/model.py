"""Stage 2: the graph model: layers, their ports, and the edges between them."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from lxml import etree


@dataclass(slots=True, eq=False)
class Port:
    id: int
    element: etree._Element
    # Declared dims as the runtime reads them (-1: dynamic); None if a dim cannot be read.
    declared: tuple[int, ...] | None
    precision: str | None  # the element type the precision names, if it names one


@dataclass(slots=True, eq=False)
class Layer:
    id: int
    name: str
    type: str
    version: str
    element: etree._Element
    data: etree._Element | None
    inputs: list[Port] = field(default_factory=list)
    outputs: list[Port] = field(default_factory=list)

    @property
    def ref(self) -> tuple[str, str]:
        return str(self.id), self.name

    def describe(self) -> str:
        return f'layer {self.id} "{self.name}" ({self.type})'

    def input_index(self, port_id: int) -> int | None:
        """The operand index of an input port id: its position among the <input> ports."""
        for index, port in enumerate(self.inputs):
            if port.id == port_id:
                return index
        return None

    def output_index(self, port_id: int) -> int | None:
        for index, port in enumerate(self.outputs):
            if port.id == port_id:
                return index
        return None


@dataclass(frozen=True, slots=True)
class Connection:
    """An edge resolved to operand positions: output `source` of one layer feeds input `target`."""

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

    @cached_property
    def consumers(self) -> dict[tuple[int, int], list[tuple[int, int]]]:
        """(layer id, output index) -> every (layer id, input index) it feeds."""
        result: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for target, source in self.producers.items():
            result.setdefault(source, []).append(target)
        return result
