"""How one `irpool validate` run is set up: the configuration file's settings become the
options' defaults (click's `default_map`), the command line's win, and whether the terminal
gets colour."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

import click
from click.core import ParameterSource

from irpool.cli.app import EXIT_USAGE, UsageError
from irpool.config import Config, ConfigError, load_config, unknown_selectors
from irpool.rules import Severity


class ConfigProblem(click.ClickException):
    """A configuration error: exit 2, like any other usage error."""

    exit_code = EXIT_USAGE


class CommaList(click.ParamType[tuple[str, ...]]):
    """A comma-separated option's items. A tuple, as the configuration gives through
    `default_map`, is already converted and passes as it is (click's contract for types)."""

    name = "list"

    def convert(
        self, value: str | tuple[str, ...], param: click.Parameter | None, ctx: click.Context | None
    ) -> tuple[str, ...]:
        if isinstance(value, tuple):
            return value
        return tuple(item.strip() for item in value.split(",") if item.strip())


COMMA_LIST = CommaList()
# Where `read_configuration` leaves the file's settings for the command (click's ctx.meta).
_SEEN, _CONFIG = "irpool.configuration-options", "irpool.configuration"


def read_configuration(ctx: click.Context, param: click.Parameter, value: object) -> object:
    """The callback of --config and --isolated. Both are eager, so click processes them
    before every other option: once both are known, the configuration is read and its
    settings become the other options' defaults (`ctx.default_map`), so that an option given
    on the command line wins and one not given takes the file's value."""
    seen = ctx.meta.setdefault(_SEEN, {})
    seen[param.name] = value
    if len(seen) < 2:
        return value
    config_path, isolated = seen["config_path"], seen["isolated"]
    if config_path is not None and isolated:
        raise UsageError("--config reads a configuration and --isolated ignores them; pick one")
    try:
        config = load_config(config_path, isolated, Path.cwd())
    except ConfigError as error:
        raise ConfigProblem(str(error)) from None
    ctx.meta[_CONFIG] = config
    ctx.default_map = {**(ctx.default_map or {}), **_option_defaults(config)}
    return value


def _option_defaults(config: Config) -> dict[str, object]:
    """The configuration's settings under the names of the options that override them.
    `extend-exclude` is not among them: the command line's extends the file's."""
    return {
        "select": config.select,
        "ignore": config.ignore,
        "fail_on": config.fail_on.value,
        "output_format": config.format,
        "exclude": config.exclude,
        "respect_gitignore": config.respect_gitignore,
        "force_exclude": config.force_exclude,
        "openvino_version": config.openvino_version,
    }


@dataclass(frozen=True, slots=True)
class Settings:
    """The options the configuration gives defaults for, as the command received them."""

    select: tuple[str, ...]
    ignore: tuple[str, ...]
    fail_on: str
    output_format: str
    exclude: tuple[str, ...]
    extend_exclude: tuple[str, ...]
    respect_gitignore: bool
    force_exclude: bool
    openvino_version: str | None


def configure(ctx: click.Context, settings: Settings) -> Config:
    """The file's configuration with the command line's settings on top. A selector given on
    the command line that names no rule, or a selection of nothing, is a usage error: a
    typo must never make CI check less (the file's were checked when it was read)."""
    for option in ("select", "ignore"):
        given = ctx.get_parameter_source(option) is not ParameterSource.DEFAULT_MAP
        unknown = unknown_selectors(getattr(settings, option)) if given else []
        if unknown:
            names = ", ".join(repr(s) for s in unknown)
            raise UsageError(f"--{option} names no rule: {names} (see `irpool rules`)")
    if settings.select == ():
        raise UsageError("--select names no rule, so nothing would be checked")
    config: Config = ctx.meta[_CONFIG]
    return replace(
        config,
        select=settings.select,
        ignore=settings.ignore,
        fail_on=Severity(settings.fail_on),
        format=settings.output_format,
        exclude=settings.exclude,
        extend_exclude=config.extend_exclude + settings.extend_exclude,
        respect_gitignore=settings.respect_gitignore,
        force_exclude=settings.force_exclude,
        openvino_version=settings.openvino_version,
    )


def wants_colour(is_terminal: bool) -> bool:
    """Colour for a terminal; NO_COLOR (any value) turns it off and FORCE_COLOR on, NO_COLOR
    winning when both are set, as Python's own interpreter decides (no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return is_terminal and os.environ.get("TERM") != "dumb"
