"""Inputs the CPU plugin reads only when it compiles the model, where the file feeds them
values known only at run time.

The CPU plugin's Pad reads `pad_value` once, at compile time, unless its pads are run-time
values themselves; a `pad_value` that is not a constant then (not a Const, nor folded by
OpenVINO from Consts and the ShapeOf of static shapes) is not what it pads with: 0 with a
static data shape, a stale value with a dynamic one (measured, docs/ops/Pad.md).
"""

from __future__ import annotations

from irpool.check.checked import CheckedLayers
from irpool.diagnostics import Collector
from irpool.graph.graph import Graph
from irpool.ops.bounds import bounds_of
from irpool.ops.pad import Pad12
from irpool.parse.xml_reader import Document
from irpool.rules import CPU_MISREADS_PAD_VALUE

PAD_VALUE = 3


def check_pad_values(doc: Document, graph: Graph, checked: CheckedLayers, sink: Collector) -> None:
    pads = [
        layer_id
        for layer_id in graph.order
        if isinstance(checked.ops.get(layer_id), Pad12)
        and checked.ops[layer_id].attrs["pad_mode"] == "constant"
        and (layer_id, PAD_VALUE) in graph.producers
        and layer_id in graph.reachable
    ]
    if not pads:
        return
    constant = compiled_constants(graph, checked)
    for layer_id in pads:
        value_source = graph.producers[(layer_id, PAD_VALUE)][0]
        pads_constant = [constant.get(graph.producers[(layer_id, i)][0]) for i in (1, 2)]
        if constant.get(value_source) is not False or pads_constant != [True, True]:
            continue  # run-time pads make the CPU read the value on every run
        if not _pads_anything(graph, checked, layer_id):
            continue
        data = _input_dims_static(graph, checked, layer_id)
        if data is None:
            continue
        effect = (
            "pads with 0 on every run"
            if data
            else "reads it only when the data's shape changes (a computed value before "
            "computing it), so it pads with a stale value"
        )
        source = graph.layers[value_source]
        layer = graph.layers[layer_id]
        sink.add(
            CPU_MISREADS_PAD_VALUE,
            f'pad_value from the {source.type} "{source.name}" is not a constant when the CPU '
            f"plugin compiles the model, and it reads pad_value only then: it {effect}, not "
            "with this value; make pad_value a Const",
            doc.source.element(layer.element),
            layer.ref,
        )


def compiled_constants(graph: Graph, checked: CheckedLayers) -> dict[int, bool | None]:
    """For each layer, whether its outputs are constants once OpenVINO has folded the model
    as the CPU plugin compiles it: Consts, the ShapeOf of a static shape, and layers all of
    whose inputs are such (None where irpool cannot tell: an unknown shape, an input edge
    missing)."""
    constant: dict[int, bool | None] = {}
    for layer_id in graph.order:
        layer = graph.layers[layer_id]
        if layer.type == "Const":
            constant[layer_id] = True
        elif layer.type == "Parameter":
            constant[layer_id] = False
        elif layer.type == "ShapeOf":
            constant[layer_id] = _input_dims_static(graph, checked, layer_id)
        else:
            inputs = [
                constant.get(source[0]) if (source := graph.producers.get((layer_id, i))) else None
                for i in range(len(layer.inputs))
            ]
            if False in inputs:
                constant[layer_id] = False
            else:
                constant[layer_id] = None if None in inputs else True
    return constant


def _pads_anything(graph: Graph, checked: CheckedLayers, layer_id: int) -> bool:
    """Whether the Pad adds an element (pads of unknown values may)."""
    pads = [checked.input(graph, layer_id, i) for i in (1, 2)]
    bounds = [None if info is None else bounds_of(info) for info in pads]
    return any(b is None or max(b.upper, default=0) > 0 for b in bounds)


def _input_dims_static(graph: Graph, checked: CheckedLayers, layer_id: int) -> bool | None:
    """Whether the layer's first input has a static shape; None where irpool cannot tell."""
    data = checked.input(graph, layer_id, 0)
    if data is None or data.unknown:
        return None
    return data.shape.is_static
