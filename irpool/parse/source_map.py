"""Where things are in the raw text: spans of elements, attribute values and element text.

lxml gives each element only the line its start tag ends on. Columns (and, later, byte
edits for --fix) need the raw text, so the text is decoded, its lines found and its start
tags scanned once each, lazily, the first time a diagnostic needs them; a clean file never
pays for them. Start tags are matched to lxml's elements in document order.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import cached_property

from lxml import etree

from irpool.diagnostics import Span

_TOKEN = re.compile(
    r"""<!--.*?-->
      | <!\[CDATA\[.*?\]\]>
      | <\?.*?\?>
      | <![^>]*>
      | </[^>]*>
      | <(?P<tag>[^\s/>!?]+)(?P<attrs>(?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*/?>""",
    re.S | re.X,
)
# Where the text holds no comment, CDATA section, DOCTYPE or processing instruction (past a
# leading declaration), every "<" not followed by "/" opens a start tag: well-formed XML has
# no other "<". Finding those is five times faster than the full scan on a 1.4 MB file.
_PLAIN_START = re.compile(r"<[^/]")
_ATTRIBUTE = re.compile(r"""([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")


def decode_source(data: bytes, codec: str) -> str:
    """The decoded source; a BOM is not part of line 1's columns."""
    return data.decode("utf-8-sig" if codec == "utf-8" else codec, errors="replace")


@dataclass(frozen=True, slots=True)
class StartTag:
    start: int  # offset of "<"
    end: int  # offset just after ">"
    attrs: str
    attrs_offset: int
    self_closing: bool


class SourceMap:
    """Maps lxml elements to character offsets in the decoded source text."""

    def __init__(self, data: bytes, root: etree._Element, codec: str) -> None:
        self._data = data
        self._codec = codec
        self._root = root

    @cached_property
    def text(self) -> str:
        return decode_source(self._data, self._codec)

    @cached_property
    def _line_starts(self) -> list[int]:
        return [0] + [m.end() for m in re.finditer("\n", self.text)]

    @cached_property
    def _tag_starts(self) -> dict[etree._Element, int]:
        """The offset of each element's start tag: the k-th start tag in the text is the k-th
        element in document order. Only offsets are kept (a large file has millions of
        tags); a tag's parts are read again when a diagnostic needs them."""
        text = self.text
        skip = text.find("?>") + 2 if text.startswith("<?") else 0  # the XML declaration
        if "<!" in text or text.find("<?", skip) >= 0 or text.find("<", 1, skip) >= 0:
            starts = [match.start() for match in _TOKEN.finditer(text) if match.lastgroup]
        else:
            starts = [match.start() for match in _PLAIN_START.finditer(text, skip)]
        elements = list(self._root.iter(etree.Element))
        # The root may be preceded by nothing but the prolog; any mismatch means the scan
        # cannot be trusted, and positions fall back to lxml's line numbers.
        if len(starts) != len(elements):
            return {}
        return dict(zip(elements, starts, strict=True))

    @cached_property
    def _ordered_tags(self) -> tuple[list[int], list[etree._Element]]:
        # The scan found the start tags in document order, so their offsets ascend.
        return list(self._tag_starts.values()), list(self._tag_starts)

    def element_at(self, offset: int) -> etree._Element | None:
        """The innermost element whose text (start tag to end tag) holds the offset."""
        starts, elements = self._ordered_tags
        index = bisect.bisect_right(starts, offset) - 1
        element = elements[index] if index >= 0 else None
        while element is not None:
            extent = self.extent(element)
            if extent is not None and extent[0] <= offset < extent[1]:
                return element
            element = element.getparent()
        return None

    def attribute_at(self, element: etree._Element, offset: int) -> tuple[str, int, int] | None:
        """The attribute of an element's start tag whose name, `=` or quoted value holds the
        offset: its name and the offsets of the whole `name="value"`."""
        tag = self._tag(element)
        if tag is None:
            return None
        for match in _ATTRIBUTE.finditer(tag.attrs):
            start, end = tag.attrs_offset + match.start(), tag.attrs_offset + match.end()
            if start <= offset < end:
                return match.group(1), start, end
        return None

    def _tag(self, element: etree._Element) -> StartTag | None:
        start = self._tag_starts.get(element)
        if start is None:
            return None
        match = _TOKEN.match(self.text, start)
        assert match is not None and match.lastgroup, "a start tag was found here before"
        return StartTag(
            start=start,
            end=match.end(),
            attrs=match.group("attrs"),
            attrs_offset=match.start("attrs"),
            self_closing=match.group(0).endswith("/>"),
        )

    def position(self, offset: int) -> tuple[int, int]:
        """1-based line and column of a character offset."""
        index = bisect.bisect_right(self._line_starts, offset) - 1
        return index + 1, offset - self._line_starts[index] + 1

    def span(self, start: int, end: int) -> Span:
        line, column = self.position(start)
        end_line, end_column = self.position(end)
        return Span(line, column, end_line, end_column)

    def element(self, element: etree._Element) -> Span:
        """The element's start tag (or its line when the scan could not place it)."""
        tag = self._tag(element)
        if tag is None:
            return Span.at_line(element.sourceline or 1)
        return self.span(tag.start, tag.end)

    def attribute_offsets(self, element: etree._Element, name: str) -> tuple[int, int] | None:
        """Offsets of an attribute's value, without its quotes."""
        tag = self._tag(element)
        if tag is None:
            return None
        for match in _ATTRIBUTE.finditer(tag.attrs):
            if match.group(1) == name:
                group = 2 if match.group(2) is not None else 3
                return tag.attrs_offset + match.start(group), tag.attrs_offset + match.end(group)
        return None

    def attribute_name(self, element: etree._Element, name: str) -> Span:
        """The attribute's name (a misspelt one, say); the element when it cannot be found."""
        tag = self._tag(element)
        for match in () if tag is None else _ATTRIBUTE.finditer(tag.attrs):
            if match.group(1) == name:
                assert tag is not None
                return self.span(tag.attrs_offset + match.start(1), tag.attrs_offset + match.end(1))
        return self.element(element)

    def attribute(self, element: etree._Element, name: str) -> Span:
        offsets = self.attribute_offsets(element, name)
        if offsets is None:
            return self.element(element)
        return self.span(*offsets)

    def text_offsets(self, element: etree._Element) -> tuple[int, int] | None:
        """Offsets of the text directly inside an element, up to its first child or end tag."""
        tag = self._tag(element)
        if tag is None or tag.self_closing:
            return None
        end = self.text.find("<", tag.end)
        return tag.end, (end if end >= 0 else len(self.text))

    def childless_element_offsets(self, element: etree._Element) -> tuple[int, int] | None:
        """Offsets of a whole element holding nothing but blanks (`<edges/>`, `<edges> </edges>`),
        end tag included; None for anything else or when the scan cannot place it."""
        tag = self._tag(element)
        if tag is None or len(element) or (element.text or "").strip():
            return None
        if tag.self_closing:
            return tag.start, tag.end
        offsets = self.text_offsets(element)
        assert offsets is not None  # not self-closing
        end_tag = re.compile(rf"</{re.escape(str(element.tag))}\s*>").match(self.text, offsets[1])
        return None if end_tag is None else (tag.start, end_tag.end())

    def deletion(self, start: int, end: int) -> tuple[int, int]:
        """What to delete to remove [start, end): its whole line when nothing else is on it,
        else with the blanks that separate it from what follows (or, last on its line, from
        what precedes it)."""
        text = self.text
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", end)
        line_end = len(text) if line_end < 0 else line_end + 1
        before, after = text[line_start:start], text[end:line_end]
        if not before.strip() and not after.strip():
            return line_start, line_end
        if after.strip():
            return start, end + len(after) - len(after.lstrip(" \t"))
        return start - (len(before) - len(before.rstrip(" \t"))), end

    def element_text(self, element: etree._Element) -> Span:
        offsets = self.text_offsets(element)
        if offsets is None:
            return self.element(element)
        start, end = offsets
        if start == end:  # an empty element: point at the end tag
            return self.span(start, start + 1)
        return self.span(start, end)

    def mentions(self, needle: str) -> bool:
        """Whether the raw bytes contain `needle` (ASCII), without decoding the text."""
        return needle.encode("ascii") in self._data

    def offset(self, line: int, column: int) -> int:
        """The character offset of a 1-based line and column (the inverse of `position`)."""
        starts = self._line_starts
        return starts[min(max(line, 1), len(starts)) - 1] + column - 1

    def extent(self, element: etree._Element) -> tuple[int, int] | None:
        """Offsets from an element's start tag to the end of its end tag, children included."""
        tag = self._tag(element)
        if tag is None:
            return None
        if tag.self_closing:
            return tag.start, tag.end
        depth = 0
        for token in _TOKEN.finditer(self.text, tag.end):
            if token.lastgroup:
                depth += 0 if token.group(0).endswith("/>") else 1
            elif token.group(0).startswith("</"):
                if depth == 0:
                    return tag.start, token.end()
                depth -= 1
        return tag.start, len(self.text)

    @cached_property
    def _comment_starts(self) -> dict[etree._Element, int]:
        """The offset of each comment, matched to lxml's comments in document order (those
        before and after the root element included)."""
        starts = [m.start() for m in _TOKEN.finditer(self.text) if m.group(0).startswith("<!--")]
        comments = [
            *reversed(list(self._root.itersiblings(etree.Comment, preceding=True))),
            *self._root.iter(etree.Comment),
            *self._root.itersiblings(etree.Comment),
        ]
        if len(starts) != len(comments):
            return {}
        return dict(zip(comments, starts, strict=True))

    def comment(self, comment: etree._Element) -> tuple[int, int] | None:
        """Offsets of a whole comment, `<!--` to `-->`."""
        start = self._comment_starts.get(comment)
        if start is None:
            return None
        return start, self.text.index("-->", start + 4) + 3
