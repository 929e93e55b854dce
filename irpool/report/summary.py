"""The human summary after a report: per-file counts, per-rule statistics, what was fixed.

In the text formats it follows the diagnostics on stdout; with a machine format it goes to
stderr, so stdout carries only the document.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence

from irpool.diagnostics import Diagnostic
from irpool.rules import RULES, Severity


def per_file(files: Sequence[tuple[str, Sequence[Diagnostic]]]) -> str:
    """A table of the files with findings, counts first so the columns line up."""
    rows = [(path, found) for path, found in files if found]
    if not rows:
        return ""
    lines = ["  errors  warnings  infos  file"]
    for path, found in rows:
        counts = Counter(d.severity for d in found)
        lines.append(
            f"{counts[Severity.ERROR]:>8}  {counts[Severity.WARNING]:>8}  "
            f"{counts[Severity.INFO]:>5}  {path}"
        )
    clean = len(files) - len(rows)
    if clean:
        lines.append(f"{clean} other file{'s' if clean != 1 else ''} had no findings")
    return "\n".join(lines) + "\n"


def statistics(diagnostics: Sequence[Diagnostic], fixable: Collection[Diagnostic]) -> str:
    """Findings per rule, most frequent first: count, code, [*] when --fix can fix it, name."""
    counts = Counter(d.code for d in diagnostics)
    fixable_codes = {d.code for d in fixable}
    lines = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        mark = "[*]" if code in fixable_codes else "   "
        lines.append(f"{count:>6}  {code}  {mark} {RULES[code].name}")
    return "\n".join(lines) + "\n" if lines else ""


def fixes(fixed: int, fixed_files: int, fixable: int, preview: bool) -> str:
    """What --fix did (or --diff would do), or how many findings it could fix."""
    problems = f"{fixed} problem{'s' if fixed != 1 else ''}"
    files = f"{fixed_files} file{'s' if fixed_files != 1 else ''}"
    if preview:
        return f"Would fix {problems} in {files}.\n"
    if fixed:
        return f"Fixed {problems} in {files}.\n"
    if fixable:
        return f"[*] {fixable} fixable with `irpool validate --fix` (preview: --diff).\n"
    return ""
