"""`--fix`: rewrite declared values to what the runtime actually uses, and nothing else.

A fix is only made where it is certain: the runtime ignores (or reads differently) the value
being replaced, so rewriting it cannot change what runs. The file is never re-serialised (lxml
would drop the XML declaration and change quoting): each value is located as a byte range,
checked to hold exactly the text lxml read, and replaced in place, so every other byte of the
file (BOM, declaration, comments, whitespace, CRLF) is kept. The result is validated again
before it is written, through a temporary file and an atomic rename.
"""

from __future__ import annotations

import codecs
import difflib
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from irpool.diagnostics import Diagnostic, Edit, IRError
from irpool.model import Model, load


class FixError(Exception):
    """The fixes for a file cannot be applied with certainty, so the file is left alone."""


@dataclass(frozen=True, slots=True)
class Fix:
    """Replace source characters [start, end) with `text`; `resolves` are the diagnostics it
    settles. Offsets index the decoded text of `Model.document.source`."""

    start: int
    end: int
    text: str
    message: str
    resolves: tuple[Diagnostic, ...]


def find_fixes(selected: Sequence[Diagnostic]) -> list[Fix]:
    """The fixes of the selected (reported) diagnostics: the edits they carry, one per place.
    Where edits write one place differently, the one that settles the others' codes wins;
    if none does, that place is left for a person."""
    by_place: dict[tuple[int, int], list[Diagnostic]] = {}
    for diagnostic in selected:
        if diagnostic.edit is not None:
            place = (diagnostic.edit.start, diagnostic.edit.end)
            by_place.setdefault(place, []).append(diagnostic)
    fixes = []
    for found in by_place.values():
        edit = _winner(found)
        if edit is not None:
            resolves = tuple(d for d in found if _text(d) == edit.text or d.code in edit.settles)
            fixes.append(Fix(edit.start, edit.end, edit.text, edit.message, resolves))
    return sorted(fixes, key=lambda fix: fix.start)


def _text(diagnostic: Diagnostic) -> str | None:
    return None if diagnostic.edit is None else diagnostic.edit.text


def _winner(found: Sequence[Diagnostic]) -> Edit | None:
    for diagnostic in found:
        edit = diagnostic.edit
        assert edit is not None
        others = {d.code for d in found if _text(d) != edit.text}
        if others <= edit.settles:
            return edit
    return None


def apply_fixes(data: bytes, model: Model, fixes: Sequence[Fix]) -> bytes:
    """`data` (the file's bytes) with every fix applied to exactly its own byte range."""
    text = model.document.source.text
    codec = _codec(model)
    bom = codecs.BOM_UTF8 if codec == "utf-8" and data.startswith(codecs.BOM_UTF8) else b""
    try:
        exact = bom + text.encode(codec) == data
    except UnicodeEncodeError:
        exact = False
    if not exact or codec.startswith(("utf-16", "utf-32")):
        raise FixError(f"cannot map the {codec} text to its bytes exactly")
    pieces: list[bytes] = [bom]
    position = len(bom)  # byte offset of `text_position`, both advancing fix by fix
    text_position = 0
    for fix in sorted(fixes, key=lambda f: f.start):
        if fix.start < text_position:
            raise FixError("two fixes overlap")
        start = position + len(text[text_position : fix.start].encode(codec))
        end = start + len(text[fix.start : fix.end].encode(codec))
        pieces += [data[position:start], fix.text.encode(codec)]
        position, text_position = end, fix.end
    pieces.append(data[position:])
    return b"".join(pieces)


def _codec(model: Model) -> str:
    encoding = model.document.root.getroottree().docinfo.encoding or "utf-8"
    try:
        return codecs.lookup(encoding).name
    except LookupError:
        raise FixError(f"unknown encoding {encoding}") from None


def verify(fixed: bytes, weights: Path, before: Sequence[Diagnostic], fixes: Sequence[Fix]) -> None:
    """Validate the fixed bytes: every settled diagnostic must be gone and nothing new appear.

    `before` is every diagnostic of the original file, unfiltered by configuration.
    """
    import tempfile  # here, as in write_atomically: `validate` without --fix never needs it

    with tempfile.TemporaryDirectory(prefix="irpool-fix-") as directory:
        candidate = Path(directory) / "model.xml"
        candidate.write_bytes(fixed)
        try:
            after = load(candidate, weights).validate()
        except IRError as error:
            raise FixError(f"the fixed file no longer loads: {error}") from None
    allowed = Counter(d.code for d in before)
    allowed.subtract(d.code for fix in fixes for d in fix.resolves)
    for code, count in Counter(d.code for d in after).items():
        if count > allowed[code]:
            raise FixError(f"validating the fixed file still finds {count} {code}")


def write_atomically(path: Path, data: bytes) -> None:
    """Replace the file's content in one rename, keeping its permissions (and any symlink)."""
    import shutil  # with tempfile: bz2, lzma, random; 4-5 ms of every start otherwise
    import tempfile

    target = path.resolve()
    descriptor, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".irpool"
    )
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        shutil.copymode(target, temporary)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def unified_diff(display_path: str, before: bytes, after: bytes, model: Model) -> str:
    """The change as a unified diff (a/ and b/ prefixes, as git prints them)."""
    codec = _codec(model)
    old = before.decode(codec, errors="replace").splitlines(keepends=True)
    new = after.decode(codec, errors="replace").splitlines(keepends=True)
    lines = difflib.unified_diff(old, new, f"a/{display_path}", f"b/{display_path}")
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
