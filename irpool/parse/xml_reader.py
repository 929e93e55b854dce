"""Stage 1: bytes -> a hardened lxml tree with a source map, or diagnostics saying why not."""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path

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


def read_document(path: Path, display_path: str) -> Document:
    """Parse an IR `.xml`; raises IRError (with diagnostics) when it cannot be read as IR."""
    sink = Collector(display_path)
    try:
        data = path.read_bytes()
    except OSError as error:
        sink.add("IR100", f"cannot read the file: {error.strerror or error}", Span.at_line(1))
        raise IRError(f"{display_path}: cannot read the file", sink.diagnostics) from None
    return parse_document(data, path, display_path)


def parse_document(data: bytes, path: Path, display_path: str) -> Document:
    sink = Collector(display_path)
    parser = hardened_parser()
    try:
        tree = etree.ElementTree(etree.fromstring(data, parser))
    except etree.XMLSyntaxError as error:
        entries = list(parser.error_log)
        if not entries:
            line, column = error.position
            sink.add("IR101", error.msg or "malformed XML", Span(line, column, line, column + 1))
        for entry in entries:
            column = max(entry.column, 1)
            sink.add("IR101", entry.message, Span(entry.line, column, entry.line, column + 1))
        raise IRError(f"{display_path}: malformed XML", sink.diagnostics) from None
    except ValueError as error:  # lxml refuses some inputs before parsing (e.g. bad encodings)
        sink.add("IR101", f"cannot parse the file as XML: {error}", Span.at_line(1))
        raise IRError(f"{display_path}: malformed XML", sink.diagnostics) from None

    root = tree.getroot()
    docinfo = tree.docinfo
    source = SourceMap(_decode(data, docinfo.encoding), root)
    if docinfo.doctype or docinfo.internalDTD is not None:
        sink.add(
            "IR102",
            "the file has a DOCTYPE; IR never needs one and irpool does not read DTDs or entities",
            Span.at_line(1),
        )
        raise IRError(f"{display_path}: unsafe XML", sink.diagnostics)

    tag = etree.QName(root).localname if isinstance(root.tag, str) else ""
    if tag.lower() != "net":
        sink.add("IR103", f"the root element is <{tag}>, not <net>", source.element(root))
        raise IRError(f"{display_path}: not an OpenVINO IR file", sink.diagnostics)
    if tag != "net":
        sink.add("IR211", f"the root element is spelled <{tag}>; write <net>", source.element(root))

    version_text = root.get("version")
    version = read_unsigned(version_text) if version_text is not None else None
    if version not in SUPPORTED_IR_VERSIONS:
        shown = "missing" if version_text is None else f'"{version_text}"'
        span = source.element(root) if version_text is None else source.attribute(root, "version")
        sink.add("IR104", f"IR version is {shown}; OpenVINO reads only 10 and 11", span)
        raise IRError(f"{display_path}: unsupported IR version", sink.diagnostics)
    assert version is not None
    return Document(path, display_path, root, source, version)


def _decode(data: bytes, encoding: str | None) -> str:
    name = encoding or "utf-8"
    try:
        codec = codecs.lookup(name).name
        if codec == "utf-8":
            codec = "utf-8-sig"  # a BOM is not part of line 1's columns
        return data.decode(codec)
    except (LookupError, UnicodeDecodeError):
        return data.decode("latin-1")
