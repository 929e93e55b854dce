"""The IR skeleton check: every file is validated against schemas/ir.xsd."""

from __future__ import annotations

import re
import threading
from functools import cache
from importlib import resources
from pathlib import Path

from lxml import etree

from irpool.diagnostics import Collector, Span
from irpool.parse.xml_reader import Document, hardened_parser


def schema_path(name: str) -> Path:
    """A file of schemas/: inside the installed wheel, or beside the package in a checkout."""
    packaged = resources.files("irpool").joinpath("schemas", name)
    if packaged.is_file():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[2] / "schemas" / name


@cache
def _ir_schema() -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(schema_path("ir.xsd")), hardened_parser()))


_ELEMENT_PREFIX = re.compile(r"^Element '([^']+)'(?:, attribute '([^']+)')?: ")


class StructureCheck:
    """The schema check of a document, run on a worker thread while the graph is built:
    libxml2 validates without holding the GIL, so on a large file it costs almost nothing
    beside reading the layers. The schema does not declare IDs or defaults, so validating
    only reads the tree, and reading it from the main thread meanwhile is safe."""

    def __init__(self, doc: Document) -> None:
        self._doc = doc
        self._schema = _ir_schema()
        self._valid: bool | None = None
        self._error: BaseException | None = None
        # The runtime accepts <Net>; the reader reports the spelling itself, and the schema
        # sees <net>. Renaming writes to the tree, so that rare case is checked right here.
        if doc.root.tag != "net":
            self._thread = None
            spelled = doc.root.tag
            doc.root.tag = "net"
            try:
                self._validate()
            finally:
                doc.root.tag = spelled
        else:
            self._thread = threading.Thread(target=self._validate, name="irpool-schema")
            self._thread.start()

    def _validate(self) -> None:
        try:
            self._valid = self._schema.validate(self._doc.root.getroottree())
        except BaseException as error:  # handed to the main thread by report()
            self._error = error

    def report(self, sink: Collector) -> None:
        """Wait for the check and report what it found."""
        if self._thread is not None:
            self._thread.join()
        if self._error is not None:
            raise self._error
        if self._valid:
            return
        doc = self._doc
        tree = doc.root.getroottree()
        for entry in self._schema.error_log:
            found = tree.xpath(entry.path) if entry.path else []
            element = found[0] if found and isinstance(found[0], etree._Element) else None
            message = _ELEMENT_PREFIX.sub(_describe_prefix, entry.message.strip())
            layer = _layer_of(element)
            if element is None:
                span = Span.at_line(entry.line)
            else:
                attribute = _ELEMENT_PREFIX.match(entry.message)
                name = attribute.group(2) if attribute else None
                span = doc.source.attribute(element, name) if name else doc.source.element(element)
            sink.add("IR105", message, span, layer)


def _describe_prefix(match: re.Match[str]) -> str:
    element, attribute = match.groups()
    return f"<{element}> attribute {attribute}: " if attribute else f"<{element}>: "


def _layer_of(element: etree._Element | None) -> tuple[str | None, str | None]:
    while element is not None:
        if element.tag == "layer":
            return element.get("id"), element.get("name")
        element = element.getparent()
    return None, None
