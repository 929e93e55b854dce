"""Diagnostics are plain data: every check produces them, every formatter only renders them."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, replace
from typing import Any

from irpool.rules import RULES, Code, Severity


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

    @property
    def name(self) -> str:
        return RULES[self.code].name

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.line, self.column, self.code)

    def to_dict(self) -> dict[str, Any]:
        record = asdict(self)
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
    ) -> None:
        """`about_dropped`: the finding concerns a dropped layer other than `layer` (an edge
        into one), and is demoted like the findings inside it."""
        diagnostic = Diagnostic(
            code=code,
            severity=RULES[code].severity,
            message=message,
            path=self.path,
            line=span.line,
            column=span.column,
            end_line=span.end_line,
            end_column=span.end_column,
            layer_id=layer[0],
            layer_name=layer[1],
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


class IRError(Exception):
    """Raised when a file cannot be read as IR at all, or a model or its inputs cannot be run.

    `diagnostics` carries the reasons as records, ready for any formatter.
    """

    def __init__(self, message: str, diagnostics: list[Diagnostic] | None = None) -> None:
        super().__init__(message)
        self.diagnostics: list[Diagnostic] = list(diagnostics or [])
