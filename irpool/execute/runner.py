"""Stage 4: execute a checked model in the topological order validation already computed.

The plan (which layers run, where their inputs come from, the Const values) is built once per
model; each run only binds inputs, re-infers shapes when the model is dynamic, checks memory,
and computes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from numpy.typing import NDArray

from irpool.execute.errors import ExecutionError, InputError, InvalidModelError
from irpool.execute.memory import available_memory, format_bytes, tensor_bytes, working_bytes
from irpool.graph.model import Layer
from irpool.graph.shape import Shape
from irpool.ops.base import LayerContext, NotInferable, Op, ShapeError, TensorInfo
from irpool.ops.const import Constant
from irpool.ops.parameter import Parameter
from irpool.ops.result import Result

if TYPE_CHECKING:
    from irpool.execute.bind import ModelInput
    from irpool.model import Model

Ref = tuple[int, int]  # (layer id, output index)


@dataclass(frozen=True, slots=True)
class Step:
    layer: Layer
    op: Op
    inputs: tuple[Ref, ...]


@dataclass(frozen=True, slots=True)
class Plan:
    parameters: list[ModelInput]
    constants: dict[Ref, NDArray[Any]]
    steps: list[Step]  # every other reachable layer, in topological order
    results: dict[str, Ref]  # Result layer name -> the tensor it returns
    # How many steps read each tensor, so intermediates are freed after their last use.
    readers: dict[Ref, int]
    # Shapes known from validation; None when they depend on the inputs.
    static_shapes: dict[Ref, Shape] | None


def build_plan(model: Model) -> Plan:
    # Imported here (and in `execute`): irpool.model imports this module, and validating
    # should not pay for input binding (start-up time).
    from irpool.execute.bind import model_input

    if model.has_errors:
        errors = [d for d in model.validate() if d.severity.value == "error"]
        raise InvalidModelError(
            f"{model.document.display_path}: the model has {len(errors)} error(s); fix them "
            "before running it",
            model.validate(),
        )
    graph, inference = model.graph, model.inference
    parameters: list[ModelInput] = []
    constants: dict[Ref, NDArray[Any]] = {}
    steps: list[Step] = []
    results: dict[str, Ref] = {}
    for layer_id in graph.order:
        if layer_id not in graph.reachable:
            continue  # OpenVINO drops what no Result needs
        layer = graph.layers[layer_id]
        op = inference.ops.get(layer_id)
        if op is None or layer_id in inference.trusted:
            raise ExecutionError(
                f'{layer.describe()} (version "{layer.version}") cannot be executed by irpool; '
                "it runs Parameter, Const, Result, AvgPool and AdaptiveAvgPool only"
            )
        inputs = tuple(graph.producers[(layer_id, i)] for i in range(len(layer.inputs)))
        if isinstance(op, Parameter):
            parameters.append(model_input(layer, op))
        elif isinstance(op, Constant):
            constants[(layer_id, 0)] = _constant_value(layer, inference.outputs[layer_id][0])
        else:
            if isinstance(op, Result):
                results[layer.name] = inputs[0]
            steps.append(Step(layer, op, inputs))
    readers: dict[Ref, int] = {}
    for step in steps:
        for ref in step.inputs:
            readers[ref] = readers.get(ref, 0) + 1
    shapes = {
        (layer_id, index): info.shape
        for layer_id, infos in inference.outputs.items()
        for index, info in enumerate(infos)
    }
    static = all(shapes[(s.layer.id, 0)].is_static for s in steps if not isinstance(s.op, Result))
    static = static and all(p.op.shape.is_static for p in parameters)
    return Plan(parameters, constants, steps, results, readers, shapes if static else None)


def _constant_value(layer: Layer, info: TensorInfo) -> NDArray[Any]:
    if info.value is None:
        raise ExecutionError(
            f"{layer.describe()}: irpool cannot hold {info.element_type} constants in NumPy"
        )
    return info.value


def execute(
    model: Model,
    plan: Plan,
    inputs: Mapping[str, Any],
    cast: bool,
    on_cast: Callable[[str], None] | None,
) -> dict[str, NDArray[Any]]:
    from irpool.execute.bind import bind, round_to_bf16  # see build_plan

    bound = bind(inputs, plan.parameters, cast, on_cast)
    tensors: dict[Ref, NDArray[Any]] = dict(plan.constants)
    tensors.update(((layer_id, 0), array) for layer_id, array in bound.items())
    types = {
        (layer_id, index): info.element_type
        for layer_id, infos in model.inference.outputs.items()
        for index, info in enumerate(infos)
    }
    shapes = plan.static_shapes or _reinfer(model, plan, tensors)
    _check_memory(plan, shapes, types)
    remaining = dict(plan.readers)
    outputs: dict[str, NDArray[Any]] = {}
    for step in plan.steps:
        arrays = [tensors[ref] for ref in step.inputs]
        if isinstance(step.op, Result):
            outputs[step.layer.name] = arrays[0]
            continue
        produced = step.op.compute(arrays)
        for index, array in enumerate(produced):
            if types.get((step.layer.id, index)) == "bf16":
                array = round_to_bf16(array)
            tensors[(step.layer.id, index)] = array
        for ref in step.inputs:  # free intermediates after their last reader
            remaining[ref] -= 1
            if remaining[ref] == 0 and ref not in plan.constants:
                del tensors[ref]
    return outputs


def _reinfer(model: Model, plan: Plan, tensors: dict[Ref, NDArray[Any]]) -> dict[Ref, Shape]:
    """Shape inference again on the concrete inputs, as the runtime does for dynamic models."""
    infos: dict[Ref, TensorInfo] = {}
    for parameter in plan.parameters:
        array = tensors[(parameter.layer.id, 0)]
        infos[(parameter.layer.id, 0)] = TensorInfo(
            parameter.op.element_type, Shape.of(*array.shape), array
        )
    for ref in plan.constants:
        infos[ref] = model.inference.outputs[ref[0]][ref[1]]
    ignore = LayerContext(frozenset(), lambda code, message, attribute: None, model.weights.read)
    for step in plan.steps:
        if isinstance(step.op, Result):
            continue
        try:
            produced = step.op.infer([infos[ref] for ref in step.inputs], ignore)
        except (ShapeError, NotInferable) as error:
            raise InputError(f"with these inputs, {step.layer.describe()} fails: {error}") from None
        for index, info in enumerate(produced):
            if not info.shape.is_static:
                raise InputError(
                    f"with these inputs, {step.layer.describe()} has an undefined output shape "
                    f"{info.shape}"
                )
            infos[(step.layer.id, index)] = TensorInfo(info.element_type, info.shape)
    return {ref: info.shape for ref, info in infos.items()}


def _check_memory(plan: Plan, shapes: dict[Ref, Shape], types: dict[Ref, str]) -> None:
    """Refuse before allocating anything: replay the run's allocations (each layer's output,
    freed after its last reader, and the kernel's working memory while it computes) and
    compare the peak with the memory available now. Inputs and constants are already in
    memory, so only what the run adds is counted."""
    available = available_memory()
    held: dict[Ref, int] = {}
    live = 0
    remaining = dict(plan.readers)
    for step in plan.steps:
        if isinstance(step.op, Result):
            continue  # its tensor stays held: it is returned
        ref = (step.layer.id, 0)
        shape, element_type = shapes[ref], types.get(ref, "dynamic")
        output = tensor_bytes(shape.values(), element_type)
        working = working_bytes(shape.values())
        if live + output + working > available:
            raise ExecutionError(
                f"{step.layer.describe()}: its output {shape} ({element_type}) needs "
                f"{format_bytes(output)}, and computing it up to {format_bytes(working)} more, "
                f"with {format_bytes(live)} held for other layers; only "
                f"{format_bytes(available)} of memory is available"
            )
        held[ref] = output
        live += output
        for source in step.inputs:
            remaining[source] -= 1
            if remaining[source] == 0:
                live -= held.pop(source, 0)
