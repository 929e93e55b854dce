"""The graph's order and reach: topological order, a cycle, what the sinks depend on."""

from __future__ import annotations

from collections import deque

from irpool.graph.graph import Layer

# (layer id, input index) -> (layer id, output index), as Graph.producers.
Producers = dict[tuple[int, int], tuple[int, int]]
# Sinks the runtime walks back from; everything else must feed one of them. OpenVINO's reader
# takes a layer as a Result only when its type is written exactly "Result" (measured: a
# `result` or `RESULT` layer leaves the model with no outputs).
RESULT = "Result"
_SINK_TYPES = ("assign",)


def topological_order(layers: dict[int, Layer], producers: Producers) -> list[int]:
    """Kahn's algorithm in XML order (iterative: no recursion limit on deep chains). Layers
    on or after a cycle are left out."""
    indegree = dict.fromkeys(layers, 0)
    successors: dict[int, list[int]] = {layer_id: [] for layer_id in layers}
    for (target, _), (source, _) in producers.items():
        indegree[target] += 1
        successors[source].append(target)
    ready = deque(layer_id for layer_id, count in indegree.items() if count == 0)
    order: list[int] = []
    while ready:
        layer_id = ready.popleft()
        order.append(layer_id)
        for successor in successors[layer_id]:
            indegree[successor] -= 1
            if indegree[successor] == 0:
                ready.append(successor)
    return order


def find_cycle(layers: dict[int, Layer], producers: Producers, order: list[int]) -> list[int]:
    """A cycle, in edge direction from its first layer in XML order, among the layers that
    `order` leaves out (each lies on or after one, so walking back finds one)."""
    stuck = layers.keys() - set(order)
    predecessor = {
        target: source for (target, _), (source, _) in producers.items() if source in stuck
    }
    path: list[int] = []
    position: dict[int, int] = {}
    current = next(layer_id for layer_id in layers if layer_id in stuck)
    while current not in position:
        position[current] = len(path)
        path.append(current)
        current = predecessor[current]
    return list(reversed(path[position[current] :]))


def reach(
    layers: dict[int, Layer], producers: Producers, maybe: list[tuple[int, int]]
) -> tuple[list[int], frozenset[int]]:
    """The sinks (Result and Assign layers), and the layers the runtime builds: those some
    sink depends on (through `producers`, or perhaps through a loose edge: the (to-layer,
    from-layer) pairs in `maybe`), plus every Parameter."""
    inputs_of: dict[int, list[int]] = {}
    for (target, _), (source, _) in producers.items():
        inputs_of.setdefault(target, []).append(source)
    for target, source in maybe:
        if source in layers:
            inputs_of.setdefault(target, []).append(source)
    kinds = {kind: kind.lower() for kind in {layer.type for layer in layers.values()}}
    sinks = [
        i for i, layer in layers.items() if layer.type == RESULT or kinds[layer.type] in _SINK_TYPES
    ]
    seen = set(sinks)
    stack = list(sinks)
    while stack:
        for source in inputs_of.get(stack.pop(), ()):
            if source not in seen:
                seen.add(source)
                stack.append(source)
    seen.update(i for i, layer in layers.items() if kinds[layer.type] == "parameter")
    return sinks, frozenset(seen)


def openvino_order(layers: dict[int, Layer], producers: Producers, roots: list[int]) -> list[int]:
    """The order of OpenVINO's `Model::get_ordered_ops()`: its depth-first topological sort
    from `roots` (the Results, then the Parameters, in XML order; the last is taken first),
    each layer's inputs pushed last to first so the first is built first. Measured against
    `get_ordered_ops()` on random graphs (OpenVINO 2026.4.1)."""
    stack = list(roots)
    done: set[int] = set()
    visited: set[int] = set()
    order: list[int] = []
    while stack:
        layer_id = stack[-1]
        if layer_id in done:
            stack.pop()
            continue
        ready = True
        if layer_id not in visited:
            count = len(layers[layer_id].inputs)
            for index in reversed(range(count)):
                source = producers.get((layer_id, index))
                if source is not None and source[0] not in done:
                    ready = False
                    stack.append(source[0])
        if ready:
            order.append(layer_id)
            done.add(layer_id)
            stack.pop()
        visited.add(layer_id)
    return order
