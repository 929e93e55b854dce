"""What checking covered in a file: how many layers irpool checked (an op it models: its
attributes, shapes and types), the types of those whose declared outputs it trusted
unchecked (IR202), and of those OpenVINO refuses by type or version (an error each). The
summary of every report format says so, so that "0 errors" never claims more than was
checked."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from irpool.check.checked import CheckedLayers
from irpool.graph.graph import Graph

SHOWN_TYPES = 6  # the summary names the most frequent trusted types, and counts the rest


@dataclass(frozen=True, slots=True)
class Coverage:
    layers: int
    checked: int
    # (type, layers of it) for the layers not checked, most frequent first.
    trusted: tuple[tuple[str, int], ...] = ()
    # (type, layers of it) for the layers whose type or version OpenVINO refuses.
    refused: tuple[tuple[str, int], ...] = ()

    @classmethod
    def of(cls, graph: Graph, checked: CheckedLayers) -> Coverage:
        trusted: Counter[str] = Counter()
        refused: Counter[str] = Counter()
        for layer_id, layer in graph.layers.items():
            if layer_id in checked.refused:
                refused[layer.type] += 1
            elif layer_id not in checked.ops:
                trusted[layer.type] += 1
        unchecked = trusted.total() + refused.total()
        return cls(len(graph.layers), len(graph.layers) - unchecked, *_ranked(trusted, refused))

    @classmethod
    def total(cls, parts: Iterable[Coverage]) -> Coverage:
        layers = checked = 0
        trusted: Counter[str] = Counter()
        refused: Counter[str] = Counter()
        for part in parts:
            layers += part.layers
            checked += part.checked
            trusted.update(dict(part.trusted))
            refused.update(dict(part.refused))
        return cls(layers, checked, *_ranked(trusted, refused))

    def describe(self) -> str:
        """`47 of 50 layers checked; trusted without checks: Convolution x2, Relu x1`."""
        text = f"{self.checked} of {self.layers} layer{'s' if self.layers != 1 else ''} checked"
        for label, kinds in (("trusted without checks", self.trusted), ("refused", self.refused)):
            if kinds:
                text += f"; {label}: {_listed(kinds)}"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "layers": self.layers,
            "checked": self.checked,
            "trusted": dict(self.trusted),
            "refused": dict(self.refused),
        }


def _listed(kinds: tuple[tuple[str, int], ...]) -> str:
    shown = [f"{kind} x{count}" for kind, count in kinds[:SHOWN_TYPES]]
    rest = len(kinds) - SHOWN_TYPES
    if rest > 0:
        shown.append(f"{rest} more type{'s' if rest != 1 else ''}")
    return ", ".join(shown)


def _ranked(*counts: Counter[str]) -> tuple[tuple[tuple[str, int], ...], ...]:
    """Each count's (type, layers) pairs, most frequent first."""
    return tuple(
        tuple(sorted(kinds.items(), key=lambda item: (-item[1], item[0]))) for kinds in counts
    )
