"""`[tool.irpool]` in pyproject.toml: which rules run on which files, how severe they are, what
fails the run, and the default report format.

The closest `pyproject.toml` with a `[tool.irpool]` table, from the working directory upward,
wins; configs are not merged (as in ruff). A key irpool does not know, and a rule selector that
names no rule, are errors (as in ruff): a typo must never silently check less than intended.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from irpool.diagnostics import Diagnostic
from irpool.rules import FAMILIES, RULES, RULES_BY_NAME, Severity

FORMATS = ("text", "concise", "json", "json-with-metadata", "github", "sarif")
FAIL_ON = ("error", "warning")
KEYS = (
    "select",
    "ignore",
    "per-file-ignores",
    "severity",
    "fail-on",
    "format",
    "exclude",
    "extend-exclude",
    "respect-gitignore",
    "force-exclude",
    "openvino-version",
)
# What a directory walk never enters or reports, unless `exclude` replaces the list: hidden
# files and folders (.git, .hg, .venv, .idea, ...) and the usual tool and build folders.
DEFAULT_EXCLUDE = (".*", "venv", "node_modules", "build", "dist", "__pycache__")


class ConfigError(Exception):
    """A configuration that cannot be used; the command line reports it and exits 2."""


@dataclass(frozen=True, slots=True)
class Config:
    """Resolved settings. `root` is the directory per-file-ignores globs are relative to."""

    select: tuple[str, ...] = ("IR",)
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    severity: tuple[tuple[str, Severity], ...] = ()
    fail_on: Severity = Severity.ERROR
    format: str = "text"
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True
    force_exclude: bool = False
    # The release the files must suit (IR230); None: the installed OpenVINO's, else the newest.
    openvino_version: str | None = None
    root: Path | None = None
    source: Path | None = None

    def enabled_codes(self, path: Path) -> frozenset[str]:
        """The codes reported for one file: selected, minus ignored, minus its per-file ignores."""
        codes = resolve(self.select) - resolve(self.ignore)
        relative = self.relative(path)
        for pattern, selectors in self.per_file_ignores:
            if glob_matches(pattern, relative):
                codes -= resolve(selectors)
        return codes

    def severity_of(self, code: str) -> Severity:
        """The overridden severity; the most specific selector (fewest codes) wins."""
        chosen, width = RULES[code].severity, len(RULES) + 1
        for selector, level in self.severity:
            codes = resolve((selector,))
            if code in codes and len(codes) < width:
                chosen, width = level, len(codes)
        return chosen

    def apply(self, diagnostics: Iterable[Diagnostic], path: Path) -> list[Diagnostic]:
        """Drop what is not enabled for this file and apply severity overrides."""
        enabled = self.enabled_codes(path)
        kept = []
        for diagnostic in diagnostics:
            if diagnostic.code not in enabled:
                continue
            level = self.severity_of(diagnostic.code)
            # Only an override changes it: a finding may differ from its rule's default
            # (an error in a layer OpenVINO drops is a warning).
            overridden = level is not RULES[diagnostic.code].severity
            kept.append(replace(diagnostic, severity=level) if overridden else diagnostic)
        return kept

    def fails(self, diagnostic: Diagnostic) -> bool:
        return diagnostic.severity.rank >= self.fail_on.rank

    def excludes(self, relative: str) -> bool:
        """Whether an exclude pattern matches a path (as `relative` gives it) or, for a
        pattern without `/`, its last part."""
        return any(glob_matches(p, relative) for p in (*self.exclude, *self.extend_exclude))

    def relative(self, path: Path) -> str:
        """The path relative to the configuration's directory (else the working directory)
        when below it, as globs match it; otherwise as given."""
        resolved = path.resolve()
        base = self.root if self.root is not None else Path.cwd()
        if resolved.is_relative_to(base):
            return resolved.relative_to(base).as_posix()
        return path.as_posix()


def resolve(selectors: Iterable[str]) -> frozenset[str]:
    """Codes named by selectors: a code (IR301), a prefix (IR3, IR), a rule name, or a family
    (IR214: every CPU refusal)."""
    codes: set[str] = set()
    for selector in selectors:
        codes |= _resolve_one(selector)
    return frozenset(codes)


def unknown_selectors(selectors: Iterable[str]) -> list[str]:
    """The selectors that name no rule."""
    return [selector for selector in selectors if not _resolve_one(selector)]


def _resolve_one(selector: str) -> set[str]:
    if selector in RULES_BY_NAME:
        return {RULES_BY_NAME[selector].code}
    family = FAMILIES.get(selector.upper()) or FAMILIES.get(selector.lower())
    if family is not None:
        return set(family)
    prefix = selector.upper()
    return {code for code in RULES if code.startswith(prefix)} if prefix else set()


def glob_matches(pattern: str, relative: str) -> bool:
    """gitignore-like globs: `**` spans directories, `*` and `?` stay within one; a pattern
    without `/` also matches the file name alone."""
    regex = _glob_regex(pattern)
    if regex.fullmatch(relative):
        return True
    return "/" not in pattern and regex.fullmatch(relative.rsplit("/", 1)[-1]) is not None


@functools.lru_cache(maxsize=256)  # a directory walk matches the same few patterns often
def _glob_regex(pattern: str) -> re.Pattern[str]:
    parts: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**/", index):
            parts.append("(?:.*/)?")
            index += 3
            continue
        if pattern.startswith("**", index):
            parts.append(".*")
            index += 2
            continue
        if char == "*":
            parts.append("[^/]*")
        elif char == "?":
            parts.append("[^/]")
        elif char == "[" and "]" in pattern[index + 1 :]:
            end = pattern.index("]", index + 1)
            body = pattern[index + 1 : end].replace("\\", "\\\\")
            parts.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
            index = end
        else:
            parts.append(re.escape(char))
        index += 1
    return re.compile("".join(parts))


def discover(start: Path) -> Path | None:
    """The closest pyproject.toml at or above `start` that has a [tool.irpool] table."""
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file() and _irpool_table(candidate, required=False) is not None:
            return candidate
    return None


def load_config(explicit: Path | None, isolated: bool, cwd: Path) -> Config:
    """The settings for this run: `--isolated` uses defaults, `--config` names the file,
    otherwise the closest pyproject.toml with [tool.irpool] (or defaults if none)."""
    if isolated:
        return Config()
    path = explicit if explicit is not None else discover(cwd)
    if path is None:
        return Config()
    table = _irpool_table(path, required=True)
    assert table is not None
    return parse_table(table, path)


def _irpool_table(path: Path, required: bool) -> dict[str, Any] | None:
    """[tool.irpool] of a pyproject.toml; any other TOML file is read as that table itself."""
    import tomllib  # here: only a configuration file found needs it (start-up time)

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    if path.name != "pyproject.toml":
        return data
    tool = data.get("tool")
    table = tool.get("irpool") if isinstance(tool, dict) else None
    if table is None and required:
        raise ConfigError(f"{path}: no [tool.irpool] table")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: tool.irpool must be a table")
    return table


def parse_table(table: dict[str, Any], source: Path) -> Config:
    """Check every key and value; unknown keys and bad values raise ConfigError."""
    where = f"{source}: [tool.irpool]" if source.name == "pyproject.toml" else str(source)
    for key in table:
        if key not in KEYS:
            raise ConfigError(f"{where}: unknown key '{key}' (known keys: {', '.join(KEYS)})")

    def selectors(key: str, value: Any) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}: '{key}' must be a list of rule codes or names")
        _check_selectors(f"{where}: '{key}'", value)
        return tuple(value)

    config = Config(root=source.parent.resolve(), source=source)
    if "select" in table:
        config = replace(config, select=selectors("select", table["select"]))
        if not config.select:
            raise ConfigError(f"{where}: 'select' is empty, so nothing would be checked")
    if "ignore" in table:
        config = replace(config, ignore=selectors("ignore", table["ignore"]))
    if "per-file-ignores" in table:
        globs = _table_of(where, "per-file-ignores", table["per-file-ignores"])
        pairs = tuple(
            (pattern, selectors(f"per-file-ignores.{pattern}", codes))
            for pattern, codes in globs.items()
        )
        config = replace(config, per_file_ignores=pairs)
    if "severity" in table:
        levels = _table_of(where, "severity", table["severity"])
        config = replace(config, severity=_severities(where, levels))
    if "fail-on" in table:
        config = replace(
            config, fail_on=Severity(_choice(where, "fail-on", table["fail-on"], FAIL_ON))
        )
    if "format" in table:
        config = replace(config, format=_choice(where, "format", table["format"], FORMATS))
    if "exclude" in table:
        config = replace(config, exclude=_globs(where, "exclude", table["exclude"]))
    if "extend-exclude" in table:
        extra = _globs(where, "extend-exclude", table["extend-exclude"])
        config = replace(config, extend_exclude=extra)
    if "respect-gitignore" in table:
        flag = _flag(where, "respect-gitignore", table["respect-gitignore"])
        config = replace(config, respect_gitignore=flag)
    if "force-exclude" in table:
        config = replace(
            config, force_exclude=_flag(where, "force-exclude", table["force-exclude"])
        )
    if "openvino-version" in table:
        config = replace(config, openvino_version=_release(where, table["openvino-version"]))
    return config


def _release(where: str, value: Any) -> str:
    from irpool.check.releases import ReleaseError, parse_release

    if not isinstance(value, str):
        raise ConfigError(f"{where}: 'openvino-version' must be a string such as \"2023.0\"")
    try:
        parse_release(value)
    except ReleaseError as error:
        raise ConfigError(f"{where}: 'openvino-version': {error}") from None
    return value


def _check_selectors(where: str, selectors: Iterable[str]) -> None:
    unknown = unknown_selectors(selectors)
    if unknown:
        names = ", ".join(repr(s) for s in unknown)
        raise ConfigError(f"{where} names no rule: {names} (see `irpool rules`)")


def _flag(where: str, key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: '{key}' must be true or false")
    return value


def _globs(where: str, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"{where}: '{key}' must be a list of glob patterns")
    return tuple(value)


def _table_of(where: str, key: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: '{key}' must be a table")
    return value


def _severities(where: str, levels: dict[str, Any]) -> tuple[tuple[str, Severity], ...]:
    choices = tuple(s.value for s in Severity)
    result = []
    _check_selectors(f"{where}: 'severity'", levels)
    for selector, level in levels.items():
        result.append((selector, Severity(_choice(where, f"severity.{selector}", level, choices))))
    return tuple(result)


def _choice(where: str, key: str, value: Any, choices: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise ConfigError(f"{where}: '{key}' must be one of {', '.join(choices)}, not {value!r}")
    return value
