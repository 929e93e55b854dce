"""How one `irpool validate` run is set up: the configuration file, the command line's
overrides on top, and whether the terminal gets colour."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

import click

from irpool.cli.app import EXIT_USAGE, UsageError
from irpool.config import Config, ConfigError, load_config, unknown_selectors
from irpool.rules import Severity


class ConfigProblem(click.ClickException):
    """A configuration error: exit 2, like any other usage error."""

    exit_code = EXIT_USAGE


def _list(value: str | None) -> tuple[str, ...] | None:
    """A comma-separated option's items (None when the option is not given)."""
    return None if value is None else tuple(s.strip() for s in value.split(",") if s.strip())


@dataclass(frozen=True, slots=True)
class Overrides:
    """The command line's settings, which replace the configuration's."""

    select: str | None = None
    ignore: str | None = None
    fail_on: str | None = None
    exclude: str | None = None
    extend_exclude: str | None = None
    respect_gitignore: bool | None = None
    force_exclude: bool | None = None


def configure(config_path: Path | None, isolated: bool, overrides: Overrides) -> Config:
    """The file's settings, then the command line's on top. A selector naming no rule, or a
    selection of nothing, is a usage error: a typo must never make CI check less."""
    if config_path is not None and isolated:
        raise UsageError("--config reads a configuration and --isolated ignores them; pick one")
    try:
        config = load_config(config_path, isolated, Path.cwd())
    except ConfigError as error:
        raise ConfigProblem(str(error)) from None
    chosen, dropped = _list(overrides.select), _list(overrides.ignore)
    for option, selectors in (("--select", chosen), ("--ignore", dropped)):
        unknown = unknown_selectors(selectors or ())
        if unknown:
            names = ", ".join(repr(s) for s in unknown)
            raise UsageError(f"{option} names no rule: {names} (see `irpool rules`)")
    if chosen == ():
        raise UsageError("--select names no rule, so nothing would be checked")
    if chosen is not None:
        config = replace(config, select=chosen)
    if dropped is not None:
        config = replace(config, ignore=dropped)
    if overrides.fail_on is not None:
        config = replace(config, fail_on=Severity(overrides.fail_on))
    excluded, extended = _list(overrides.exclude), _list(overrides.extend_exclude)
    if excluded is not None:
        config = replace(config, exclude=excluded)
    if extended is not None:
        config = replace(config, extend_exclude=config.extend_exclude + extended)
    if overrides.respect_gitignore is not None:
        config = replace(config, respect_gitignore=overrides.respect_gitignore)
    if overrides.force_exclude is not None:
        config = replace(config, force_exclude=overrides.force_exclude)
    return config


def wants_colour(is_terminal: bool) -> bool:
    """Colour for a terminal; NO_COLOR (any value) turns it off and FORCE_COLOR on, NO_COLOR
    winning when both are set, as Python's own interpreter decides (no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return is_terminal and os.environ.get("TERM") != "dumb"
