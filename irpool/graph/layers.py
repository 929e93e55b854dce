"""Reading the `<layer>` elements: their heads (id, name, type, version) and bodies, from
one serialization of `<layers>` cut at each layer when that is exact (source_text.py cuts
the source text the same way)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from lxml import etree

from irpool.diagnostics import Collector
from irpool.graph.bodies import Body, BodyReader, place_findings
from irpool.graph.graph import Children, Layer
from irpool.parse.xml_reader import Document


@dataclass(frozen=True, slots=True)
class Repeat:
    """A layer whose id an earlier layer has: OpenVINO keeps only the later one."""

    layer: Layer
    replaced: str  # the name of the layer it replaces
    first: etree._Element  # the first layer with that id


@dataclass(frozen=True, slots=True)
class ReadLayers:
    layers: dict[int, Layer]  # by id, in XML order; a repeated id keeps its last layer
    repeats: list[Repeat]
    unreadable: list[etree._Element]  # layers whose id does not read (those are skipped)
    names_written: tuple[str, ...]  # as Graph's


# Compiled, not `element.xpath`: that one makes the element a document's root while it runs,
# pointing its children's parents elsewhere, and another thread may be walking the tree.
_COUNT_LAYERS = etree.XPath("count(layer)")

# id, name, type and version as written.
Head = tuple[str, str, str, str]
# A names attribute as lxml serializes it (its value escaped: no quote inside).
_NAMES_WRITTEN = re.compile(r' names="([^"]*)"')


def read_layers(
    doc: Document,
    container: etree._Element | None,
    text: str | None,
    number: Callable[[str], int | None],
    sink: Collector,
) -> ReadLayers:
    """The layers, from `text`, the serialization of <layers> `container`."""
    if container is None or text is None:
        return ReadLayers({}, [], [], ())
    bodies = BodyReader()
    cut = cut_layers(text, container)
    # The cut holds only when every child of <layers> is a <layer>.
    elements = Children(container, "layer", uniform=cut is not None)
    if cut is None:
        texts = [body_text(element) for element in elements.all()]
        heads = None
    else:
        texts, heads = cut
    return assemble_layers(
        doc,
        sink,
        elements,
        heads,
        lambda position: bodies.read(texts[position], elements, position),
        number,
        names_written(text),
    )


def assemble_layers(
    doc: Document,
    sink: Collector,
    elements: Children,
    heads: list[Head] | None,
    body_at: Callable[[int], Body],
    number: Callable[[str], int | None],
    names: tuple[str, ...],
) -> ReadLayers:
    """The layers from each one's head (read through lxml when `heads` is None) and body
    (`body_at(position)`); a body's findings are reported on each layer that has it."""
    if heads is None:
        heads = read_heads(elements)
    layers: dict[int, Layer] = {}
    first_seen: dict[int, int] = {}  # layer id -> position of the first layer with it
    repeats: list[Repeat] = []
    unreadable: list[etree._Element] = []
    for position, (id_text, name, type_, version) in enumerate(heads):
        layer_id = number(id_text)
        if layer_id is None:
            unreadable.append(elements[position])
            continue
        body = body_at(position)
        layer = Layer(
            layer_id,
            name,
            type_,
            version,
            elements,
            position,
            body.data_items,
            body.inputs,
            body.outputs,
            body.positions,
        )
        if body.findings:
            place_findings(doc, sink, layer, body.findings)
        if layer_id in layers:
            repeats.append(Repeat(layer, layers[layer_id].name, elements[first_seen[layer_id]]))
        else:
            first_seen[layer_id] = position
        layers[layer_id] = layer
    return ReadLayers(layers, repeats, unreadable, names)


def names_written(text: str) -> tuple[str, ...]:
    """Every `names` attribute in the serialization of <layers>, as written (see Graph)."""
    return tuple(_NAMES_WRITTEN.findall(text))


def read_heads(elements: Children) -> list[Head]:
    """Each layer's id, name, type and version, read through lxml."""
    return [
        (e.get("id", ""), e.get("name", ""), e.get("type", ""), e.get("version", ""))
        for e in elements.all()
    ]


def body_text(element: etree._Element) -> str:
    """A layer's serialization after its start tag: its children and its end tag."""
    text: str = etree.tostring(element, with_tail=False, encoding="unicode")
    # The start tag (id, name, type, version) ends at the first ">": serialized attribute
    # values have theirs escaped.
    return text[text.find(">") + 1 :]


# A <layer> start tag (its attributes captured) and those attributes as OpenVINO's serializer
# writes them, with nothing to unescape and no blank but the space in a value (the parser
# turns a tab or line feed there into a space; lxml writes them as escapes). Both serve the
# serialization of <layers> and the source text (source_text.py).
LAYER_START = re.compile(r"<layer ([^>]*)>")
_HEAD = re.compile(
    r'^id="([^"&\t\n]*)" name="([^"&\t\n]*)" type="([^"&\t\n]*)" '
    r'version="([^"&\t\n]*)"(?: .*)?$',
    re.M,
)


def cut_heads(starts: list[str]) -> list[Head] | None:
    """Each layer's head from its start tag's attributes, when every one is written as the
    serializer writes it (else None: read them through lxml)."""
    heads: list[Head] = _HEAD.findall("\n".join(starts))
    return heads if len(heads) == len(starts) else None


def cut_layers(text: str, container: etree._Element) -> tuple[list[str], list[Head] | None] | None:
    """From the serialization of <layers>: each layer's `body_text`, and each layer's head
    when every start tag is written id, name, type, version (the serializer's order) with
    nothing to unescape. None when the cut could go wrong.

    Cutting at each "<layer " is exact when every child is a <layer> with attributes, none
    contains another, and no comment or processing instruction can hold that text. The
    layers must not declare namespaces either, since a body is read without its start tag.
    """
    # A lone "!" or "?" is found at memchr speed; "<!--" and "<?" only where one occurs.
    if ("!" in text and "<!--" in text) or ("?" in text and "<?" in text) or "xmlns" in text:
        return None
    pieces = LAYER_START.split(text)
    count = len(pieces) // 2
    if not count == len(container) == _COUNT_LAYERS(container):
        return None
    pieces[-1] = pieces[-1].removesuffix("</layers>")
    return pieces[2::2], cut_heads(pieces[1::2])
