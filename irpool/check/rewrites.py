"""Reduces the CPU plugin rewrites into something other than what the file says (IR309): a
Reduce after an Unsqueeze, or a Reshape that only inserts 1s, which OpenVINO pulls below it.
What the rewrite makes of the Reduce is irpool.cpu.pull_through_reduce's; this finds the
pattern in the model and reports it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable

from irpool.check.checked import CheckedLayers
from irpool.cpu.pull_through_reduce import ones_of_reshape, pulled_through_reduce
from irpool.diagnostics import Collector
from irpool.graph.graph import Graph
from irpool.ops.reduce import Reduce
from irpool.ops.reshape import Reshape1
from irpool.ops.squeeze import Unsqueeze1
from irpool.parse.xml_reader import Document
from irpool.rules import CPU_MISREWRITES_REDUCE
from irpool.shape import Shape


def check_rewrites(doc: Document, graph: Graph, checked: CheckedLayers, sink: Collector) -> None:
    readers = Counter(graph.producers.values())
    for layer_id in graph.order:
        reduce = checked.ops.get(layer_id)
        if not isinstance(reduce, Reduce):
            continue
        source = graph.producers.get((layer_id, 0))
        axes = checked.input(graph, layer_id, 1)
        if source is None or layer_id not in graph.reachable:
            continue
        if axes is None or axes.value is None or readers[source] != 1:
            continue  # the rewrite needs constant axes and a producer read by this layer only
        inserted = _inserted_ones(graph, checked, source[0])
        if inserted is None:
            continue
        before, ones = inserted
        written = [int(v) for v in axes.value.ravel()]
        outcome = pulled_through_reduce(before, ones, written, reduce.keep_dims)
        if outcome is None:
            continue
        producer = graph.layers[source[0]]
        effect = (
            "the CPU plugin then fails to compile the model (an axis out of range)"
            if outcome == "compile"
            else "the CPU plugin then reduces other axes or returns another shape"
        )
        layer = graph.layers[layer_id]
        normalized = sorted({a % (len(before) + len(ones)) for a in written})
        remedy = (
            "write the axes as non-negative numbers"
            if pulled_through_reduce(before, ones, normalized, reduce.keep_dims) is None
            else "reduce before inserting the 1s"
        )
        sink.add(
            CPU_MISREWRITES_REDUCE,
            f"axes {','.join(map(str, written))} after the {producer.type} "
            f'"{producer.name}" that inserts 1s at {",".join(map(str, ones))}: OpenVINO moves '
            f"the {producer.type} below the {layer.type} and keeps these axes as written, so "
            f"{effect}; {remedy}",
            doc.source.element(layer.element),
            layer.ref,
        )


def _inserted_ones(
    graph: Graph, checked: CheckedLayers, layer_id: int
) -> tuple[list[Hashable], list[int]] | None:
    """The input dims of an Unsqueeze (of a known rank, constant axes), or of a Reshape of
    static shapes that only inserts 1s, and the positions of the 1s it inserts."""
    op = checked.ops.get(layer_id)
    data = checked.input(graph, layer_id, 0)
    outputs = checked.outputs.get(layer_id)
    if data is None or data.shape.dims is None or not outputs:
        return None
    after = outputs[0].shape
    if after.dims is None:
        return None
    before = _labels(data.shape)
    if isinstance(op, Unsqueeze1):
        axes = checked.input(graph, layer_id, 1)
        if axes is None or axes.value is None:
            return None
        ones = sorted({int(a) % len(after.dims) for a in axes.value.ravel()})
        return before, ones
    if isinstance(op, Reshape1) and data.shape.is_static and after.is_static:
        ones = ones_of_reshape(after.values(), data.shape.values())
        return (before, ones) if ones else None
    return None


def _labels(shape: Shape) -> list[Hashable]:
    assert shape.dims is not None
    return [d.value if d.is_static else f"?{i}" for i, d in enumerate(shape.dims)]
