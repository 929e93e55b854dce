"""SARIF 2.1.0, as GitHub code scanning accepts it: one run whose driver lists the rules that
fired (id, name, short and full description, help), and one result per diagnostic with a
relative URI and a full region. Validated in the tests against the OASIS schema."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

from irpool.diagnostics import Diagnostic
from irpool.rules import RULES, Rule, Severity

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


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
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": flowed(rule.doc)},
        "help": {"text": text, "markdown": markdown},
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
    }


def _uri(path: str) -> str:
    """Paths below the working directory stay relative (GitHub resolves them against the
    checkout); others become file: URIs."""
    posix = PurePosixPath(path)
    return posix.as_uri() if posix.is_absolute() else quote(path, safe="/")


def _result(d: Diagnostic, index: int) -> dict[str, Any]:
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
                    "artifactLocation": {"uri": _uri(d.path)},
                    "region": {
                        "startLine": d.line,
                        "startColumn": d.column,
                        "endLine": end_line,
                        "endColumn": end_column,
                    },
                }
            }
        ],
    }


def render(diagnostics: Sequence[Diagnostic], version: str) -> str:
    fired = [code for code in RULES if any(d.code == code for d in diagnostics)]
    index = {code: i for i, code in enumerate(fired)}
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
                "columnKind": "unicodeCodePoints",
                "results": [_result(d, index[d.code]) for d in diagnostics],
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
