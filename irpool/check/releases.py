"""Which OpenVINO release can read the file: every layer whose op version, attribute value or
element type a target release's reader refuses (IR230), with the first release that reads it.

The table (irpool/ops/releases.json) was measured by tools/gen_releases.py with each
release's own `read_model` (docs/releases.md). The target is `--openvino-version` or
`openvino-version` in the configuration; by default the installed OpenVINO's release, else
the newest the table knows, so that nothing is reported. A release older than the oldest
measured one is checked only for what came after that one: what irpool cannot know is never
an error.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from irpool.diagnostics import Collector
from irpool.graph.graph import Graph
from irpool.ops.registry import lookup
from irpool.parse.xml_reader import Document
from irpool.rules import OLDER_RELEASE_CANNOT_READ

_TABLE = Path(__file__).resolve().parent.parent / "ops" / "releases.json"
_RELEASE = re.compile(r"^([0-9]{4})\.([0-9]+)(?:\.[0-9]+)*$")
# `<data>` attributes that name an element type.
TYPE_ATTRIBUTES = ("element_type", "destination_type", "output_type", "index_element_type")

Release = tuple[int, int]


class ReleaseError(ValueError):
    """A target that is no OpenVINO release number."""


@dataclass(frozen=True, slots=True)
class _Table:
    measured: list[Release]
    ops: dict[str, dict[str, Release]]  # version -> lower-case type -> first release
    types: dict[str, Release]
    # "opset14 MaxPool rounding_type ceil_torch" (the op version's first opset) -> release
    attributes: dict[str, Release]


def parse_release(text: str) -> Release:
    """`2023.0`, `2024.6.0`, `2026.4.1-20939-...` -> (year, minor)."""
    match = _RELEASE.match(text.strip().split("-")[0])
    if match is None:
        raise ReleaseError(f"{text!r} is not an OpenVINO release (write it as 2023.0)")
    return int(match[1]), int(match[2])


def shown(release: Release) -> str:
    return f"{release[0]}.{release[1]}"


@cache
def _table() -> _Table:
    raw = json.loads(_TABLE.read_text(encoding="utf-8"))

    def since(text: str) -> Release:
        return (9999, 0) if text == "never" else parse_release(text)

    ops = {
        version: {name.lower(): since(first) for name, first in types.items()}
        for version, types in raw["ops"].items()
    }
    types = {name: since(first) for name, first in raw["element_types"].items()}
    attributes = {key.lower(): since(first) for key, first in raw["attributes"].items()}
    return _Table([parse_release(r) for r in raw["measured"]], ops, types, attributes)


def default_target() -> Release:
    """The installed OpenVINO's release, else the newest measured."""
    installed = _installed_openvino()
    try:
        return parse_release(installed) if installed else _table().measured[-1]
    except ReleaseError:
        return _table().measured[-1]


@cache
def _installed_openvino() -> str | None:
    """The version in the name of the first `openvino-<version>.dist-info` on the path.
    (importlib.metadata would load compression modules `validate` never needs.)"""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.startswith("openvino-") and name.endswith(".dist-info"):
                return name.removeprefix("openvino-").removesuffix(".dist-info")
    return None


def check_releases(document: Document, graph: Graph, sink: Collector, target: Release) -> None:
    """An IR230 error per layer whose op version or element type the target cannot read."""
    table = _table()
    if target >= table.measured[-1]:
        return
    oldest = table.measured[0]
    source = document.source

    def refused(first: Release) -> bool:
        # Before the oldest release measured, only what came later is known to be missing.
        return first > target and first > oldest if target < oldest else first > target

    for layer in graph.layers.values():
        name = layer.type
        first = op_first = table.ops.get(layer.version, {}).get(name.lower())
        if first is not None and refused(first):
            message = (
                f"{name} of {layer.version} is read from OpenVINO {shown(first)}; "
                f'{shown(target)} refuses it ("Cannot create {name} layer ... from '
                f'unsupported opset" or "Opset doesn\'t contain the operation")'
            )
            where = source.attribute(layer.element, "version")
            sink.add(OLDER_RELEASE_CANNOT_READ, message, where, layer.ref)
        found = lookup(layer.type, layer.version).op
        opset = f"opset{found.opsets[0]} {found.type_name}" if found is not None else ""
        for key, value in layer.data_items or ():
            if key in TYPE_ATTRIBUTES:
                first, what = table.types.get(value.lower()), f"element type {value} ({key})"
            else:
                first = table.attributes.get(f"{opset} {key} {value}".lower())
                what = f'{key}="{value}" of {name}'
            # A value as old as the op version itself is said with the op's finding.
            if first is not None and refused(first) and (op_first is None or first > op_first):
                message = f"{what} is read from OpenVINO {shown(first)}; {shown(target)} refuses it"
                data = layer.data
                assert data is not None  # it has data items
                where = source.attribute(data, key)
                sink.add(OLDER_RELEASE_CANNOT_READ, message, where, layer.ref)
