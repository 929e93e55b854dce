"""Stage 2: the graph model: layers, their ports, and the edges between them."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field

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


# Lookups walked in C before the children are listed once: a walk costs the distance from
# the nearer end, so a few (a Result, a finding or two) are cheaper than a list, and many
# (a fix touching every layer) must not each walk.
WALKS = 8


class Children:
    """The children of one tag under an element, listed on first use: lxml makes a Python
    object per element, and checking a clean model never needs one. When every child has
    the tag (`uniform`), the first lookups walk in C from the nearer end instead."""

    def __init__(self, parent: etree._Element, tag: str, uniform: bool = False) -> None:
        self._parent = parent
        self._tag = tag
        self._uniform = uniform
        self._list: list[etree._Element] | None = None
        self._count: int | None = None  # len() walks the children too
        self._walks = 0

    def __getitem__(self, position: int) -> etree._Element:
        if self._list is None and self._uniform and self._walks < WALKS:
            self._walks += 1
            if self._count is None:
                self._count = len(self._parent)
            count = self._count
            return self._parent[position if position < count // 2 else position - count]
        return self.all()[position]

    def all(self) -> list[etree._Element]:
        if self._list is None:
            self._list = list(self._parent.iterchildren(self._tag))
        return self._list


@dataclass(slots=True, eq=False)
class Layer:
    id: int
    name: str
    type: str
    version: str
    siblings: Children = field(repr=False)  # the document's <layer> elements
    position: int  # this layer's among them
    # The first <data> element's attributes in document order; None without one.
    data_items: tuple[tuple[str, str], ...] | None
    inputs: tuple[Port, ...]
    outputs: tuple[Port, ...]
    # (is output, port id) -> operand position of the first such port; shared, like the
    # ports, by the layers written alike.
    positions: Mapping[tuple[bool, int], int] = field(repr=False)

    @property
    def element(self) -> etree._Element:
        return self.siblings[self.position]

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
        return self.positions.get((False, port_id))

    def output_index(self, port_id: int) -> int | None:
        return self.positions.get((True, port_id))


@dataclass(slots=True, eq=False)
class Graph:
    layers: dict[int, Layer]  # in XML order
    # (layer id, input index) -> (layer id, output index)
    producers: dict[tuple[int, int], tuple[int, int]]
    order: list[int]  # topological order of the layers outside cycles
    reachable: frozenset[int]
    repeated_ids: frozenset[int]  # ids of more than one layer (the runtime keeps the last)
    # Every `names` value in <layers> as serialized (escaped), possibly more (a comment can
    # hold one): what may repeat a tensor name.
    names_written: tuple[str, ...]
