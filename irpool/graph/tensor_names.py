"""OpenVINO's tensor-naming rules, in one place: the names each tensor answers to once
OpenVINO has read an IR file. `validate` checks them (check/names.py), `run` binds its
inputs and keys its outputs by them (execute/bind.py, execute/plan.py).

- A tensor takes the `names` written on the output port that produces it.
- IR v11: the tensor a Result takes is named by the Result's `output_names` when it has
  any (the serializer writes them on the producing port too).
- IR v10 (`update_v10_model` in OpenVINO's model_reader.cpp): the tensor of each Parameter
  is also named after the Parameter, and each tensor a Result takes after the layer that
  produces it, with `.index` when that layer has several outputs.
- A name written on several tensors stays on one; OpenVINO renames it on the others
  (`renaming`).
- `get_any_name()`, the name a program sees first, is the smallest name.
"""

from __future__ import annotations

from irpool.graph.graph import Graph, Layer
from irpool.graph.topology import openvino_order
from irpool.parse.values import read_tensor_names

# A tensor: the id of the layer producing it and the output's index.
Tensor = tuple[int, int]
# Each tensor's declared names, each with the name OpenVINO gives it (`renaming`).
Names = dict[Tensor, dict[str, str]]


def port_names(layer: Layer, index: int) -> tuple[str, ...]:
    """The names written on output `index` of `layer` ((): no such output)."""
    if index >= len(layer.outputs):
        return ()
    return read_tensor_names(layer.port_element(layer.outputs[index]).get("names", ""))


def output_names(result: Layer) -> tuple[str, ...]:
    """IR v11: the names a Result gives the tensor it takes (`output_names`)."""
    return read_tensor_names(result.element.get("output_names", ""))


def v10_name(producer: Layer, index: int) -> str:
    """IR v10: the name a layer's output takes after the layer (a Result's input)."""
    return f"{producer.name}.{index}" if len(producer.outputs) > 1 else producer.name


def parameter_names(parameter: Layer, kept: Names) -> tuple[str, ...]:
    """The names a model input answers to: its Parameter's name (a tensor name too in IR
    v10, and how OpenVINO finds the input in both versions), then its tensor's names
    (`kept`: from `renaming`)."""
    names = (parameter.name, *kept_names(kept, (parameter.id, 0)))
    return tuple(dict.fromkeys(name for name in names if name))


def result_names(
    graph: Graph, ir_version: int, result: Layer, tensor: Tensor, kept: Names
) -> tuple[str, ...]:
    """The names of the tensor a Result returns (checked against read_model); `kept`: from
    `renaming`."""
    if ir_version != 10:
        declared = output_names(result)
        if declared:
            return kept_names(kept, tensor, declared)
    names = kept_names(kept, tensor)
    renamed = any(old != new for old, new in kept.get(tensor, {}).items())
    if ir_version == 10 and not renamed:  # read_model adds no name to a renamed tensor
        names += (v10_name(graph.layers[tensor[0]], tensor[1]),)
    return names


def kept_names(
    kept: Names, tensor: Tensor, declared: tuple[str, ...] | None = None
) -> tuple[str, ...]:
    """The names OpenVINO gives `tensor` (only those of `declared`, when given)."""
    renamed = kept.get(tensor, {})
    chosen = renamed.values() if declared is None else (renamed.get(n, n) for n in declared)
    return tuple(dict.fromkeys(chosen))


def renaming(graph: Graph, ir_version: int) -> Names:
    """Each tensor's declared names (its port's `names`, and in IR v11 the `output_names` of
    each Result that takes it), each with the name OpenVINO gives it.

    A name written on several tensors stays on the first of them in this order, and each
    other tensor gets it with the smallest suffix `_1`, `_2`, ... that no earlier tensor
    has: the Parameters' tensors (XML order), each with the `output_names` of the Results
    that take it; then, for each Result in XML order, its `output_names` (IR v11), or else
    the names of the tensor it takes; then every other
    tensor in the order of OpenVINO's `get_ordered_ops()`. A Result's `output_names` never
    collide with the names of the tensor it takes. Measured with read_model on random graphs
    (OpenVINO 2026.4.1; docs/inputs-outputs.md)."""
    reachable = [layer for layer in graph.layers.values() if layer.id in graph.reachable]
    parameters = [layer.id for layer in reachable if layer.type.lower() == "parameter"]
    results = [
        layer
        for layer in reachable
        if layer.type.lower() == "result" and (layer.id, 0) in graph.producers
    ]
    # (tensor, names); a Result's own names under the tensor it takes, told apart by `own`
    order: list[tuple[Tensor, tuple[str, ...], bool]] = []
    named = {result.id: output_names(result) if ir_version != 10 else () for result in results}
    for layer_id in parameters:
        order.append(((layer_id, 0), port_names(graph.layers[layer_id], 0), False))
        order += [
            ((layer_id, 0), named[result.id], True)
            for result in results
            if graph.producers[(result.id, 0)] == (layer_id, 0) and named[result.id]
        ]
    for result in results:
        tensor = graph.producers[(result.id, 0)]
        if named[result.id]:
            order.append((tensor, named[result.id], True))
        else:
            order.append((tensor, port_names(graph.layers[tensor[0]], tensor[1]), False))
    roots = [result.id for result in results] + parameters
    for layer_id in openvino_order(graph.layers, graph.producers, roots):
        layer = graph.layers[layer_id]
        order += [((layer_id, i), port_names(layer, i), False) for i in range(len(layer.outputs))]
    kept: Names = {}
    done: set[Tensor] = set()
    owners: dict[str, Tensor] = {}
    for tensor, names, own in order:
        if tensor in done and not own:
            continue
        if not own:
            done.add(tensor)
        renamed = kept.setdefault(tensor, {})
        for name in names:
            if name not in renamed:
                renamed[name] = _free(name, tensor, owners)
        for name in renamed.values():
            owners[name] = tensor
    return kept


def _free(name: str, tensor: Tensor, owners: dict[str, Tensor]) -> str:
    """`name`, or the first of `name_1`, `name_2`, ... no other tensor than `tensor` has."""
    suffix = 0
    free = name
    while owners.get(free, tensor) != tensor:
        suffix += 1
        free = f"{name}_{suffix}"
    return free


def any_name(names: tuple[str, ...]) -> str | None:
    """The name OpenVINO's `get_any_name()` gives a tensor with these names."""
    return min(names) if names else None


def output_key(
    graph: Graph, ir_version: int, result: Layer, tensor: Tensor, taken: set[str], kept: Names
) -> str:
    """The key `run` gives the tensor a Result returns: OpenVINO's `get_any_name()` of it;
    without names (or when an earlier Result, whose key is in `taken`, returns the same
    tensor) the Result layer's name, then that name and `#<id>`."""
    name = any_name(result_names(graph, ir_version, result, tensor, kept))
    candidates = [name] if name is not None else []
    candidates += [result.name, f"{result.name}#{result.id}"]
    return next(name for name in candidates if name not in taken)
