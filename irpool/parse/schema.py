"""The IR skeleton check: every file is validated against schemas/ir.xsd."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from copy import deepcopy
from functools import cache
from pathlib import Path

from lxml import etree

from irpool.diagnostics import Collector, Edit, Span
from irpool.parse.xml_reader import Document, hardened_parser
from irpool.rules import DROPPED_SECTION, EMPTY_REPEATED_SECTION, IR_STRUCTURE, UNKNOWN_ELEMENT


def schema_path(name: str) -> Path:
    """A file of schemas/: inside the installed wheel, or beside the package in a checkout.
    Found from `__file__`: lxml reads only real files, and importlib.resources would import
    its file readers (zipfile and more) on every start of the CLI."""
    package = Path(__file__).resolve().parents[1]
    packaged = package / "schemas" / name
    return packaged if packaged.is_file() else package.parent / "schemas" / name


# Schemas no thread is validating with. Validating writes the schema's error_log, so two
# threads sharing one object lose each other's findings; each validation takes an idle one
# (list.pop and append are atomic) and the pool grows to the number of threads at once.
_idle_schemas: list[etree.XMLSchema] = []


@contextmanager
def _ir_schema() -> Iterator[etree.XMLSchema]:
    try:
        schema = _idle_schemas.pop()
    except IndexError:
        schema = etree.XMLSchema(etree.parse(str(schema_path("ir.xsd")), hardened_parser()))
    try:
        yield schema
    finally:
        _idle_schemas.append(schema)


@cache
def _ir_schema_tree() -> etree._ElementTree:
    return etree.parse(str(schema_path("ir.xsd")), hardened_parser())


@cache
def _ir_element_names() -> frozenset[str]:
    """Every element name the schema declares: any other element is one OpenVINO skips."""
    names = _ir_schema_tree().xpath("//xs:element/@name", namespaces={"xs": XS})
    return frozenset(str(name) for name in names)


XS = "http://www.w3.org/2001/XMLSchema"


def skeleton_valid(root: etree._Element) -> bool:
    """Whether the schema finds nothing in the tree of `root`."""
    with _ir_schema() as schema:
        return bool(schema.validate(root.getroottree()))


@cache
def _net_sections() -> tuple[frozenset[str], frozenset[str]]:
    """The children the schema allows <net>, each at most once, and those it requires."""
    found = _ir_schema_tree().xpath(
        "//xs:complexType[@name='NetType']/xs:all/xs:element", namespaces={"xs": XS}
    )
    allowed = frozenset(str(element.get("name")) for element in found)
    required = frozenset(
        str(element.get("name")) for element in found if element.get("minOccurs", "1") != "0"
    )
    return allowed, required


def net_children_valid(root: etree._Element) -> bool:
    """Whether the schema finds nothing in <net> itself: its element children are sections
    it declares, each at most once, the required ones there (the sections' content aside)."""
    if root.tag != "net":
        return False
    allowed, required = _net_sections()
    tags = [child.tag for child in root if isinstance(child.tag, str)]
    present = set(tags)
    return len(present) == len(tags) and present <= allowed and required <= present


_UNEXPECTED = "This element is not expected."
# Elements whose children the schema checks (the others hold anything, unchecked).
_CHECKED = frozenset({"net", "layers", "layer", "input", "output", "port", "dim", "edges", "edge"})

_ELEMENT_PREFIX = re.compile(r"^Element '([^']+)'(?:, attribute '([^']+)')?: ")


def _unknown_element(entry: etree._LogEntry) -> str | None:
    """The name of the element an error is about when the schema does not declare it."""
    named = _ELEMENT_PREFIX.match(entry.message)
    if named is None or _UNEXPECTED not in entry.message:
        return None
    return None if named.group(1) in _ir_element_names() else named.group(1)


def _without_skipped_elements(root: etree._Element) -> etree._Element:
    """A copy of the document without the elements OpenVINO skips: those the schema does not
    declare, and the repeated sections of <net> (reported on their own)."""
    copy = deepcopy(root)
    names = _ir_element_names()
    unknown = [
        child
        for element in copy.iter(*_CHECKED)
        for child in element
        if isinstance(child.tag, str) and child.tag not in names
    ]
    for child in unknown + [repeat for repeat, _ in _repeated_sections(copy)]:
        child.getparent().remove(child)
    return copy


# The sections of <net> whose first one OpenVINO reads; it skips a later one whole (measured).
_SECTIONS = frozenset({"layers", "edges", "rt_info"})
_SECTION_ITEMS = {
    "layers": ("layer", "layers"),
    "edges": ("edge", "edges"),
    "rt_info": ("entry", "entries"),
}


def _repeated_sections(root: etree._Element) -> list[tuple[etree._Element, etree._Element]]:
    """Each repeated section of <net>, with the first of its kind."""
    first: dict[str, etree._Element] = {}
    repeats = []
    for child in root:
        if child.tag in _SECTIONS:
            if child.tag in first:
                repeats.append((child, first[child.tag]))
            else:
                first[child.tag] = child
    return repeats


def _report_repeated_sections(doc: Document, sink: Collector) -> None:
    """A repeated section with content is dropped silently (an error); an empty one is noise."""
    for repeat, first in _repeated_sections(doc.root):
        tag, span = repeat.tag, doc.source.element(repeat)
        items = [child for child in repeat if isinstance(child.tag, str)]
        read = f"OpenVINO reads only the first <{tag}> (line {first.sourceline})"
        if not items:
            whole = doc.source.childless_element_offsets(repeat)
            removal = None
            if whole is not None:  # comments inside are left for a person to move
                removal = Edit(*doc.source.deletion(*whole), "", f"delete the empty <{tag}>")
            sink.add(
                EMPTY_REPEATED_SECTION,
                f"a second, empty <{tag}>: {read}; remove this one",
                span,
                edit=removal,
            )
            continue
        if not any(isinstance(child.tag, str) for child in first):
            read += ", which is empty,"
        count = f"{len(items)} {_SECTION_ITEMS[tag][len(items) > 1]}"
        sink.add(
            DROPPED_SECTION, f"a second <{tag}>: {read} and drops this one with its {count}", span
        )


class StructureCheck:
    """The schema check of a document. libxml2 validates without holding the GIL, so `run`
    may go on a worker thread while the main thread reads the tree: the schema declares no
    IDs or defaults, so validating only reads the tree too (see `runs_beside`)."""

    def __init__(self, doc: Document) -> None:
        self._doc = doc
        self._entries: list[etree._LogEntry] = []
        self._error: BaseException | None = None

    @property
    def runs_beside(self) -> bool:
        """Whether `run` only reads the tree. The runtime accepts <Net> (the reader reports
        the spelling itself) and the schema must see <net>: renaming writes to the tree."""
        return bool(self._doc.root.tag == "net")

    def run(self) -> None:
        """Validate; never raises (an error is raised again by `report`)."""
        root = self._doc.root
        spelled = root.tag
        try:
            if spelled != "net":
                root.tag = "net"
            with _ir_schema() as schema:
                schema.validate(root.getroottree())
                self._entries = list(schema.error_log)
                unknown = [entry for entry in self._entries if _unknown_element(entry)]
                if unknown or _repeated_sections(root):
                    # libxml2 checks no more of an element's children after one it does not
                    # expect, so an unknown one (only a warning) could hide an error after it.
                    copy = _without_skipped_elements(root)
                    schema.validate(copy.getroottree())
                    self._entries = unknown + list(schema.error_log)
        except BaseException as error:  # handed to the main thread by report()
            self._error = error
        finally:
            if spelled != "net":
                root.tag = spelled

    def report(self, sink: Collector) -> None:
        """Report what `run` found."""
        if self._error is not None:
            raise self._error
        doc = self._doc
        _report_repeated_sections(doc, sink)
        tree = doc.root.getroottree()
        for entry in self._entries:
            found = _find(tree, entry)
            element = found[0] if found and isinstance(found[0], etree._Element) else None
            message = _ELEMENT_PREFIX.sub(_describe_prefix, entry.message.strip())
            named = _ELEMENT_PREFIX.match(entry.message)
            layer = _layer_of(element)
            if element is None:
                span = Span.at_line(entry.line)
            else:
                name = named.group(2) if named else None
                span = doc.source.attribute(element, name) if name else doc.source.element(element)
            tag = _unknown_element(entry)
            if tag is not None:
                sink.add(
                    UNKNOWN_ELEMENT, f"<{tag}> is not an IR element; OpenVINO skips it", span, layer
                )
            else:
                sink.add(IR_STRUCTURE, message, span, layer)


def _find(tree: etree._ElementTree, entry: etree._LogEntry) -> list[object]:
    """The nodes at libxml2's path of an error. A path with a namespace prefix cannot be
    resolved without the document's prefixes: then the element named by the message, on
    the error's line."""
    if not entry.path:
        return []
    try:
        found = tree.xpath(entry.path)
    except etree.XPathEvalError:
        named = _ELEMENT_PREFIX.match(entry.message)
        tag = named.group(1) if named else None
        return [e for e in tree.iter(tag) if e.sourceline == entry.line] if tag else []
    return found if isinstance(found, list) else []


def _describe_prefix(match: re.Match[str]) -> str:
    element, attribute = match.groups()
    return f"<{element}> attribute {attribute}: " if attribute else f"<{element}>: "


def _layer_of(element: etree._Element | None) -> tuple[str | None, str | None]:
    while element is not None:
        if element.tag == "layer":
            return element.get("id"), element.get("name")
        element = element.getparent()
    return None, None
