"""Reading the `<layer>` elements: their heads (id, name, type, version) and bodies, from
the source text while lxml parses it, or from one serialization of `<layers>`, each cut at
each layer when that is exact."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from lxml import etree

from irpool.diagnostics import Collector
from irpool.graph.bodies import Body, BodyReader, PortFinding, place_findings
from irpool.graph.graph import Children, Layer
from irpool.parse.xml_reader import Document, hardened_parser


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
COUNT_LAYERS = etree.XPath("count(layer)")

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
        elements,
        read_heads(elements) if heads is None else heads,
        lambda position: bodies.read(texts[position], lambda: elements[position]),
        number,
        partial(place_findings, doc, sink),
        names_written(text),
    )


@dataclass(frozen=True, slots=True)
class SourceLayers:
    """<layers> read from the source text (`read_source_layers`) while lxml parses it: what
    `read_layers` would read, once the parsed tree confirms the cut (`fits`)."""

    heads: list[Head] | None  # None: a start tag not written as the serializer writes it
    bodies: list[Body]
    names_written: tuple[str, ...]

    def fits(self, container: etree._Element | None) -> bool:
        """Whether the parsed <layers> holds one <layer> per piece cut, and nothing else."""
        count = len(self.bodies)
        return container is not None and count == len(container) == COUNT_LAYERS(container)

    def read(
        self,
        doc: Document,
        container: etree._Element,
        number: Callable[[str], int | None],
        sink: Collector,
    ) -> ReadLayers:
        """The layers of `container`, which `fits`."""
        elements = Children(container, "layer", uniform=True)
        return assemble_layers(
            elements,
            read_heads(elements) if self.heads is None else self.heads,
            self.bodies.__getitem__,
            number,
            partial(place_findings, doc, sink),
            self.names_written,
        )


class _NotAFragment(Exception):
    """A layer's text that does not parse alone: the source cut is not used."""


# A start tag's head as `_HEAD`, with no blank in a value but the space (the parser turns a
# tab or line feed in a value into a space).
_SOURCE_HEAD = re.compile(
    r'^id="([^"&\t\n]*)" name="([^"&\t\n]*)" type="([^"&\t\n]*)" '
    r'version="([^"&\t\n]*)"(?: .*)?$',
    re.M,
)
# Any names attribute, however quoted or spaced; those of other attributes (output_names)
# are told apart by what precedes them.
_SOURCE_NAMES = re.compile(r"""names\s*=\s*(?:"([^"]*)"|'([^']*)')""")


def read_source_layers(text: str) -> SourceLayers | None:
    """The layers of the source text's <layers>, read as `read_layers` reads them but with
    each new body parsed alone, so that it runs while lxml parses the whole file. None when
    the text cannot be cut so (`_plain`), or a layer's text is not a well-formed element of
    its own."""
    start = text.find("<layers")
    end = text.find("</layers", start)
    if start < 0 or end < 0 or not _plain(text, start, end):
        return None
    pieces = _LAYER_START.split(text)  # the whole text: a slice would copy it
    count = len(pieces) // 2
    last = pieces[-1].find("</layers")
    if count == 0 or last < 0 or start > len(pieces[0]):
        return None
    pieces[-1] = pieces[-1][:last]
    heads: list[Head] = _SOURCE_HEAD.findall("\n".join(pieces[1::2]))
    parser = hardened_parser()
    reader = BodyReader()

    def fragment(body: str) -> etree._Element:
        try:
            return etree.fromstring("<layer>" + body, parser)
        except etree.XMLSyntaxError:
            raise _NotAFragment from None

    try:
        bodies = [reader.read(body, partial(fragment, body)) for body in pieces[2::2]]
    except _NotAFragment:
        return None
    names = _source_names(text, start, end)
    return SourceLayers(heads if len(heads) == count else None, bodies, names)


def _plain(text: str, start: int, end: int) -> bool:
    """Whether each "<layer " between `start` and `end` opens a <layer> whose body the
    parser reads alone as it reads it in the whole tree: one <layers> element (from `start`
    to its end tag at `end`) holding no comment, CDATA section or processing instruction,
    which could hold such text, and no carriage return, which the parser turns into a line
    feed; no namespace, read from outside a layer's text, and no xml:space, which changes
    which blanks the parser drops. A single character is found at memchr speed: the longer
    searches run only where it occurs."""
    after = text[start + 7 : start + 8]
    if not (after == ">" or after.isspace()) or text.find("<layers", start + 1) >= 0:
        return False  # another element's tag (<layers2>), or a second <layers>
    declaration = text.find("?>") + 2 if text.startswith("<?") else 0
    return not (
        _holds(text, "<!", start, end)
        or _holds(text, "<?", start, end)
        or text.find("\r", start, end) >= 0
        or (text.find("xml", declaration) >= 0 and ("xmlns" in text or "xml:space" in text))
    )


def _holds(text: str, mark: str, start: int, end: int) -> bool:
    """Whether text[start:end] holds the two-character `mark`, looking for its rare second
    character first."""
    return text.find(mark[1], start, end) >= 0 and text.find(mark, start, end) >= 0


def _source_names(text: str, start: int, end: int) -> tuple[str, ...]:
    """Every names attribute's value in text[start:end] as `names_written` gives it from a
    serialization: tabs and line feeds in a value become spaces, escapes stay."""
    values = []
    for match in _SOURCE_NAMES.finditer(text, start, end):
        before = match.start() - 1
        if text[before] in " \t\n":
            value = match.group(1) if match.group(1) is not None else match.group(2)
            values.append(value.replace("\t", " ").replace("\n", " "))
    return tuple(values)


def assemble_layers(
    elements: Children,
    heads: list[Head],
    body_at: Callable[[int], Body],
    number: Callable[[str], int | None],
    place: Callable[[Layer, tuple[PortFinding, ...]], None],
    names: tuple[str, ...],
) -> ReadLayers:
    """The layers from each one's head and body (`body_at(position)`); `place` reports a
    body's findings on a layer."""
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
            place(layer, body.findings)
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


# A <layer> start tag as lxml serializes it (a ">" in a value is escaped), its attributes
# captured; and those attributes as OpenVINO's serializer writes them, with no escape.
_LAYER_START = re.compile(r"<layer ([^>]*)>")
_HEAD = re.compile(
    r'^id="([^"&]*)" name="([^"&]*)" type="([^"&]*)" version="([^"&]*)"(?: .*)?$', re.M
)


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
    pieces = _LAYER_START.split(text)
    count = len(pieces) // 2
    if not count == len(container) == COUNT_LAYERS(container):
        return None
    pieces[-1] = pieces[-1].removesuffix("</layers>")
    heads: list[Head] = _HEAD.findall("\n".join(pieces[1::2]))
    return pieces[2::2], heads if len(heads) == count else None
