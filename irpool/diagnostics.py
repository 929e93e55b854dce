"""Diagnostics are plain data: every check produces them, every formatter only renders them."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

from irpool.rules import RULES, Code, Severity

if TYPE_CHECKING:
    from lxml import etree

    from irpool.parse.source_map import SourceMap


@dataclass(frozen=True, slots=True)
class Span:
    """A 1-based source range; `end_column` is the first column after the range."""

    line: int
    column: int
    end_line: int
    end_column: int

    @staticmethod
    def at_line(line: int) -> Span:
        return Span(line, 1, line, 1)


@dataclass(frozen=True, slots=True)
class Edit:
    """What `--fix` writes to settle a diagnostic: source characters [start, end) (offsets in
    the decoded text of the file) become `text`. `settles` names other codes reported at the
    same place that this edit settles too, so it wins over their own edits there."""

    start: int
    end: int
    text: str
    message: str
    settles: frozenset[str] = frozenset()


def text_edit(
    source: SourceMap, element: etree._Element, new: str, settles: frozenset[str] = frozenset()
) -> Edit | None:
    """Rewrite an element's text, when its raw text is exactly what lxml read (no child, no
    entity) and the edit changes it; None otherwise (then a person must look)."""
    offsets = source.text_offsets(element)
    if offsets is None or len(element):
        return None
    old = source.text[offsets[0] : offsets[1]]
    if old != (element.text or "") or old == new:
        return None
    tag = element.tag
    return Edit(*offsets, new, f"<{tag}>{old}</{tag}> -> <{tag}>{new}</{tag}>", settles)


def attribute_edit(source: SourceMap, element: etree._Element, name: str, new: str) -> Edit | None:
    """Rewrite an attribute's value, on the same conditions as `text_edit`."""
    offsets = source.attribute_offsets(element, name)
    if offsets is None:
        return None
    old = source.text[offsets[0] : offsets[1]]
    if old != element.get(name) or old == new:
        return None
    return Edit(*offsets, new, f'{name} "{old}" -> "{new}"')


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    layer_id: str | None = None
    layer_name: str | None = None
    # Set where the finding is made when the fix is certain; reports never show it.
    edit: Edit | None = field(default=None, repr=False)
    # The same finding on other layers, merged into this one (`merge_repeats`).
    repeats: tuple[Diagnostic, ...] = field(default=(), repr=False)

    @property
    def name(self) -> str:
        return RULES[self.code].name

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.line, self.column, self.code)

    def occurrences(self) -> tuple[Diagnostic, ...]:
        """This finding at each place it was made: here, then its repeats."""
        return (self, *self.repeats)

    def to_dict(self) -> dict[str, Any]:
        record = asdict(self)
        del record["edit"], record["repeats"]
        record["severity"] = self.severity.value
        record["name"] = self.name
        return record


class Collector:
    """Gathers the diagnostics of one file; severities come from the rule catalog."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.diagnostics: list[Diagnostic] = []
        self._dropped: Collection[str] = ()
        self._matters: Callable[[str], bool] = lambda _: True
        self._note = ""

    def add(
        self,
        code: Code,
        message: str,
        span: Span,
        layer: tuple[str | None, str | None] = (None, None),
        *,
        about_dropped: bool = False,
        skipped: bool = False,
        edit: Edit | None = None,
    ) -> None:
        """`about_dropped`: the finding concerns a dropped layer other than `layer` (an edge
        into one), and is demoted like the findings inside it. `skipped`: the runtime never
        reads what the finding is about (the message says why), so an error is a warning.
        `edit`: its certain fix."""
        severity = RULES[code].severity
        diagnostic = Diagnostic(
            code=code,
            severity=Severity.WARNING if skipped and severity is Severity.ERROR else severity,
            message=message,
            path=self.path,
            line=span.line,
            column=span.column,
            end_line=span.end_line,
            end_column=span.end_column,
            layer_id=layer[0],
            layer_name=layer[1],
            edit=edit,
        )
        self.diagnostics.append(self._demoted(diagnostic, about_dropped))

    def drop_layers(
        self, layer_ids: Collection[str], matters: Callable[[str], bool], note: str
    ) -> None:
        """The runtime drops these layers: an error found in one (before or after this call)
        becomes a warning ending with `note`, unless `matters(code)` (the runtime checks
        that much even in a layer it drops)."""
        self._dropped, self._matters, self._note = frozenset(layer_ids), matters, note
        self.diagnostics = [self._demoted(d) for d in self.diagnostics]

    def _demoted(self, diagnostic: Diagnostic, about_dropped: bool = False) -> Diagnostic:
        if (
            not (about_dropped or diagnostic.layer_id in self._dropped)
            or diagnostic.severity is not Severity.ERROR
            or self._matters(diagnostic.code)
        ):
            return diagnostic
        message = f"{diagnostic.message}{self._note}"
        return replace(diagnostic, severity=Severity.WARNING, message=message)

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.diagnostics)


# How many layers a merged finding names in its message (all are in its `repeats`).
_NAMED_LAYERS = 8


def merge_repeats(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """One diagnostic per cause and file for the rules that are a converter's habit
    (`Rule.repeats`): findings of the same code and message on several layers become the
    first of them, whose message ends with how many layers and which, and whose `repeats`
    hold the others (each with its place and fix)."""
    groups: dict[tuple[str, str, str], list[Diagnostic]] = {}
    for diagnostic in diagnostics:
        if RULES[diagnostic.code].repeats and diagnostic.layer_id is not None:
            key = (diagnostic.path, diagnostic.code, diagnostic.message)
            groups.setdefault(key, []).append(diagnostic)
    merged: dict[int, Diagnostic] = {}
    repeated: set[int] = set()
    for group in groups.values():
        if len(group) < 2:
            continue
        first, *others = sorted(group, key=Diagnostic.sort_key)
        named = [f'"{d.layer_name}"' if d.layer_name else f"layer {d.layer_id}" for d in group]
        shown = ", ".join(named[:_NAMED_LAYERS])
        if len(named) > _NAMED_LAYERS:
            shown += f" and {len(named) - _NAMED_LAYERS} more"
        message = f"{first.message} (on {len(group)} layers: {shown})"
        merged[id(first)] = replace(first, message=message, repeats=tuple(others))
        repeated.update(id(d) for d in others)
    return [merged.get(id(d), d) for d in diagnostics if id(d) not in repeated]


class IRError(Exception):
    """Raised when a file cannot be read as IR at all, or a model or its inputs cannot be run.

    `diagnostics` carries the reasons as records, ready for any formatter.
    """

    def __init__(self, message: str, diagnostics: list[Diagnostic] | None = None) -> None:
        super().__init__(message)
        self.diagnostics: list[Diagnostic] = list(diagnostics or [])
