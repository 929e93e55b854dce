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
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from irpool.check.suppression import removable
from irpool.diagnostics import Diagnostic, IRError
from irpool.graph.model import Layer, Port
from irpool.model import Model, load
from irpool.ops.avg_pool import AvgPoolBase
from irpool.ops.base import TensorInfo
from irpool.parse.values import read_dim
from irpool.rules import (
    DECLARED_DIM_MISMATCH,
    NON_CANONICAL_DIM,
    OVERWRITTEN_PADS,
    REINTERPRETED_DIM,
    UNUSED_SUPPRESSION,
)

DIM_CODES = frozenset({REINTERPRETED_DIM, NON_CANONICAL_DIM, DECLARED_DIM_MISMATCH})
FIXABLE = DIM_CODES | {OVERWRITTEN_PADS, UNUSED_SUPPRESSION}


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


def find_fixes(model: Model, selected: Sequence[Diagnostic]) -> list[Fix]:
    """The certain fixes for the selected (reported) diagnostics of a loaded model."""
    stale = [d for d in selected if d.code == UNUSED_SUPPRESSION]
    fixes = [
        Fix(start, end, "", "delete the suppression", resolves)
        for start, end, resolves in removable(model.document, stale)
    ]
    by_position: dict[tuple[int, int], list[Diagnostic]] = {}
    for diagnostic in selected:
        if diagnostic.code in FIXABLE - {UNUSED_SUPPRESSION}:
            by_position.setdefault((diagnostic.line, diagnostic.column), []).append(diagnostic)
    if not by_position:
        return fixes
    for layer in model.graph.layers.values():
        for port, info in _ports_with_tensors(model, layer):
            fixes.extend(_dim_fixes(model, layer.port_element(port), info, by_position))
        fixes.extend(_pad_fixes(model, layer, by_position))
    return sorted(fixes, key=lambda fix: fix.start)


def _inferred(model: Model, layer_id: int, index: int) -> TensorInfo | None:
    """A tensor irpool inferred itself (not one it took from a declaration)."""
    if layer_id in model.inference.trusted:
        return None
    produced = model.inference.outputs.get(layer_id)
    if produced is None or index >= len(produced) or produced[index].trusted:
        return None
    return produced[index]


def _ports_with_tensors(model: Model, layer: Layer) -> Iterator[tuple[Port, TensorInfo | None]]:
    for index, port in enumerate(layer.outputs):
        yield port, _inferred(model, layer.id, index)
    for index, port in enumerate(layer.inputs):
        source = model.graph.producers.get((layer.id, index))
        yield port, None if source is None else _inferred(model, *source)


def _dim_fixes(
    model: Model,
    port: etree._Element,
    info: TensorInfo | None,
    by_position: dict[tuple[int, int], list[Diagnostic]],
) -> Iterator[Fix]:
    source = model.document.source
    dims = port.findall("dim")
    expected: list[int] | None = None
    if info is not None and info.shape.dims is not None and len(info.shape.dims) == len(dims):
        expected = [d.value if d.is_static else -1 for d in info.shape.dims]
    for index, dim in enumerate(dims):
        offsets = source.text_offsets(dim)
        if offsets is None:
            continue
        start, end = offsets
        found = [d for d in by_position.get(source.position(start), []) if d.code in DIM_CODES]
        # A child (a comment) or an entity means the raw text is not what lxml read: skip.
        if not found or len(dim) or source.text[start:end] != (dim.text or ""):
            continue
        read = read_dim(dim.text or "").value
        if read is None:
            continue
        codes = {d.code for d in found}
        inferred = None if expected is None else expected[index]
        if inferred is not None and (inferred == read or DECLARED_DIM_MISMATCH in codes):
            target = inferred
        elif codes & {REINTERPRETED_DIM, NON_CANONICAL_DIM}:
            target = read  # what the runtime reads, written plainly
        else:
            continue
        old = source.text[start:end]
        if str(target) == old:
            continue
        settled = tuple(d for d in found if d.code != DECLARED_DIM_MISMATCH or target == inferred)
        yield Fix(start, end, str(target), f"<dim>{old}</dim> -> <dim>{target}</dim>", settled)


def _pad_fixes(
    model: Model, layer: Layer, by_position: dict[tuple[int, int], list[Diagnostic]]
) -> Iterator[Fix]:
    op = model.inference.ops.get(layer.id)
    data = layer.data
    if not isinstance(op, AvgPoolBase) or data is None or op.attrs["auto_pad"] == "explicit":
        return
    producer = model.graph.producers.get((layer.id, 0))
    info = None if producer is None else _inferred(model, *producer)
    if info is None or info.shape.dims is None:
        return
    source = model.document.source
    for name in ("pads_begin", "pads_end"):
        offsets = source.attribute_offsets(data, name)
        if offsets is None:
            continue
        start, end = offsets
        found = [
            d for d in by_position.get(source.position(start), []) if d.code == OVERWRITTEN_PADS
        ]
        old = source.text[start:end]
        if not found or old != data.get(name):
            continue
        axes = op.axes(info.shape)
        pads = [axis.pad_begin if name == "pads_begin" else axis.pad_end for axis in axes]
        new = ",".join(str(p) for p in pads)
        if new != old:
            yield Fix(start, end, new, f'{name} "{old}" -> "{new}"', tuple(found))


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
