"""Where in its layer a finding of the per-layer checker points: one type per kind of place.

Layers written alike share their findings (see check.layer_checker), so a locator names a
place relative to a layer, and each layer resolves it to its own source span and, when the
finding has a certain fix, to its own edit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from lxml import etree

from irpool.diagnostics import Edit, Span, attribute_edit, text_edit
from irpool.graph.graph import Layer, Port
from irpool.parse.source_map import SourceMap
from irpool.rules import NON_CANONICAL_DIM, REINTERPRETED_DIM

# A dim read differently by the runtime (IR112) or written unusually (IR113): writing the
# inferred value plainly settles those too.
DIM_SPELLING_CODES = frozenset({REINTERPRETED_DIM, NON_CANONICAL_DIM})


class Locator:
    """A place in a layer. `about_file`: the finding is a problem of the model's files (its
    weights cannot be read), not of the layer, so it is reported once per file, at the first
    layer it stops (once among the layers OpenVINO keeps, once among those it drops)."""

    __slots__ = ()
    about_file: ClassVar[bool] = False

    def span(self, source: SourceMap, layer: Layer) -> Span:
        raise NotImplementedError

    def edit(self, source: SourceMap, layer: Layer) -> Edit | None:
        """The certain fix at this layer's own place; None when there is none."""
        return None


@dataclass(frozen=True, slots=True)
class AtLayer(Locator):
    """The `<layer>` element, or one of its attributes."""

    attribute: str | None = None

    def span(self, source: SourceMap, layer: Layer) -> Span:
        if self.attribute:
            return source.attribute(layer.element, self.attribute)
        return source.element(layer.element)


@dataclass(frozen=True, slots=True)
class AtData(Locator):
    """An attribute of `<data>`, else `<data>` itself (the layer, when it has no `<data>`).
    `fix`: the attribute's text that certainly says what the runtime reads from it."""

    attribute: str | None = None
    fix: str | None = None

    def span(self, source: SourceMap, layer: Layer) -> Span:
        if layer.data is None:
            return source.element(layer.element)
        if self.attribute:
            return source.attribute(layer.data, self.attribute)
        return source.element(layer.data)

    def edit(self, source: SourceMap, layer: Layer) -> Edit | None:
        return _data_edit(source, layer, self.attribute, self.fix)


@dataclass(frozen=True, slots=True)
class AtDataName(Locator):
    """The name of an attribute of `<data>` (a misspelt one); the layer when it has no `<data>`."""

    attribute: str

    def span(self, source: SourceMap, layer: Layer) -> Span:
        if layer.data is None:
            return source.element(layer.element)
        return source.attribute_name(layer.data, self.attribute)


@dataclass(frozen=True, slots=True)
class AtOp(Locator):
    """What an op's checks report: the attribute of `<data>` it names, else the layer.
    `fix`: the value that certainly settles the finding (see ops.base.LayerContext)."""

    attribute: str | None = None
    fix: str | None = None

    def span(self, source: SourceMap, layer: Layer) -> Span:
        if layer.data is not None and self.attribute:
            return source.attribute(layer.data, self.attribute)
        return source.element(layer.element)

    def edit(self, source: SourceMap, layer: Layer) -> Edit | None:
        return _data_edit(source, layer, self.attribute, self.fix)


def _data_edit(
    source: SourceMap, layer: Layer, attribute: str | None, fix: str | None
) -> Edit | None:
    """Writing `fix` into the `<data>` attribute, when there is a fix and such an attribute."""
    if fix is None or attribute is None or layer.data is None:
        return None
    return attribute_edit(source, layer.data, attribute, fix)


@dataclass(frozen=True, slots=True)
class AtUnusableFile(AtOp):
    """An op's finding that the model's files cannot give it what it reads (the weights)."""

    about_file: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class AtPort(Locator):
    """A `<port>`, or one of its attributes."""

    port: Port
    attribute: str | None = None

    def span(self, source: SourceMap, layer: Layer) -> Span:
        element = layer.port_element(self.port)
        if self.attribute:
            return source.attribute(element, self.attribute)
        return source.element(element)


@dataclass(frozen=True, slots=True)
class AtDim(Locator):
    """The text of a port's `<dim>`; `fix`: the value the runtime infers, when certain."""

    port: Port
    index: int
    fix: str | None = None

    def span(self, source: SourceMap, layer: Layer) -> Span:
        return source.element_text(dims(layer, self.port)[self.index])

    def edit(self, source: SourceMap, layer: Layer) -> Edit | None:
        if self.fix is None:
            return None
        return text_edit(source, dims(layer, self.port)[self.index], self.fix, DIM_SPELLING_CODES)


def dims(layer: Layer, port: Port) -> list[etree._Element]:
    return [child for child in layer.port_element(port) if child.tag == "dim"]
