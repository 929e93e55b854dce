"""`irpool rules`: the rule catalog, as a table or as JSON for tools."""

from __future__ import annotations

import json

import click

from irpool.rules import RULES


@click.command()
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
)
def command(output_format: str) -> None:
    """List every rule irpool reports: code, name, default severity, summary."""
    if output_format == "json":
        catalog = [
            {
                "code": rule.code,
                "name": rule.name,
                "severity": rule.severity.value,
                "runtime": rule.runtime,
                "summary": rule.summary,
                "fixable": rule.fixable,
            }
            for rule in RULES.values()
        ]
        click.echo(json.dumps(catalog, indent=2, ensure_ascii=False))
        return
    width = max(len(rule.name) for rule in RULES.values())
    for rule in RULES.values():
        click.echo(f"{rule.code}  {rule.name:<{width}}  {rule.severity.value:<7}  {rule.summary}")
