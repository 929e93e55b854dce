"""Reading the graph from the source text on a worker thread while lxml parses the file
(libxml2 parses without the GIL): each layer's head and body, the edges, and whether the text
proves the skeleton the schema checks valid. Nothing of it is used until the parsed tree
confirms the cuts (`SourceReading.fits`), and nothing is read from the text wherever it could
say something other than the tree."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from lxml import etree

from irpool.diagnostics import Collector
from irpool.graph.bodies import Body, BodyReader
from irpool.graph.edges import COUNT_EDGES, Edges, edges_from
from irpool.graph.graph import Children
from irpool.graph.layers import LAYER_START, Head, ReadLayers, assemble_layers, cut_heads
from irpool.parse.schema import net_children_valid, skeleton_valid
from irpool.parse.xml_reader import Document, hardened_parser

# Any names attribute, however quoted or spaced; those of other attributes (output_names)
# are told apart by what precedes them.
_NAMES = re.compile(r"""names\s*=\s*(?:"([^"]*)"|'([^']*)')""")
# An <edge> as the serializer writes it, each number one the schema's IdType takes (at most
# 18 ASCII digits: below 2^63).
_NUMBER = "([0-9]{1,18})"
_EDGE = re.compile(
    f'<edge from-layer="{_NUMBER}" from-port="{_NUMBER}" to-layer="{_NUMBER}" '
    f'to-port="{_NUMBER}" ?/>'
)
_IDS = re.compile(r"[0-9]{1,18}(?:\n[0-9]{1,18})*")
# Distinct bodies are parsed, read and checked against the schema in documents of their own,
# each in a layer whose attributes the schema takes.
_WRAPPER = '<layer id="0" name="" type="" version="">'
_DOCUMENT_CHARS = 1 << 20  # a tree of about 18 MiB
# Past this share of the layers' text in distinct bodies, reading the text costs more than
# the parse it runs beside (measured 2026-11-27: docs/performance.md).
MOST_DISTINCT_SHARE = 0.5


@dataclass(frozen=True, slots=True)
class SourceReading:
    """What `read_source` read from the text: the layers as `read_layers` reads them and the
    edges as `read_edges` does, for the tree to confirm (`fits`)."""

    heads: list[Head] | None  # None: a start tag not written as the serializer writes it
    bodies: list[Body]
    names_written: tuple[str, ...]
    # The four attributes of each <edge>, as read_edges' columns; None: not read from the
    # text (no <edges>, or one not written plainly).
    edge_columns: list[list[str]] | None
    # Whether the schema would find nothing in <layers> and <edges>.
    skeleton_valid: bool

    def fits(self, layers: etree._Element | None) -> bool:
        """Whether the parsed <layers> has one <layer> per layer cut from the text, and
        nothing else. Each cut starts at a <layer> start tag (no comment, CDATA section or
        processing instruction is there, and "<" starts nothing else) and each body closed
        its own layer (`_read_bodies`), so a layer nested in another, or any other element,
        would make the counts differ."""
        return layers is not None and len(layers) == len(self.bodies)

    def edges_fit(self, edges: etree._Element | None) -> bool:
        """Whether the edges were read from the text, one per child of the parsed <edges>,
        each child an <edge>. Every start tag of an edge-named element in <edges> was an
        empty <edge/> read (`_read_edges`), so an edge inside another element makes the
        counts differ."""
        columns = self.edge_columns
        if columns is None or edges is None:
            return False
        return bool(len(edges) == len(columns[0]) == COUNT_EDGES(edges))

    def proves_skeleton(self, root: etree._Element, edges_known: bool) -> bool:
        """Whether the schema would find nothing (given `fits`): in the layers, in the edges
        (`edges_known`: there are none, or they `edges_fit`) and in the children of <net>."""
        return self.skeleton_valid and edges_known and net_children_valid(root)

    def read_layers(
        self,
        doc: Document,
        container: etree._Element,
        number: Callable[[str], int | None],
        sink: Collector,
    ) -> ReadLayers:
        elements = Children(container, "layer", uniform=True)
        return assemble_layers(
            doc, sink, elements, self.heads, self.bodies.__getitem__, number, self.names_written
        )

    def read_edges(self, container: etree._Element, number: Callable[[str], int | None]) -> Edges:
        assert self.edge_columns is not None
        return edges_from(container, self.edge_columns, number)


class SourceReadingBeside:
    """`read_source` on a worker thread while the caller parses the file (`text`: a way to
    the source text; None: nothing to read). The worker waits for `begin`, so that starting
    it does not hold up the caller: the caller holds the GIL until lxml's parse lets go."""

    def __init__(self, text: Callable[[], str] | None) -> None:
        self._reading: SourceReading | None = None
        self._error: BaseException | None = None
        self._worker: threading.Thread | None = None
        self._go = threading.Event()
        if text is not None:
            self._worker = threading.Thread(target=self._read, args=(text,), name="irpool-source")
            self._worker.start()

    def begin(self) -> None:
        """Let the worker read (call right before parsing)."""
        self._go.set()

    def _read(self, text: Callable[[], str]) -> None:
        try:
            self._go.wait()
            self._reading = read_source(text())
        except BaseException as error:  # raised again by result(), on the caller's thread
            self._error = error

    def result(self) -> SourceReading | None:
        if self._worker is None:
            return None
        self.begin()  # had the caller's parse not started
        self._worker.join()
        if self._error is not None:
            raise self._error
        return self._reading


def read_source(text: str) -> SourceReading | None:
    """The layers and edges of the source text, read as `read_layers` and `read_edges` read
    them from the tree, with the distinct layer bodies parsed (and checked against the
    schema) in documents of their own (`_read_bodies`). None when the layers cannot be cut
    (`_section`), their bodies do not parse alone, or they mostly differ."""
    # A namespace is read from outside a layer's text, and xml:space changes which blanks
    # the parser drops: neither holds in a text read piece by piece.
    declaration = text.find("?>") + 2 if text.startswith("<?") else 0
    if text.find("xml", declaration) >= 0 and ("xmlns" in text or "xml:space" in text):
        return None
    start, end = _section(text, "layers")
    if end < 0:
        return None
    pieces = LAYER_START.split(text)  # the whole text: a slice would copy it
    count = len(pieces) // 2
    last = pieces[-1].find("</layers")
    if count == 0 or last < 0 or start > len(pieces[0]):
        return None
    pieces[-1] = pieces[-1][:last]
    read = _read_bodies(pieces[2::2])
    if read is None:
        return None
    bodies, bodies_valid = read
    heads = cut_heads(pieces[1::2])
    ids_valid = heads is not None and _IDS.fullmatch("\n".join(h[0] for h in heads)) is not None
    edge_columns, edges_valid = _read_edges(text)
    return SourceReading(
        heads,
        bodies,
        _names(text, start, end),
        edge_columns,
        bodies_valid and ids_valid and edges_valid,
    )


def _section(text: str, tag: str) -> tuple[int, int]:
    """The start of the only <tag> element and of its end tag, when each start tag between
    them opens an element that the parser reads alone as it reads it in the whole tree:
    nothing there is a comment, CDATA section or processing instruction, which could hold
    such text, or a carriage return, which the parser turns into a line feed. (-1, -1)
    otherwise, or without one."""
    start = text.find(f"<{tag}")
    end = text.find(f"</{tag}", start)
    if start < 0 or end < 0:
        return -1, -1
    after = text[start + len(tag) + 1 : start + len(tag) + 2]
    if not (after == ">" or after.isspace()) or text.find(f"<{tag}", start + 1) >= 0:
        return -1, -1  # another element's tag (<layers2>), or a second one
    if _holds(text, "<!", start, end) or _holds(text, "<?", start, end):
        return -1, -1
    return (-1, -1) if text.find("\r", start, end) >= 0 else (start, end)


def _holds(text: str, mark: str, start: int, end: int) -> bool:
    """Whether text[start:end] holds the two-character `mark`, looking for its rare second
    character first (at memchr speed)."""
    return text.find(mark[1], start, end) >= 0 and text.find(mark, start, end) >= 0


def _read_bodies(texts: list[str]) -> tuple[list[Body], bool] | None:
    """Each layer's body from its text after the start tag, and whether the schema finds
    nothing in any of them. Bodies that differ only in port names are read once, the
    distinct ones in documents of about `_DOCUMENT_CHARS` each (a tree of each at a time).
    None when a text is not one balanced layer body, or when the distinct bodies are more
    than `MOST_DISTINCT_SHARE` of the text: reading them would cost more than it saves."""
    reader = BodyReader()
    keys: dict[str, str] = {}
    distinct: dict[str, str] = {}  # a text of each key
    most = MOST_DISTINCT_SHARE * sum(map(len, texts))
    for text in texts:
        if text not in keys:
            key = keys[text] = reader.key(text)
            if key not in distinct:
                distinct[key] = text
                most -= len(text)
                if most < 0:
                    return None
    by_key: dict[str, Body] = {}
    valid = True
    for group in _groups(distinct):
        document = "".join(_WRAPPER + distinct[key] for key in group)
        try:
            root = etree.fromstring(f"<net><layers>{document}</layers></net>", hardened_parser())
        except etree.XMLSyntaxError:
            return None
        elements = list(root[0])
        if len(elements) != len(group) or any(e.tag != "layer" for e in elements):
            return None
        by_key.update(zip(group, map(reader.read_element, elements), strict=True))
        valid = valid and skeleton_valid(root)
    return [by_key[keys[text]] for text in texts], valid


def _groups(texts: dict[str, str]) -> Iterator[list[str]]:
    """The keys of `texts` in runs whose texts add up to about `_DOCUMENT_CHARS`."""
    group: list[str] = []
    size = 0
    for key, text in texts.items():
        group.append(key)
        size += len(text)
        if size >= _DOCUMENT_CHARS:
            yield group
            group, size = [], 0
    if group:
        yield group


def _read_edges(text: str) -> tuple[list[list[str]] | None, bool]:
    """The edges' four columns when every <edge> is written as the serializer writes it,
    and whether the schema finds nothing in <edges> (true without one)."""
    start, end = _section(text, "edges")
    if end < 0:
        return None, text.find("<edges") < 0
    found = _EDGE.findall(text, start, end)
    if text.count("<edge", start + 1, end) != len(found):
        return None, False
    columns = [list(column) for column in zip(*found, strict=True)] if found else [[]] * 4
    return columns, True


def _names(text: str, start: int, end: int) -> tuple[str, ...]:
    """Every names attribute's value in text[start:end] as `names_written` gives it from a
    serialization: tabs and line feeds in a value become spaces, escapes stay."""
    values = []
    for match in _NAMES.finditer(text, start, end):
        if text[match.start() - 1] in " \t\n":
            value = match.group(1) if match.group(1) is not None else match.group(2)
            values.append(value.replace("\t", " ").replace("\n", " "))
    return tuple(values)
