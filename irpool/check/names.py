"""Stage 3c: tensor names, as OpenVINO gives them to the tensors of the model it builds
(the rules themselves: irpool/graph/tensor_names.py).

A name marks one tensor: when output ports of two layers declare the same name, OpenVINO
keeps it on one tensor and silently renames it on the others ("a" becomes "a_1"), so a
program asking for "a" may get the other tensor (IR508, a warning: Model Optimizer and the
PyTorch frontend write such files, and `run` names the tensors as OpenVINO renames them).

IR v10 has one more step (`update_v10_model` in OpenVINO's model_reader.cpp): the names of
the Parameters and of the layers feeding Results become tensor names too, and read_model
fails when one collides with a tensor name already taken (IR509). The step runs on the
names as OpenVINO has renamed them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from lxml import etree

from irpool.diagnostics import Collector
from irpool.graph.graph import Graph, Layer
from irpool.graph.tensor_names import (
    Names,
    Tensor,
    kept_names,
    output_names,
    port_names,
    renaming,
    v10_name,
)
from irpool.parse.values import read_tensor_names, read_unsigned, show
from irpool.parse.xml_reader import Document
from irpool.rules import SHARED_TENSOR_NAME, V10_NAME_COLLISION

# What holds a tensor name in update_v10_model, with a layer id: "parameter", the tensor
# of a Parameter; "result", a Result's output; "layer", the tensor of a layer named after it.
Holder = tuple[str, int]
_NAMED_PORTS = etree.XPath("layers/layer/output/port[@names]")


@dataclass(frozen=True, slots=True)
class _Declaration:
    """Tensor names written in the file: a port's `names`, or (IR v11) a Result's
    `output_names`, which name the tensor the Result takes."""

    tensor: Tensor
    names: tuple[str, ...]
    layer: Layer  # the layer that writes them
    element: etree._Element
    attribute: str


def check_names(doc: Document, graph: Graph, sink: Collector) -> None:
    results = _named_results(doc, graph)
    kept: Names = {}
    if _may_repeat(graph, results):
        kept = renaming(graph, doc.ir_version)
        _report_shared_names(doc, graph, kept, _declarations(doc, graph, results), sink)
    if doc.ir_version == 10:
        _check_v10(doc, graph, kept, sink)


def _named_results(doc: Document, graph: Graph) -> list[_Declaration]:
    """IR v11 Results' `output_names`, as names of the tensors they take."""
    if doc.ir_version == 10:
        return []  # v10 reads no output_names
    found = []
    kinds = {layer.type for layer in graph.layers.values()}  # a few, however many layers
    results = {kind for kind in kinds if kind.lower() == "result"}
    for layer in graph.layers.values():
        if layer.type not in results or layer.id not in graph.reachable:
            continue
        tensor = graph.producers.get((layer.id, 0))
        names = output_names(layer)
        if tensor is not None and names:
            found.append(_Declaration(tensor, names, layer, layer.element, "output_names"))
    return found


def _unescaped(value: str) -> str:
    """A serialized attribute value's text."""
    if "&" not in value:
        return value
    import html  # only a value with an escape needs it (html.entities: 1-2 ms of each start)

    return html.unescape(value)


def _may_repeat(graph: Graph, results: list[_Declaration]) -> bool:
    """Whether a tensor name may be given to two tensors, cheaply: from every port `names`
    value as serialized (unescaped only where it holds an escape) and the Results' names.
    The serializer writes a Result's output_names on the port that feeds it too."""
    written = Counter(
        name for value in graph.names_written for name in read_tensor_names(_unescaped(value))
    )
    if any(count > 1 for count in written.values()):
        return True
    claimed: dict[str, Tensor] = {}
    for result in results:
        own = port_names(graph.layers[result.tensor[0]], result.tensor[1])
        for name in result.names:
            if (name in written and name not in own) or claimed.setdefault(
                name, result.tensor
            ) != result.tensor:
                return True
    return False


def _declarations(doc: Document, graph: Graph, results: list[_Declaration]) -> list[_Declaration]:
    """The names on the output ports the runtime reads (the first <output> of each layer it
    builds) and the Results', in document order."""
    found: list[tuple[int, _Declaration]] = []
    for port in _NAMED_PORTS(doc.root):
        group = port.getparent()
        element = group.getparent()
        layer = _layer_of(graph, element)
        if layer is None or next(element.iterchildren("output")) is not group:
            continue
        position = [child for child in group if child.tag == "port"].index(port)
        index = next((i for i, p in enumerate(layer.outputs) if p.position == position), None)
        names = read_tensor_names(port.get("names", ""))
        if index is not None and names:
            declaration = _Declaration((layer.id, index), names, layer, port, "names")
            found.append((port.sourceline or 0, declaration))
    found.extend((result.element.sourceline or 0, result) for result in results)
    return [declaration for _, declaration in sorted(found, key=lambda item: item[0])]


def _layer_of(graph: Graph, element: etree._Element) -> Layer | None:
    """The layer the runtime builds from this element: none for a layer dropped as
    unreachable or replaced by a later one with its id."""
    layer_id = read_unsigned(element.get("id", ""))
    layer = None if layer_id is None else graph.layers.get(layer_id)
    if layer is None or layer.id not in graph.reachable:
        return None
    if layer.id in graph.repeated_ids and layer.element is not element:
        return None
    return layer


def _report_shared_names(
    doc: Document, graph: Graph, kept: Names, declarations: list[_Declaration], sink: Collector
) -> None:
    """Each name OpenVINO renames, where it is written, with the tensor that keeps it."""
    holders = {new: tensor for tensor, names in kept.items() for new in names.values()}
    for declaration in declarations:
        renamed = kept.get(declaration.tensor, {})
        for name in declaration.names:
            new = renamed.get(name, name)
            if new == name:
                continue
            holder = holders[name]
            other = f"output {holder[1]} of {graph.layers[holder[0]].describe()}"
            written = next(old for old, given in kept[holder].items() if given == name)
            if written == name:
                said = f"tensor name {show(name)} also names {other}, which OpenVINO lets keep it"
            else:
                said = (
                    f"tensor name {show(name)} is the name OpenVINO gives {other} (its "
                    f"{show(written)}, renamed)"
                )
            sink.add(
                SHARED_TENSOR_NAME,
                f"{said}; here OpenVINO renames it {show(new)}",
                doc.source.attribute(declaration.element, declaration.attribute),
                declaration.layer.ref,
            )


def _check_v10(doc: Document, graph: Graph, kept: Names, sink: Collector) -> None:
    """update_v10_model, step by step; the runtime stops at the first collision. It reads
    the names of the Parameters' tensors and of those the Results take, and only those, as
    OpenVINO has renamed them (`kept`; empty when no name repeats)."""
    layers = graph.layers
    declared: dict[Tensor, tuple[str, ...]] = {}

    def declared_names(tensor: Tensor) -> tuple[str, ...]:
        if tensor not in declared:
            written = port_names(layers[tensor[0]], tensor[1])
            declared[tensor] = kept_names(kept, tensor) if tensor in kept else written
        return declared[tensor]

    parameters = [layer for layer in layers.values() if layer.type.lower() == "parameter"]
    results = [
        (result, graph.producers[(result.id, 0)])
        for result in layers.values()
        if result.type.lower() == "result"
        and result.id in graph.reachable
        and (result.id, 0) in graph.producers
    ]
    # Who holds each name. A Result's output shares the names of the tensor it takes.
    holders: dict[str, Holder] = {}
    added: dict[Tensor, set[str]] = {}

    def names_of(tensor: Tensor) -> set[str]:
        return set(declared_names(tensor)) | added.get(tensor, set())

    for parameter in parameters:
        for name in declared_names((parameter.id, 0)):
            holders[name] = ("parameter", parameter.id)
    for result, tensor in results:
        for name in declared_names(tensor):
            holder = holders.setdefault(name, ("result", result.id))
            if holder != ("result", result.id):
                _collision(doc, graph, result, name, holder, sink)
                return
    for _, tensor in results:
        producer = layers[tensor[0]]
        name = v10_name(producer, tensor[1])
        if name in holders and name not in names_of(tensor):
            naming = f"each model output after the layer feeding it ({show(name)})"
            _taken(doc, graph, producer, naming, holders[name], sink)
            return
        holders[name] = ("layer", producer.id)
        added.setdefault(tensor, set()).add(name)
    for parameter in parameters:
        tensor = (parameter.id, 0)
        if parameter.name in holders and parameter.name not in names_of(tensor):
            naming = f"each model input after its Parameter ({show(parameter.name)})"
            _taken(doc, graph, parameter, naming, holders[parameter.name], sink)
            return
        holders[parameter.name] = ("layer", parameter.id)
        added.setdefault(tensor, set()).add(parameter.name)


def _holding(graph: Graph, holder: Holder) -> str:
    """The tensor that holds a name, said by the layer that produces it."""
    kind, layer_id = holder
    if kind == "result":  # the tensor the Result takes
        layer_id, index = graph.producers[(layer_id, 0)]
        return f"output {index} of {graph.layers[layer_id].describe()}"
    layer = graph.layers[layer_id].describe()
    return f"the output of {layer}" + (", named after it," if kind == "layer" else "")


def _collision(
    doc: Document, graph: Graph, result: Layer, name: str, holder: Holder, sink: Collector
) -> None:
    taken = graph.producers[(result.id, 0)]
    kind, holder_id = holder
    if kind == "parameter" and taken[0] == holder_id:
        parameter = graph.layers[holder_id].describe()
        said = (
            f"{parameter} feeds {result.describe()} directly, and the Result's output, a "
            f"tensor of its own, takes the Parameter's tensor name {show(name)} too"
        )
    elif kind == "result" and graph.producers[(holder_id, 0)] == taken:
        said = (
            f"{result.describe()} and {graph.layers[holder_id].describe()} take the same "
            f"tensor, named {show(name)}, and each Result's output, a tensor of its own, "
            "takes the name too"
        )
    else:
        said = (
            f"{result.describe()} outputs tensor name {show(name)}, which also names "
            f"{_holding(graph, holder)}"
        )
    sink.add(
        V10_NAME_COLLISION,
        f'IR v10: {said}; read_model fails ("Model tensor names have collisions")',
        doc.source.element(result.element),
        result.ref,
    )


def _taken(
    doc: Document, graph: Graph, layer: Layer, naming: str, holder: Holder, sink: Collector
) -> None:
    sink.add(
        V10_NAME_COLLISION,
        f"IR v10: OpenVINO names {naming}, but {_holding(graph, holder)} has that name "
        'already; read_model fails ("Model operation names have collisions with tensor names")',
        doc.source.attribute(layer.element, "name"),
        layer.ref,
    )
