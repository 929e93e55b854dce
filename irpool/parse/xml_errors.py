"""Stage 1, when parsing fails or finds what IR never holds: libxml2's errors as findings
that point at the character, in plain words where libxml2 names a parser flag; processing
instructions."""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from irpool.diagnostics import Collector, Span
from irpool.parse.source_map import SourceMap
from irpool.parse.values import show
from irpool.rules import UNESCAPED_MARKUP, UNSUPPORTED_XML, XML_SYNTAX

MAX_DEPTH = 256  # libxml2's nesting limit without XML_PARSE_HUGE; IR nests about 10 deep


def report_processing_instructions(
    root: etree._Element, source: SourceMap, sink: Collector
) -> None:
    before = reversed(list(root.itersiblings(etree.PI, preceding=True)))
    found = [*before, *root.iter(etree.PI), *root.itersiblings(etree.PI)]
    cursor = 0
    for instruction in found:
        start = source.text.find(f"<?{instruction.target}", cursor)
        if start < 0:
            span = Span.at_line(instruction.sourceline or 1)
        else:
            cursor = start + 1
            span = source.span(start, start + 2 + len(instruction.target))
        sink.add(
            UNSUPPORTED_XML,
            f"processing instruction <?{show(instruction.target)[1:-1]}?>: IR never has one; "
            "OpenVINO skips it, other tools may act on it",
            span,
        )


# libxml2 messages replaced by plainer ones: its limits name a parser flag, not the limit.
_PLAIN_MESSAGES = {
    "Excessive depth": (
        UNSUPPORTED_XML,
        f"elements are nested more than {MAX_DEPTH} deep, the most irpool reads "
        "(OpenVINO's own IR nests about 10 deep)",
    ),
    "Resource limit exceeded": (UNSUPPORTED_XML, "the file exceeds a limit of the XML parser"),
    "Invalid bytes in character encoding": (
        XML_SYNTAX,
        "invalid UTF-8 here: IR is UTF-8 text",
    ),
}


# libxml2 errors on markup that OpenVINO's reader (pugixml) takes as written (IR116).
_LENIENT_MARKUP = {
    "xmlParseEntityRef: no name": 'an unescaped "&" (write "&amp;")',
    "EntityRef: expecting ';'": 'an unescaped "&" (write "&amp;")',
    "Unescaped '<' not allowed in attributes values": 'an unescaped "<" (write "&lt;")',
}
_UNDEFINED_ENTITY = re.compile(r"Entity '([^']*)' not defined")


def _lenient(message: str) -> str | None:
    """A plain message for markup that only OpenVINO's lenient reader accepts, or None."""
    what = _LENIENT_MARKUP.get(message.strip())
    entity = _UNDEFINED_ENTITY.search(message)
    if entity is not None:
        what = f'an undefined entity "&{entity.group(1)};"'
    if what is None:
        return None
    return f"{what}: OpenVINO reads it as written, but no XML tool can read the file"


def report_syntax(
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
        span = Span(line, column, line, column + 1)
        plain = next((plain for key, plain in _PLAIN_MESSAGES.items() if key in message), None)
        if plain is not None:
            sink.add(*plain, span)
            return  # what libxml2 says after these is only their consequences
        lenient = _lenient(message)
        if lenient is not None:
            sink.add(UNESCAPED_MARKUP, lenient, span)
        else:
            sink.add(XML_SYNTAX, message, span)
