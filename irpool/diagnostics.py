"""Diagnostics are plain data: every check produces them, every formatter only renders them."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from irpool.rules import RULES, Severity


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

    def add(
        self,
        code: str,
        message: str,
        span: Span,
        layer: tuple[str | None, str | None] = (None, None),
    ) -> None:
        self.diagnostics.append(
            Diagnostic(
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
        )

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
