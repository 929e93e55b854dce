"""Inline suppression, applied after every check has run: an XML comment
`<!-- irpool: ignore IR213 -->` (several codes separated by commas or spaces) silences those
codes for one element and everything inside it; a family code (IR214: every CPU refusal)
silences each of its rules.

The element is the one the comment ends the line of (`<dim>7</dim> <!-- irpool: ignore
IR301 -->`, or `<layer id="1" ...> <!-- irpool: ignore IR213 -->` right after a start tag),
otherwise the next element beside it (a comment line before `<layer>` covers
the whole layer, before a `<dim>` only that dim; before `<net>`, the whole file). A
diagnostic is covered when its position lies inside the element's text. A suppression that
covers nothing, names a code that is not a rule, has no element to apply to, or is not
written as above is reported as IR117, so stale suppressions do not pile up; `--fix` deletes
a suppression all of whose codes are at fault.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from lxml import etree

from irpool.diagnostics import Collector, Diagnostic, Edit
from irpool.parse.source_map import SourceMap
from irpool.parse.xml_reader import Document
from irpool.rules import FAMILIES, RULES, UNUSED_SUPPRESSION

_PREFIX = re.compile(r"\s*irpool:")
_DIRECTIVE = re.compile(r"\s*irpool:\s*ignore(?P<codes>(?:[\s,]+[^\s,]+)+)[\s,]*")
_SEPARATORS = re.compile(r"[\s,]+")
GRAMMAR = "irpool: ignore CODE[, CODE...]"


@dataclass(frozen=True, slots=True)
class Suppression:
    comment: tuple[int, int]  # offsets of the whole comment
    codes: tuple[str, ...]  # as written, upper-cased; empty when the comment is malformed
    covers: tuple[int, int] | None  # offsets of the element it applies to
    target: str  # that element, as a message shows it

    def silences(self, diagnostic: Diagnostic, at: int) -> bool:
        return (
            self.covers is not None
            and any(_names(code, diagnostic.code) for code in self.codes)
            and self.covers[0] <= at < self.covers[1]
        )


def _names(written: str, code: str) -> bool:
    """Whether a code written in a suppression names a diagnostic's code."""
    return written == code or code in FAMILIES.get(written, ())


def _comments(root: etree._Element) -> Iterator[etree._Element]:
    yield from root.itersiblings(etree.Comment, preceding=True)
    yield from root.iter(etree.Comment)
    yield from root.itersiblings(etree.Comment)


def _sibling_element(node: etree._Element, preceding: bool) -> etree._Element | None:
    for sibling in node.itersiblings(preceding=preceding):
        if isinstance(sibling.tag, str):  # comments and processing instructions are skipped
            return sibling
    return None


def _shown(element: etree._Element) -> str:
    identity = f' id="{element.get("id")}"' if element.get("id") is not None else ""
    return f"<{element.tag}{identity}>"


def _target(source: SourceMap, comment: etree._Element, start: int) -> etree._Element | None:
    """The element the comment trails on its line (an element before it, or the one whose
    start tag it follows), else the next element beside it."""
    line = source.position(start)[0]
    before = _sibling_element(comment, preceding=True)
    parent = comment.getparent()
    if before is not None:
        extent = source.extent(before)
        if extent is not None and source.position(extent[1] - 1)[0] == line:
            return before
    elif parent is not None and source.element(parent).end_line == line:
        return parent
    return _sibling_element(comment, preceding=False)


def _suppression(source: SourceMap, comment: etree._Element) -> Suppression | None:
    offsets = source.comment(comment)
    if offsets is None:  # the source scan could not place the comment
        return None
    match = _DIRECTIVE.fullmatch(comment.text or "")
    codes = tuple(_SEPARATORS.split(match["codes"].strip(" \t\r\n,"))) if match else ()
    target = _target(source, comment, offsets[0])
    covers = None if target is None else source.extent(target)
    shown = "" if target is None else _shown(target)
    return Suppression(offsets, tuple(code.upper() for code in codes), covers, shown)


def _suppressions(document: Document) -> list[Suppression]:
    """Every `irpool:` comment of the file, in document order."""
    if not document.source.mentions("irpool:"):  # most files: no walk over the tree at all
        return []
    comments = (c for c in _comments(document.root) if _PREFIX.match(c.text or ""))
    found = (_suppression(document.source, comment) for comment in comments)
    return [suppression for suppression in found if suppression is not None]


def apply_suppressions(document: Document, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics no suppression covers, and IR117 for each suppression at fault."""
    suppressions = _suppressions(document)
    if not suppressions:
        return diagnostics
    source = document.source
    used: list[set[str]] = [set() for _ in suppressions]  # the codes each one silenced
    kept = []
    for diagnostic in diagnostics:
        at = source.offset(diagnostic.line, diagnostic.column)
        covering = [i for i, s in enumerate(suppressions) if s.silences(diagnostic, at)]
        for i in covering:
            used[i].update(c for c in suppressions[i].codes if _names(c, diagnostic.code))
        if not covering:
            kept.append(diagnostic)
    sink = Collector(document.display_path)
    for suppression, silenced in zip(suppressions, used, strict=True):
        span = source.span(*suppression.comment)
        faults = list(_faults(suppression, silenced))
        all_at_fault = len(faults) >= len(suppression.codes)
        edit = _deletion(source, suppression) if all_at_fault else None
        for message in faults:
            sink.add(UNUSED_SUPPRESSION, message, span, edit=edit)
    return kept + sink.diagnostics


def _deletion(source: SourceMap, suppression: Suppression) -> Edit:
    """Delete a suppression every part of which is at fault (a stale code cannot be
    silencing anything, so deleting it changes no other finding). A comment alone on its
    line goes with its line; one that still holds a used code is left for a person to edit."""
    return Edit(*source.deletion(*suppression.comment), "", "delete the suppression")


def _faults(suppression: Suppression, used: set[str]) -> Iterator[str]:
    if not suppression.codes:
        yield f'an irpool comment must read "{GRAMMAR}"'
        return
    if suppression.covers is None:
        yield "this suppression has no element to apply to: put it before or after one"
        return
    for code in suppression.codes:
        if code not in RULES and code not in FAMILIES:
            yield f"{code} in this suppression is not an irpool rule (`irpool rules` lists them)"
        elif code not in used:
            yield f"{code} is suppressed on {suppression.target}, but nothing there reports it"
