"""The fixes the per-layer checker's findings carry: the op's attribute fixes (IR213) and
inferred dims (IR301), as edits at one layer's own place in the source (`--fix` applies the
edits of the findings it reports; see irpool.fix)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lxml import etree

from irpool.diagnostics import Edit, attribute_edit, text_edit
from irpool.graph.model import Layer, Port
from irpool.ops.base import Op, TensorInfo
from irpool.parse.source_map import SourceMap
from irpool.rules import NON_CANONICAL_DIM, OVERWRITTEN_PADS, REINTERPRETED_DIM

# A dim read differently by the runtime (IR112) or written unusually (IR113).
DIM_SPELLING_CODES = frozenset({REINTERPRETED_DIM, NON_CANONICAL_DIM})
# The one finding on an attribute that `Op.attribute_fixes` settles.


def attribute_fixes(op: Op, codes: Iterable[str], inputs: list[TensorInfo]) -> dict[str, str]:
    """The op's attribute fixes, when it reported (`codes`) an attribute the runtime
    overwrites. A fix is only certain from tensors irpool inferred, never from a port's claim."""
    if OVERWRITTEN_PADS not in codes:
        return {}
    return op.attribute_fixes([None if info.trusted else info for info in inputs])


def edit_at(source: SourceMap, layer: Layer, locator: tuple[Any, ...]) -> Edit | None:
    """The edit a finding's fix (its locator's last item) makes at this layer's own place;
    None when there is no certain fix."""
    kind, fix = locator[0], locator[-1]
    if kind == "op" and fix is not None and layer.data is not None:
        return attribute_edit(source, layer.data, locator[1], fix)
    if kind == "dim" and fix is not None:
        # Writing the inferred value plainly also settles a misread or unusual spelling.
        return text_edit(source, dims(layer, locator[1])[locator[2]], fix, DIM_SPELLING_CODES)
    return None


def dims(layer: Layer, port: Port) -> list[etree._Element]:
    return [child for child in layer.port_element(port) if child.tag == "dim"]
