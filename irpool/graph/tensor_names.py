"""OpenVINO's tensor-naming rules, in one place: the names each tensor answers to once
OpenVINO has read an IR file. `validate` checks them (check/names.py), `run` binds its
inputs and keys its outputs by them (execute/bind.py, execute/plan.py).

- A tensor takes the `names` written on the output port that produces it.
- IR v11: the tensor a Result takes is named by the Result's `output_names` when it has
  any (the serializer writes them on the producing port too).
- IR v10 (`update_v10_model` in OpenVINO's model_reader.cpp): the tensor of each Parameter
  is also named after the Parameter, and each tensor a Result takes after the layer that
  produces it, with `.index` when that layer has several outputs.
- `get_any_name()`, the name a program sees first, is the smallest name.
"""

from __future__ import annotations

from irpool.graph.graph import Graph, Layer
from irpool.parse.values import read_tensor_names

# A tensor: the id of the layer producing it and the output's index.
Tensor = tuple[int, int]


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


def parameter_names(parameter: Layer) -> tuple[str, ...]:
    """The names a model input answers to: its Parameter's name (a tensor name too in IR
    v10, and how OpenVINO finds the input in both versions), then its tensor's names."""
    names = (parameter.name, *port_names(parameter, 0))
    return tuple(dict.fromkeys(name for name in names if name))


def result_names(graph: Graph, ir_version: int, result: Layer, tensor: Tensor) -> tuple[str, ...]:
    """The names of the tensor a Result returns (checked against read_model)."""
    if ir_version != 10:
        declared = output_names(result)
        if declared:
            return declared
    producer = graph.layers[tensor[0]]
    names = port_names(producer, tensor[1])
    if ir_version == 10:
        names += (v10_name(producer, tensor[1]),)
    return names


def any_name(names: tuple[str, ...]) -> str | None:
    """The name OpenVINO's `get_any_name()` gives a tensor with these names."""
    return min(names) if names else None


def output_key(
    graph: Graph, ir_version: int, result: Layer, tensor: Tensor, taken: set[str]
) -> str:
    """The key `run` gives the tensor a Result returns: OpenVINO's `get_any_name()` of it;
    without names (or when an earlier Result, whose key is in `taken`, returns the same
    tensor) the Result layer's name, then that name and `#<id>`."""
    name = any_name(result_names(graph, ir_version, result, tensor))
    candidates = [name] if name is not None else []
    candidates += [result.name, f"{result.name}#{result.id}"]
    return next(name for name in candidates if name not in taken)
