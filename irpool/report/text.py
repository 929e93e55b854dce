"""Human formats. `concise`: one `path:line:col: CODE severity message [layer id "name"]` line
per diagnostic. `text` (the default): the same line, then the offending source line with a
caret under the exact value, the rule's name and where its documentation is, and the fix
`--fix` would make. Both end with a summary line, and are coloured when asked (`colour`).

A line never holds a raw control character: a layer name or path with a newline, CR or an
escape sequence is shown escaped (`\\n`), so one finding is always one line and cannot
repaint the terminal."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from irpool.diagnostics import Diagnostic
from irpool.rules import RULES, Severity

if TYPE_CHECKING:
    from irpool.check.coverage import Coverage

TAB_WIDTH = 4
MAX_EXCERPT = 160  # columns of source shown around the caret
# ANSI styles: bold for the position, the severity's colour for the code and the caret.
BOLD = "1"
SEVERITY_STYLES = {Severity.ERROR: "1;31", Severity.WARNING: "1;33", Severity.INFO: "1;36"}


def paint(text: str, style: str, colour: bool) -> str:
    return f"\x1b[{style}m{text}\x1b[0m" if colour else text


def one_line(text: str) -> str:
    """Control characters (C0, DEL, C1) and Unicode line separators escaped, as Python
    escapes them (`\\n`, `\\x1b`, `\\u2028`); everything else as it is."""
    if text.isprintable():
        return text
    return "".join(
        c.encode("unicode_escape").decode("ascii")
        if c < " " or "\x7f" <= c < "\xa0" or c in "\u2028\u2029"
        else c
        for c in text
    )


def layer_suffix(d: Diagnostic) -> str:
    """` [layer 1 "pool"]`: the layer a finding concerns, as every line format ends."""
    if d.layer_id is None:
        return ""
    return f' [layer {one_line(d.layer_id)} "{one_line(d.layer_name or "")}"]'


def render_line(d: Diagnostic, colour: bool = False) -> str:
    layer = layer_suffix(d)
    position = paint(f"{one_line(d.path)}:{d.line}:{d.column}:", BOLD, colour)
    code = paint(d.code, SEVERITY_STYLES[d.severity], colour)
    return f"{position} {code} {d.severity.value} {one_line(d.message)}{layer}"


def summary(
    diagnostics: Sequence[Diagnostic],
    files: int,
    skipped: int = 0,
    coverage: Coverage | None = None,
) -> str:
    """The totals, and what was checked in the files read (`coverage`); `skipped` counts
    the .xml files found by walking that are not IR."""
    counts = {s: sum(1 for d in diagnostics if d.severity is s) for s in Severity}
    parts = [f"{counts[s]} {s.value}{'s' if counts[s] != 1 else ''}" for s in Severity]
    noun = "file" if files == 1 else "files"
    covered = f" ({coverage.describe()})" if coverage is not None and coverage.layers else ""
    line = f"Checked {files} {noun}: " + ", ".join(parts) + covered + "."
    if skipped:
        noun = "file" if skipped == 1 else "files"
        line += f" Skipped {skipped} .xml {noun} whose root element is not <net>."
    return line


def render(diagnostics: Sequence[Diagnostic], files: int) -> str:
    """The concise report: one line per diagnostic, then the summary line."""
    lines = [render_line(d) for d in diagnostics]
    lines.append(summary(diagnostics, files))
    return "\n".join(lines) + "\n"


def render_full(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, str],
    fixes: Mapping[Diagnostic, str],
    colour: bool = False,
) -> str:
    """Each diagnostic with its source excerpt; `sources` maps a path to the file's text and
    `fixes` a diagnostic to what `--fix` would write."""
    blocks = []
    split: dict[str, list[str]] = {}  # each file's lines, split once however many findings
    for d in diagnostics:
        lines = [render_line(d, colour)]
        gutter = len(str(d.line)) + 1
        source = sources.get(d.path)
        if source is not None:
            if d.path not in split:
                split[d.path] = source.split("\n")
            lines += excerpt(split[d.path], d, gutter, colour)
        pad = " " * gutter
        lines.append(f"{pad}= rule: {RULES[d.code].name} (irpool rule {d.code})")
        if d in fixes:
            lines.append(f"{pad}= fix: {fixes[d]} (irpool validate --fix)")
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


def excerpt(lines: Sequence[str], d: Diagnostic, gutter: int, colour: bool = False) -> list[str]:
    """The diagnostic's first line, and a caret line under its columns (1-based, end
    exclusive; a range running past the line is underlined to the line's end)."""
    if not 1 <= d.line <= len(lines):
        return []
    raw = lines[d.line - 1].rstrip("\r")
    start = min(max(d.column, 1), len(raw) + 1) - 1
    end = d.end_column - 1 if d.end_line == d.line else len(raw)
    end = min(max(end, start + 1), max(len(raw), start + 1))
    shown = _printable(raw).expandtabs(TAB_WIDTH)
    left = len(raw[:start].expandtabs(TAB_WIDTH))
    width = max(len(raw[:end].expandtabs(TAB_WIDTH)) - left, 1)
    shown, left, width = _window(shown, left, width)
    number = str(d.line).rjust(gutter - 1)
    caret = paint("^" * width, SEVERITY_STYLES[d.severity], colour)
    return [f"{number} | {shown}".rstrip(), f"{' ' * gutter}| {' ' * left}{caret}"]


def _printable(line: str) -> str:
    """Control characters (C0, DEL, C1) would garble a terminal; show them as one
    replacement each."""
    return "".join(
        c if c == "\t" or (c >= " " and not "\x7f" <= c < "\xa0") else "\ufffd" for c in line
    )


def _window(shown: str, left: int, width: int) -> tuple[str, int, int]:
    """A long line (minified XML) is cut to MAX_EXCERPT columns around the caret."""
    if len(shown) <= MAX_EXCERPT:
        return shown, left, width
    begin = max(0, min(left - MAX_EXCERPT // 3, len(shown) - MAX_EXCERPT))
    prefix = "..." if begin else ""
    suffix = "..." if begin + MAX_EXCERPT < len(shown) else ""
    width = max(min(width, begin + MAX_EXCERPT - left), 1)
    return prefix + shown[begin : begin + MAX_EXCERPT] + suffix, left - begin + len(prefix), width
