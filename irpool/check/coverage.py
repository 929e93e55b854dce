"""What checking covered in a file: how many layers irpool checked (an op it models: its
attributes, shapes and types), and the types of the others, whose declared outputs it
trusted unchecked (IR202). The summary of every report format says so, so that "0 errors"
never claims more than was checked."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from irpool.check.layers import CheckedLayers
from irpool.graph.model import Graph

SHOWN_TYPES = 6  # the summary names the most frequent trusted types, and counts the rest


@dataclass(frozen=True, slots=True)
class Coverage:
    layers: int
    checked: int
    # (type, layers of it) for the layers not checked, most frequent first.
    trusted: tuple[tuple[str, int], ...] = ()

    @classmethod
    def of(cls, graph: Graph, checked: CheckedLayers) -> Coverage:
        kinds = Counter(
            layer.type for layer_id, layer in graph.layers.items() if layer_id not in checked.ops
        )
        return cls(len(graph.layers), len(graph.layers) - kinds.total(), _ranked(kinds))

    @classmethod
    def total(cls, parts: Iterable[Coverage]) -> Coverage:
        layers = checked = 0
        kinds: Counter[str] = Counter()
        for part in parts:
            layers += part.layers
            checked += part.checked
            kinds.update(dict(part.trusted))
        return cls(layers, checked, _ranked(kinds))

    def describe(self) -> str:
        """`47 of 50 layers checked; trusted without checks: Convolution x2, Relu x1`."""
        text = f"{self.checked} of {self.layers} layer{'s' if self.layers != 1 else ''} checked"
        if not self.trusted:
            return text
        shown = [f"{kind} x{count}" for kind, count in self.trusted[:SHOWN_TYPES]]
        rest = len(self.trusted) - SHOWN_TYPES
        if rest > 0:
            shown.append(f"{rest} more type{'s' if rest != 1 else ''}")
        return f"{text}; trusted without checks: {', '.join(shown)}"

    def to_dict(self) -> dict[str, Any]:
        return {"layers": self.layers, "checked": self.checked, "trusted": dict(self.trusted)}


def _ranked(kinds: Counter[str]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(kinds.items(), key=lambda item: (-item[1], item[0])))
