"""SARIF 2.1.0, as GitHub code scanning accepts it: one run whose driver lists the rules that
fired (id, name, short and full description, help, and a helpUri to the rule's page in
docs/rules/), and one result per diagnostic with a URI relative to %SRCROOT% (the working
directory, given in `originalUriBaseIds`), a full region, and a partial fingerprint that
names the rule and the element (not the line), so a finding keeps its identity when lines
move. Validated in the tests against the OASIS schema."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import metadata
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

from irpool.check.coverage import Coverage
from irpool.diagnostics import Diagnostic
from irpool.report.fingerprint import digest, locate
from irpool.rules import RULES, Rule, Severity

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
SRCROOT = "%SRCROOT%"
FINGERPRINT = "irpool/element/v1"
COVERAGE = "irpool/coverage"


@cache
def docs_url() -> str | None:
    """The `Documentation` URL of irpool's [project.urls], read when a SARIF log is made
    (importing metadata costs start-up time); None when irpool is not installed."""
    try:
        urls = metadata.metadata("irpool").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return None
    for entry in urls:
        label, _, url = str(entry).partition(",")
        if label.strip().lower() == "documentation":
            return url.strip().rstrip("/")
    return None


def help_uri(code: str) -> str | None:
    """The rule's reference page, docs/rules/<CODE>.md (written by tools/gen_rule_docs.py)."""
    base = docs_url()
    return None if base is None else f"{base}/rules/{code}.md"


def flowed(doc: str) -> str:
    """Paragraphs wrapped for the terminal in the catalog, as single lines for viewers."""
    return "\n\n".join(" ".join(p.split("\n")) for p in doc.split("\n\n"))


def rule_help(rule: Rule) -> tuple[str, str]:
    """The rule's documentation as plain text and as Markdown."""
    doc = flowed(rule.doc)
    fix = f"\n\n`irpool validate --fix` {rule.fix}." if rule.fix else ""
    text = f"{doc}\n\nWrong:\n{rule.wrong}\n\nRight:\n{rule.right}{fix}"
    markdown = (
        f"{doc}\n\nWrong:\n\n```xml\n{rule.wrong}\n```\n\nRight:\n\n```xml\n{rule.right}\n```{fix}"
    )
    return text, markdown


def _descriptor(rule: Rule) -> dict[str, Any]:
    text, markdown = rule_help(rule)
    descriptor = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": flowed(rule.doc)},
        "help": {"text": text, "markdown": markdown},
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
    }
    uri = help_uri(rule.code)
    if uri is not None:
        descriptor["helpUri"] = uri
    return descriptor


def _artifact(path: str) -> dict[str, str]:
    """Paths below the working directory stay relative to %SRCROOT% (GitHub resolves them
    against the checkout); others become file: URIs."""
    posix = PurePosixPath(path)
    if posix.is_absolute():
        return {"uri": posix.as_uri()}
    return {"uri": quote(path, safe="/"), "uriBaseId": SRCROOT}


def _directory_uri(directory: Path) -> str:
    """SARIF wants a base URI to end with a slash."""
    uri = directory.as_uri()
    return uri if uri.endswith("/") else uri + "/"


def _elements(text: str | None, diagnostics: Sequence[Diagnostic]) -> dict[Diagnostic, str]:
    """Each diagnostic's element path in the text validated; without a text (the file could
    not be read) the layer only. The file is never opened again: it may be a FIFO."""
    if text is None:
        return {d: f"layer[id={d.layer_id}]" for d in diagnostics}
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def offset(d: Diagnostic) -> int:
        line = min(max(d.line, 1), len(line_starts))
        return line_starts[line - 1] + d.column - 1

    found = locate(text, (offset(d) for d in diagnostics))
    return {d: found[offset(d)] for d in diagnostics}


def fingerprints(
    diagnostics: Sequence[Diagnostic], sources: Mapping[str, str]
) -> dict[Diagnostic, str]:
    """Rule and element, numbered when one element has the same finding more than once;
    `sources` maps a path to the text that was validated."""
    by_file: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        by_file.setdefault(d.path, []).append(d)
    prints: dict[Diagnostic, str] = {}
    for path, found in by_file.items():
        elements = _elements(sources.get(path), found)
        seen: Counter[tuple[str, str]] = Counter()
        for d in found:
            key = (d.code, elements[d])
            seen[key] += 1
            prints[d] = digest(*key, str(seen[key]))
    return prints


def _result(d: Diagnostic, index: int, fingerprint: str) -> dict[str, Any]:
    end_line, end_column = d.end_line, d.end_column
    if (end_line, end_column) <= (d.line, d.column):  # a point: mark one column
        end_line, end_column = d.line, d.column + 1
    layer = f' [layer {d.layer_id} "{d.layer_name}"]' if d.layer_id is not None else ""
    return {
        "ruleId": d.code,
        "ruleIndex": index,
        "level": LEVELS[d.severity],
        "message": {"text": f"{d.message}{layer}"},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": _artifact(d.path),
                    "region": {
                        "startLine": d.line,
                        "startColumn": d.column,
                        "endLine": end_line,
                        "endColumn": end_column,
                    },
                }
            }
        ],
        "partialFingerprints": {FINGERPRINT: fingerprint},
    }


def render(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, str],
    version: str,
    coverage: Coverage | None = None,
) -> str:
    """`coverage`: what was checked in the files read, as the run's `irpool/coverage`
    property (layers, checked, and the layers trusted unchecked by type)."""
    fired = [code for code in RULES if any(d.code == code for d in diagnostics)]
    index = {code: i for i, code in enumerate(fired)}
    prints = fingerprints(diagnostics, sources)
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "irpool",
                        "version": version,
                        "semanticVersion": version,
                        "rules": [_descriptor(RULES[code]) for code in fired],
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": _directory_uri(Path.cwd())}},
                "columnKind": "unicodeCodePoints",
                "results": [_result(d, index[d.code], prints[d]) for d in diagnostics],
                **({} if coverage is None else {"properties": {COVERAGE: coverage.to_dict()}}),
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
