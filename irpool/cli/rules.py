"""`irpool rules`: the rule catalog."""

from __future__ import annotations

import click

from irpool.rules import RULES


@click.command()
def command() -> None:
    """List every rule irpool reports: code, name, default severity, summary."""
    width = max(len(rule.name) for rule in RULES.values())
    for rule in RULES.values():
        click.echo(f"{rule.code}  {rule.name:<{width}}  {rule.severity.value:<7}  {rule.summary}")
