"""Patterns the CPU plugin rewrites into something other than what the file says.

OpenVINO's common optimizations pull an Unsqueeze, or a Reshape that only inserts 1s, below
the Reduce it feeds (PullUnsqueezeThroughReduce, PullReshapeThroughReduce). In OpenVINO
2026.4 the rewrite keeps the Reduce's axes constant as written when renumbering leaves its
normalized axes unchanged, so a negative axis then counts from the end of the smaller input,
and it renumbers the inserted 1s past the reduced axes even with keep_dims. The model then
fails to compile ("Axis -3 out of the tensor rank range") or returns another shape and other
values. `cpu_rewrite` replays the rewrite (measured on 2,000 configurations, every one
predicted: docs/semantics.md, "Reduce after Unsqueeze or Reshape").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Literal

from irpool.check.checked import CheckedLayers
from irpool.diagnostics import Collector
from irpool.graph.graph import Graph
from irpool.ops.reduce import Reduce
from irpool.ops.reshape import Reshape1
from irpool.ops.squeeze import Unsqueeze1
from irpool.parse.xml_reader import Document
from irpool.rules import CPU_MISREWRITES_REDUCE
from irpool.shape import Shape

Outcome = Literal["compile", "wrong"]


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
        outcome = cpu_rewrite(before, ones, written, reduce.keep_dims)
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
            if cpu_rewrite(before, ones, normalized, reduce.keep_dims) is None
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


def cpu_rewrite(
    before: Sequence[Hashable], ones: Sequence[int], written: Sequence[int], keep_dims: bool
) -> Outcome | None:
    """What the CPU makes of Reduce(axes=`written`) over `before` with 1s inserted at `ones`
    (sorted output positions): None when it computes what is written. `before` holds the
    input's dims (distinct labels for dynamic ones)."""
    rank, full_rank = len(before), len(before) + len(ones)
    if not all(-full_rank <= a < full_rank for a in written):
        return None  # shape inference refuses it anyway (IR303)
    reduced = sorted({a % full_rank for a in written})
    if set(ones) & set(reduced):
        return None  # the rewrite does not apply
    moved = _renumbered(reduced, ones)
    used = list(written) if moved == reduced else moved  # the constant reused as written
    if not all(-rank <= a < rank for a in used):
        return "compile"
    cpu_axes = sorted({a % rank for a in used}) if rank else []
    cpu_shape = _reduced(list(before), cpu_axes, keep_dims)
    for position in _renumbered(list(ones), reduced):
        cpu_shape.insert(position, 1)
    full: list[Hashable] = list(before)
    for position in ones:
        full.insert(position, 1)
    if cpu_axes != moved or cpu_shape != _reduced(full, reduced, keep_dims):
        return "wrong"
    return None


def _renumbered(axes: Sequence[int], removed: Sequence[int]) -> list[int]:
    """OpenVINO's adjust_axes: each axis less the number of `removed` axes before it."""
    return [a - sum(r < a for r in removed) for a in axes]


def _reduced(dims: list[Hashable], axes: Sequence[int], keep_dims: bool) -> list[Hashable]:
    if keep_dims:
        return [1 if i in axes else d for i, d in enumerate(dims)]
    return [d for i, d in enumerate(dims) if i not in axes]


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
        ones = _ones_of_reshape(after.values(), data.shape.values())
        return (before, ones) if ones else None
    return None


def _labels(shape: Shape) -> list[Hashable]:
    assert shape.dims is not None
    return [d.value if d.is_static else f"?{i}" for i, d in enumerate(shape.dims)]


def _ones_of_reshape(target: tuple[int, ...], source: tuple[int, ...]) -> list[int]:
    """OpenVINO's try_get_unsqueeze_axes_from_reshape: where a Reshape from `source` to
    `target` inserts 1s, or [] when it does more than that."""
    if not source:
        return list(range(len(target)))
    ones: list[int] = []
    index = 0
    for position, dim in enumerate(target):
        if dim == source[index] and index + 1 < len(source):
            index += 1
        elif dim == 1 and (position >= len(source) + len(ones) or source[index] != 1):
            ones.append(position)
    return ones if index == len(source) - 1 else []
