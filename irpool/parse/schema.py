"""The IR skeleton check: every file is validated against schemas/ir.xsd."""

from __future__ import annotations

import re
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


def check_structure(doc: Document, sink: Collector) -> None:
    schema = _ir_schema()
    spelled = doc.root.tag
    doc.root.tag = "net"  # the runtime accepts <Net>; the reader reports the spelling itself
    try:
        if schema.validate(doc.root.getroottree()):
            return
    finally:
        doc.root.tag = spelled
    tree = doc.root.getroottree()
    for entry in schema.error_log:
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
