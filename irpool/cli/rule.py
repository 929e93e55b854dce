"""`irpool rule CODE`: one rule's full documentation, read from the rule catalog itself."""

from __future__ import annotations

import textwrap

import click

from irpool.cli.app import UsageError
from irpool.rules import FAMILIES, RULES, RULES_BY_NAME, Rule

RUNTIME = {
    "rejects": "OpenVINO refuses such a file",
    "reinterprets": "OpenVINO loads it but runs something other than what is written",
    "ignores": "OpenVINO loads it and ignores what is written",
    "crashes": "OpenVINO reads it but its CPU plugin cannot compile it",
    "fails": "OpenVINO compiles it but its CPU plugin fails at inference",
    "sometimes": "OpenVINO reads it but its CPU plugin crashes in some runs",
    "extension": "OpenVINO reads it only with the extension library that defines the op loaded",
}


def find_rule(name: str) -> Rule:
    """A rule by code (any case) or by name."""
    rule = RULES.get(name.upper()) or RULES_BY_NAME.get(name.lower())
    if rule is None:
        raise UsageError(f"no rule {name!r}; `irpool rules` lists them all")
    return rule


def family_of(name: str) -> frozenset[str] | None:
    """The codes a family selector (IR214, compile-crash) names, or None."""
    return FAMILIES.get(name.upper()) or FAMILIES.get(name.lower())


def render_family(codes: frozenset[str]) -> str:
    names = " or ".join(alias for alias, family in FAMILIES.items() if family == codes)
    lines = [
        f"{names}: a family of rules, each one cause the CPU plugin cannot compile or run.",
        "Selecting, ignoring or suppressing the family selects, ignores or suppresses them all:",
        "",
        *(f"  {code}  {RULES[code].name}: {RULES[code].summary}" for code in sorted(codes)),
    ]
    return "\n".join(lines) + "\n"


def render(rule: Rule) -> str:
    indent = "    "
    lines = [
        f"{rule.code} {rule.name}",
        "",
        f"Default severity: {rule.severity.value}. Runtime: {RUNTIME[rule.runtime]}.",
        f"Fix: `irpool validate --fix` {rule.fix}." if rule.fix else "Fix: by hand.",
        "",
        rule.summary,
        "",
        rule.doc,
        "",
        "Wrong:",
        textwrap.indent(rule.wrong, indent),
        "",
        "Right:",
        textwrap.indent(rule.right, indent),
    ]
    return "\n".join(lines) + "\n"


@click.command()
@click.argument("code")
def command(code: str) -> None:
    """Document one rule, with a wrong and a right IR snippet.

    CODE is a rule code or name, such as IR301 or declared-dim-mismatch, or a family
    (IR214: every CPU refusal).
    """
    family = family_of(code)
    click.echo(render_family(family) if family else render(find_rule(code)), nl=False)
