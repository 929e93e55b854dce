"""Where a diagnostic is in the XML structure, not in the text: `layer[id=1]/output/
port[id=2]/dim[3]`, or `layer[id=1]/data@kernel` for an attribute. SARIF viewers match a
finding across commits by such a fingerprint, so it must not move when lines do: it names
elements by their `id` (an `<edge>` by the port it feeds) and only otherwise by their index
among same-named siblings."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable

from irpool.parse.source_map import _ATTRIBUTE, _TOKEN

# The attributes that identify an element among its siblings, by tag.
_IDENTITY = {"edge": ("to-layer", "to-port")}


def _attributes(attrs: str) -> dict[str, str]:
    return {
        m.group(1): m.group(2) if m.group(2) is not None else m.group(3)
        for m in _ATTRIBUTE.finditer(attrs)
    }


def _segment(tag: str, attrs: dict[str, str], siblings: Counter[str]) -> str:
    siblings[tag] += 1
    keys = _IDENTITY.get(tag, ("id",))
    if all(key in attrs for key in keys):
        return f"{tag}[" + ",".join(f"{key}={attrs[key]}" for key in keys) + "]"
    return f"{tag}[{siblings[tag]}]"


def _attribute_at(attrs: str, attrs_offset: int, offset: int) -> str:
    for match in _ATTRIBUTE.finditer(attrs):
        if attrs_offset + match.start() <= offset < attrs_offset + match.end():
            return "@" + match.group(1)
    return ""


def locate(text: str, offsets: Iterable[int]) -> dict[int, str]:
    """The structural locator of each character offset, in one pass over the text."""
    targets = sorted(set(offsets), reverse=True)
    found: dict[int, str] = {}
    path: list[str] = []
    siblings: list[Counter[str]] = [Counter()]
    for token in _TOKEN.finditer(text):
        while targets and targets[-1] < token.start():  # text between tags: the open element
            found[targets.pop()] = "/".join(path)
        if not targets:
            break
        tag = token.group("tag")
        if tag is None:
            while targets and targets[-1] < token.end():  # inside an end tag or a comment
                found[targets.pop()] = "/".join(path)
            if token.group(0).startswith("</") and path:
                path.pop()
                siblings.pop()
            continue
        attrs = token.group("attrs")
        path.append(_segment(tag, _attributes(attrs), siblings[-1]))
        siblings.append(Counter())
        while targets and targets[-1] < token.end():
            attribute = _attribute_at(attrs, token.start("attrs"), targets[-1])
            found[targets.pop()] = "/".join(path) + attribute
        if token.group(0).endswith("/>"):
            path.pop()
            siblings.pop()
    for offset in targets:
        found[offset] = "/".join(path)
    return found


def digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:32]
