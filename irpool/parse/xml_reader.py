"""Stage 1: bytes -> a hardened lxml tree with a source map, or diagnostics saying why not."""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lxml import etree

from irpool.diagnostics import Collector, IRError, Span
from irpool.parse.source_map import SourceMap
from irpool.parse.values import read_unsigned

SUPPORTED_IR_VERSIONS = (10, 11)


def hardened_parser() -> etree.XMLParser:
    """No entity expansion, no DTD, no network: the file is data from a stranger."""
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=False,
        collect_ids=False,
    )


@dataclass(frozen=True, slots=True)
class Document:
    path: Path
    display_path: str
    root: etree._Element
    source: SourceMap
    ir_version: int


def read_document(path: Path, sink: Collector) -> Document:
    """Parse an IR `.xml`; raises IRError (with diagnostics) when it cannot be read as IR.

    Findings that do not stop reading (a `<Net>` root) go to `sink`.
    """
    try:
        data = path.read_bytes()
    except OSError as error:
        sink.add("IR100", f"cannot read the file: {error.strerror or error}", Span.at_line(1))
        raise IRError(f"{sink.path}: cannot read the file", sink.diagnostics) from None
    return parse_document(data, path, sink)


def parse_document(data: bytes, path: Path, sink: Collector) -> Document:
    parser = hardened_parser()
    try:
        tree = etree.ElementTree(etree.fromstring(data, parser))
    except etree.XMLSyntaxError as error:
        _report_syntax(data, error, list(parser.error_log), sink)
        raise IRError(f"{sink.path}: malformed XML", sink.diagnostics) from None
    except ValueError as error:  # lxml refuses some inputs before parsing (e.g. bad encodings)
        sink.add("IR101", f"cannot parse the file as XML: {error}", Span.at_line(1))
        raise IRError(f"{sink.path}: malformed XML", sink.diagnostics) from None

    root = tree.getroot()
    docinfo = tree.docinfo
    text = _decode(data, docinfo.encoding)
    source = SourceMap(text, root)
    if docinfo.doctype or docinfo.internalDTD is not None:
        offset = max(text.find("<!DOCTYPE"), 0)
        sink.add(
            "IR102",
            "the file has a DOCTYPE; IR never needs one, and irpool does not read DTDs or "
            "expand entities",
            source.span(offset, offset + len("<!DOCTYPE")),
        )
        raise IRError(f"{sink.path}: unsafe XML", sink.diagnostics)

    tag = etree.QName(root).localname if isinstance(root.tag, str) else ""
    if tag.lower() != "net":
        sink.add("IR103", f"the root element is <{tag}>, not <net>", source.element(root))
        raise IRError(f"{sink.path}: not an OpenVINO IR file", sink.diagnostics)
    if tag != "net":
        sink.add("IR211", f"the root element is spelled <{tag}>; write <net>", source.element(root))

    version_text = root.get("version")
    version = read_unsigned(version_text) if version_text is not None else None
    if version not in SUPPORTED_IR_VERSIONS:
        shown = "missing" if version_text is None else f'"{version_text}"'
        span = source.element(root) if version_text is None else source.attribute(root, "version")
        sink.add("IR104", f"IR version is {shown}; OpenVINO reads only 10 and 11", span)
        raise IRError(f"{sink.path}: unsupported IR version", sink.diagnostics)
    assert version is not None
    return Document(path, sink.path, root, source, version)


def _report_syntax(
    data: bytes, error: etree.XMLSyntaxError, entries: list[Any], sink: Collector
) -> None:
    """libxml2 reports the column just past the offending character; point at the character
    (or, for a mismatched end tag, at that tag) and never past the end of the line."""
    lines = data.decode("utf-8", errors="replace").split("\n")
    found = [(e.line, e.column, e.message) for e in entries] or [
        (error.position[0], error.position[1], error.msg or "malformed XML")
    ]
    for line, column, message in found:
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        column = min(max(column - 1, 1), max(len(text.rstrip("\r")), 1))
        if "tag mismatch" in message:
            column = text.rfind("</", 0, column) + 1 or column
        sink.add("IR101", message, Span(line, column, line, column + 1))


def _decode(data: bytes, encoding: str | None) -> str:
    name = encoding or "utf-8"
    try:
        codec = codecs.lookup(name).name
        if codec == "utf-8":
            codec = "utf-8-sig"  # a BOM is not part of line 1's columns
        return data.decode(codec)
    except (LookupError, UnicodeDecodeError):
        return data.decode("latin-1")
