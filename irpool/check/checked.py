"""What checking learned of each layer (check/layer_checker.py fills it): its op and the
tensors on its outputs, and which layers are trusted or refused; and, from those, the tensor
each input of a layer receives."""

from __future__ import annotations

from dataclasses import dataclass, field

from irpool.graph.graph import Graph, Layer
from irpool.ops.base import Op, TensorInfo


@dataclass(slots=True)
class CheckedLayers:
    """What checking learned: an op per checked layer and the tensors on every output."""

    ops: dict[int, Op] = field(default_factory=dict)
    outputs: dict[int, list[TensorInfo]] = field(default_factory=dict)
    # Layers whose outputs come from their declared ports, not from inference.
    trusted: set[int] = field(default_factory=set)
    # Layers of a type or version OpenVINO refuses (an error says so): not trusted, not run.
    refused: set[int] = field(default_factory=set)

    def inputs(self, graph: Graph, layer: Layer) -> tuple[TensorInfo | None, ...]:
        """The tensor checking gave each input of a layer (None: no edge, or unknown)."""
        found: list[TensorInfo | None] = []
        for index in range(len(layer.inputs)):
            source = graph.producers.get((layer.id, index))
            produced = None if source is None else self.outputs.get(source[0])
            if source is None or produced is None or source[1] >= len(produced):
                found.append(None)
            else:
                found.append(produced[source[1]])
        return tuple(found)

    def input(self, graph: Graph, layer_id: int, index: int) -> TensorInfo | None:
        """The tensor checking gave input `index` of a layer (None: no edge, or unknown)."""
        found = self.inputs(graph, graph.layers[layer_id])
        return found[index] if index < len(found) else None
