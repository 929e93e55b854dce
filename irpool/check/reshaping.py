"""A model re-checked at other input shapes, as OpenVINO's `model.reshape` re-infers it.

`model.reshape` replaces the Parameters' shapes and runs shape inference again over the
whole graph; it never reads a `<dim>`. So the reshaped graph keeps every layer and attribute,
gives each reshaped Parameter its new `shape`, and forgets the declared dims (they describe
the old shapes): nothing is compared with them, and a layer irpool does not model gives
outputs of unknown shape, which no later finding may contradict. Where the new shapes make
a layer refuse what `read_model` would refuse, OpenVINO's reshape raises on that layer: the
finding becomes IR311 (RESHAPE_REFUSED), with the chain back to a constant that bakes the
old shape when one feeds the layer.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from irpool.check.checked import CheckedLayers
from irpool.diagnostics import Diagnostic
from irpool.graph.graph import Graph, Layer, Port
from irpool.graph.tensor_names import parameter_names, renaming
from irpool.ops.base import Role
from irpool.parse.values import read_partial_shape
from irpool.rules import RESHAPE_REFUSED, RULES, Severity
from irpool.shape import Shape

# Layers whose float constant inputs are weights, not a shape baked in.
WEIGHTED_TYPES = frozenset({"Convolution", "GroupConvolution", "MatMul", "ConvolutionBackpropData"})
# How many layers a chain back to a constant shows before it stops.
CHAIN_LIMIT = 6


class ReshapeError(ValueError):
    """A `--shape` that names no input, or is not a shape."""


@dataclass(frozen=True, slots=True)
class Reshaping:
    """The new shape of each reshaped Parameter, by layer id, and the Parameters' names."""

    shapes: dict[int, Shape]
    names: dict[int, str]

    @property
    def asked(self) -> str:
        """For messages: `x[1,3,640,640], mask[1,?]`."""
        return ", ".join(f"{self.names[i]}{shape}" for i, shape in self.shapes.items())

    def updated(self, later: Reshaping) -> Reshaping:
        """These shapes, then the later ones (which win for an input both name)."""
        return Reshaping({**self.shapes, **later.shapes}, {**self.names, **later.names})


def read_shape(text: str) -> Shape:
    """A shape as OpenVINO writes a PartialShape: `[1,3,?,?]`, `1..8`, `-1`."""
    reading = read_partial_shape(text)
    if reading.value is None or reading.finding is not None:
        problem = reading.finding.message if reading.finding else f"{text!r} is not a shape"
        raise ReshapeError(problem)
    return reading.value


def resolve(
    graph: Graph,
    checked: CheckedLayers,
    ir_version: int,
    requested: Mapping[str | int, Shape],
) -> Reshaping:
    """Each requested shape on its Parameter: by a name it answers to (its layer's or a
    tensor name, as `run` binds inputs), or by position (an int); the empty name means the
    only input."""
    parameters = sorted(
        (graph.layers[i] for i, op in checked.ops.items() if op.role is Role.INPUT),
        key=lambda layer: layer.position,
    )
    kept = renaming(graph, ir_version)
    by_name = {name: layer for layer in parameters for name in parameter_names(layer, kept)}
    shapes: dict[int, Shape] = {}
    for key, shape in requested.items():
        layer = _parameter(key, parameters, by_name)
        if layer.id in shapes:
            raise ReshapeError(f'input "{layer.name}" is given two shapes')
        shapes[layer.id] = shape
    return Reshaping(shapes, {i: graph.layers[i].name for i in shapes})


def _parameter(key: str | int, parameters: list[Layer], by_name: Mapping[str, Layer]) -> Layer:
    if key == "":
        if len(parameters) != 1:
            names = ", ".join(f'"{p.name}"' for p in parameters)
            raise ReshapeError(f"the model has {len(parameters)} inputs ({names}): name one")
        return parameters[0]
    if isinstance(key, int):
        if not 0 <= key < len(parameters):
            raise ReshapeError(f"no input at position {key} ({len(parameters)} inputs)")
        return parameters[key]
    if key not in by_name:
        known = ", ".join(sorted(f'"{name}"' for name in by_name))
        raise ReshapeError(f'no input is named "{key}" (inputs: {known})')
    return by_name[key]


def reshaped_graph(graph: Graph, reshaping: Reshaping) -> Graph:
    """The same graph with the new Parameter shapes and no declared dims. Layers that shared
    port tuples still share them, so repeated layers are still checked once."""
    forgotten: dict[int, tuple[Port, ...]] = {}

    def forget(ports: tuple[Port, ...]) -> tuple[Port, ...]:
        if id(ports) not in forgotten:
            forgotten[id(ports)] = tuple(replace(port, declared=None) for port in ports)
        return forgotten[id(ports)]

    layers = {}
    for layer_id, layer in graph.layers.items():
        data = layer.data_items
        if layer_id in reshaping.shapes:
            shape = str(reshaping.shapes[layer_id])
            data = tuple((k, shape if k == "shape" else v) for k, v in data or ())
            data = data if any(k == "shape" for k, _ in data) else (*data, ("shape", shape))
        layers[layer_id] = replace(
            layer, data_items=data, inputs=forget(layer.inputs), outputs=forget(layer.outputs)
        )
    return replace(graph, layers=layers)


def reshape_findings(
    original: Iterable[Diagnostic],
    found: Iterable[Diagnostic],
    graph: Graph,
    checked: CheckedLayers,
    reshaping: Reshaping,
    checked_before: CheckedLayers,
) -> list[Diagnostic]:
    """The reshaped model's findings: a refusal that is new at the new shapes (the file
    itself did not have it) is IR311 on its layer; everything else as found.
    `checked_before`: the layers at the file's shapes, which a fix compares with."""
    before = {
        (o.code, o.layer_id)
        for d in original
        for o in d.occurrences()
        if o.severity is Severity.ERROR
    }
    by_id = {str(layer.id): layer for layer in graph.layers.values()}
    result = []
    for diagnostic in found:
        rule = RULES[diagnostic.code]
        new = (diagnostic.code, diagnostic.layer_id) not in before
        if new and rule.severity is Severity.ERROR and rule.runtime == "rejects":
            layer = by_id.get(diagnostic.layer_id or "")
            chain = fix = ""
            if layer is not None:
                chain = baked_constant(graph, checked, layer)
                fix = following_target(graph, checked, checked_before, layer)
            message = (
                f"does not reshape to {reshaping.asked}: {diagnostic.message}"
                + (f"; the old shape is baked in {chain}" if chain else "")
                + (f"; {fix}" if fix else "")
            )
            diagnostic = replace(
                diagnostic, code=RESHAPE_REFUSED, severity=Severity.ERROR, message=message
            )
        result.append(diagnostic)
    return result


def baked_constant(graph: Graph, checked: CheckedLayers, layer: Layer) -> str:
    """The first input of the layer computed from constants alone (a target shape, sizes, a
    table of anchors; not the weights of a Convolution or MatMul), as the chain of layers
    back to its Const (`input 1 of ... <- Concat "c" <- Const "shape" [1, 197, 768]`), or ""
    when there is none."""
    inputs = checked.inputs(graph, layer)
    weighted = layer.type in WEIGHTED_TYPES
    for index, info in enumerate(inputs):
        if info is None or (weighted and not info.type.is_integer):
            continue
        chain = _chain(graph, checked, graph.producers.get((layer.id, index)))
        if chain:
            return f"input {index} of {layer.describe()}: " + " <- ".join(chain)
    return ""


def following_target(
    graph: Graph, checked: CheckedLayers, before: CheckedLayers, layer: Layer
) -> str:
    """For a Reshape whose constant target (with no 0 in it) copied input dims at the file's
    shapes: the target with 0 there (with `special_zero` true, 0 copies the input's dim),
    when that target holds the input at the new shapes too; else ""."""
    op = checked.ops.get(layer.id)
    if op is None or op.type_name != "Reshape":
        return ""
    data_now, target = checked.inputs(graph, layer)[:2]
    data_then = before.inputs(graph, layer)[0]
    if data_now is None or data_then is None or target is None or target.value is None:
        return ""
    old, new = data_then.shape, data_now.shape
    if not (old.is_static and new.is_static) or 0 in target.value.tolist():
        return ""
    old_dims, new_dims = old.values(), new.values()
    pattern = [int(v) for v in target.value.tolist()]
    copied = [
        i for i, value in enumerate(pattern[: len(old_dims)]) if value == old_dims[i] != new_dims[i]
    ]
    written = [0 if i in copied else v for i, v in enumerate(pattern)]
    sizes = [new_dims[i] if v == 0 else v for i, v in enumerate(written)]
    free = sizes.count(-1)
    known = math.prod(v for v in sizes if v != -1)
    total = math.prod(new_dims)
    holds = known == total if not free else free == 1 and known and total % known == 0
    if not copied or not holds:
        return ""
    zero = "" if op.attrs["special_zero"] else ' with special_zero="true"'
    return f"the target {written}{zero} (0 copies the input's dim) makes this layer follow"


def _chain(graph: Graph, checked: CheckedLayers, source: tuple[int, int] | None) -> list[str]:
    """The layers from a tensor back to a Const along first inputs, when nothing upstream is
    a model input; else empty."""
    if source is None or not _constant(graph, checked, source[0], set()):
        return []
    links: list[str] = []
    layer_id = source[0]
    while len(links) < CHAIN_LIMIT:
        layer = graph.layers[layer_id]
        link = f'{layer.type} "{layer.name}"'
        infos = checked.outputs.get(layer_id)
        value = None if not infos else infos[0].value
        if not layer.inputs:
            shown = "" if value is None or value.size > 16 else f" {value.tolist()}"
            links.append(link + shown)
            return links
        links.append(link)
        upstream = graph.producers.get((layer_id, 0))
        if upstream is None:
            return links
        layer_id = upstream[0]
    return [*links, "..."]


def _constant(graph: Graph, checked: CheckedLayers, layer_id: int, seen: set[int]) -> bool:
    """Whether a layer's outputs depend on no model input (and no ReadValue)."""
    stack = [layer_id]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        op = checked.ops.get(current)
        if op is not None and op.role is Role.INPUT:
            return False
        layer = graph.layers[current]
        if not layer.inputs and (op is None or op.role is not Role.CONSTANT):
            return False  # a source irpool does not model: a ReadValue, say
        stack.extend(
            source[0]
            for index in range(len(layer.inputs))
            if (source := graph.producers.get((current, index))) is not None
        )
    return True
