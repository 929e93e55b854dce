"""Stage 4: execute a checked model in the topological order validation already computed.

The execution plan (which layers run and with which kernel, where their inputs come from,
the constant values, element types, which tensors each step frees, the outputs' names, and
for static models their shapes and peak memory) is built once per model; each run only
binds inputs, re-infers shapes when the model is dynamic, and computes.

Layers are handled by their op's `role`: INPUT layers are bound to the caller's arrays,
CONSTANT ones and layers whose every input is constant and whose value checking already
computed (folded, as OpenVINO folds them) are values, OUTPUT layers name what `run`
returns, and every other layer runs the kernel `irpool.execute.kernels` has for its op:
once, when planning, if its inputs are all constants (weights too large for checking to
fold), else on every run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from numpy.typing import NDArray

from irpool.check.layer_checker import CheckedLayers
from irpool.execute.bind import InputKey, ModelInput, bind, model_input, round_to_bf16
from irpool.execute.errors import ExecutionError, InputError
from irpool.execute.kernels import Kernel, OutputSpec, kernel_of, runnable_types
from irpool.execute.memory import (
    CHECK_SHARE,
    available_memory,
    format_bytes,
    physical_memory,
    tensor_bytes,
    working_bytes,
)
from irpool.execute.reduce_merge import merge_reduce_chains
from irpool.graph.graph import Graph, Layer
from irpool.graph.weights import WeightsProblem
from irpool.ops.base import LayerContext, NotInferable, Op, Role, ShapeError, TensorInfo
from irpool.ops.conversion import as_constant
from irpool.ops.convert import Convert1
from irpool.parse.values import read_tensor_names
from irpool.shape import Shape

Ref = tuple[int, int]  # (layer id, output index)
# A layer its kernel runs: the layer, its op, the kernel, its inputs, its output count.
Computed = tuple[Layer, Op, Kernel, tuple[Ref, ...], int]


@dataclass(frozen=True, slots=True)
class RunnerInput:
    """What the runner needs of a loaded, error-free model."""

    graph: Graph
    checked: CheckedLayers
    ir_version: int  # tensor names differ between IR v10 and v11
    read_weights: Callable[[int, int], memoryview | WeightsProblem]


@dataclass(frozen=True, slots=True)
class Step:
    layer: Layer
    op: Op
    kernel: Kernel
    inputs: tuple[Ref, ...]
    outputs: tuple[OutputSpec, ...]
    kept: tuple[int, ...]  # the outputs something reads (a kernel may skip the others)
    bf16_outputs: tuple[int, ...]  # kept outputs rounded to bf16 (NumPy holds them as f32)
    frees: tuple[Ref, ...]  # intermediates this step reads last


@dataclass(frozen=True, slots=True)
class ModelOutput:
    """A Result: the key of its array is the name OpenVINO's `get_any_name()` gives the
    tensor it returns, or the Result layer's name when that tensor has none."""

    name: str
    layer: Layer  # the Result
    ref: Ref


@dataclass(frozen=True, slots=True)
class ExecutionPlan:
    parameters: list[ModelInput]
    by_name: dict[str, ModelInput]  # every name an input answers to
    constants: dict[Ref, NDArray[Any]]
    steps: list[Step]  # every other reachable layer but Results, in topological order
    outputs: list[ModelOutput]
    types: dict[Ref, str]
    # Shapes and the peak bytes a run adds, known from validation; None when they depend on
    # the inputs.
    static_shapes: dict[Ref, Shape] | None
    static_peak: int | None


def plan_execution(model: RunnerInput) -> ExecutionPlan:
    graph, checked = model.graph, model.checked
    parameters: list[ModelInput] = []
    constants: dict[Ref, NDArray[Any]] = {}
    computed: list[Computed] = []
    outputs: list[ModelOutput] = []
    taken: set[str] = set()  # the outputs' keys so far
    for layer_id in graph.order:
        if layer_id not in graph.reachable:
            continue  # OpenVINO drops what no Result needs
        layer = graph.layers[layer_id]
        op = checked.ops.get(layer_id)
        inputs = tuple(graph.producers[(layer_id, i)] for i in range(len(layer.inputs)))
        if op is None or layer_id in checked.trusted:
            raise _cannot_run(layer)
        produced = checked.outputs[layer_id]
        if op.role is Role.INPUT:
            parameters.append(model_input(layer, produced[0]))
        elif op.role is Role.OUTPUT:
            key = _output_key(model, layer, inputs[0], taken)
            taken.add(key)
            outputs.append(ModelOutput(key, layer, inputs[0]))
        elif op.role is Role.CONSTANT or _folded(inputs, constants, produced):
            for index, info in enumerate(produced):
                constants[(layer_id, index)] = _constant_value(layer, info)
        elif (value := _folded_convert(op, inputs, constants, produced[0])) is not None:
            constants[(layer_id, 0)] = value
        else:
            kernel = kernel_of(op)
            if kernel is None:
                raise _cannot_run(layer)
            layer_op = op.for_layer([checked.outputs[ref[0]][ref[1]] for ref in inputs])
            computed.append((layer, layer_op, kernel, inputs, len(produced)))
    types = {
        (layer_id, index): info.element_type
        for layer_id, infos in checked.outputs.items()
        for index, info in enumerate(infos)
    }
    # What runs sees constants as the CPU plugin holds them (i64 saturated to int32, ...);
    # folding above saw them as written, as OpenVINO's folding does.
    constants = {ref: as_constant(value, types[ref]) for ref, value in constants.items()}
    shapes = {
        (layer_id, index): info.shape
        for layer_id, infos in checked.outputs.items()
        for index, info in enumerate(infos)
    }
    returned = [output.ref for output in outputs]
    computed = merge_reduce_chains(computed, constants, returned)  # as the CPU plugin does
    steps = _steps(computed, types, constants, outputs)
    steps = _fold_constant_steps(steps, constants, types, shapes)
    constants = _read_constants(steps, constants, outputs)
    static = all(shapes[ref].is_static for s in steps for ref in _refs(s))
    static = static and all(p.shape.is_static for p in parameters)
    by_name = {name: p for p in parameters for name in p.names}
    plan = ExecutionPlan(parameters, by_name, constants, steps, outputs, types, None, None)
    if static:
        plan = replace(plan, static_shapes=shapes, static_peak=_replay(plan, shapes))
    return plan


def _read_constants(
    steps: list[Step], constants: dict[Ref, NDArray[Any]], outputs: list[ModelOutput]
) -> dict[Ref, NDArray[Any]]:
    """The constants a run reads, read-only (every run shares them): a folded layer's sources
    (the f16 weights of a decompression Convert) are not held beside its value."""
    read = {ref for step in steps for ref in step.inputs} | {output.ref for output in outputs}
    kept = {ref: value for ref, value in constants.items() if ref in read}
    for value in kept.values():
        value.flags.writeable = False
    return kept


def _cannot_run(layer: Layer) -> ExecutionError:
    return ExecutionError(
        f'{layer.describe()} (version "{layer.version}") cannot be executed by irpool; '
        f"it runs {', '.join(runnable_types())} only"
    )


def _folded(
    inputs: tuple[Ref, ...], constants: dict[Ref, NDArray[Any]], produced: list[TensorInfo]
) -> bool:
    """Whether checking computed the layer's outputs from constant inputs: OpenVINO folds
    such layers when it reads the model, so their value is what checking computed."""
    return (
        bool(inputs)
        and all(ref in constants for ref in inputs)
        and all(info.value is not None for info in produced)
    )


def _fold_constant_steps(
    steps: list[Step],
    constants: dict[Ref, NDArray[Any]],
    types: dict[Ref, str],
    shapes: dict[Ref, Shape],
) -> list[Step]:
    """Run once, now, the steps whose inputs are all constants (a large fp16 decompression
    Convert, a Reshape of weights: too large for checking to fold) and keep their outputs as
    constants, so no run repeats them (`_read_constants` then drops the constants nothing
    reads any more). A step that cannot run (its kernel refuses it, or it needs more memory
    than there is) stays a step, and fails at run time as before."""
    remaining = [
        step
        for step in steps
        if not (
            all(ref in constants for ref in step.inputs)
            and _fits_in_memory(step, types, shapes)
            and _computed_once(step, constants)
        )
    ]
    return [
        replace(step, frees=tuple(ref for ref in step.frees if ref not in constants))
        for step in remaining
    ]


def _fits_in_memory(step: Step, types: dict[Ref, str], shapes: dict[Ref, Shape]) -> bool:
    """Whether computing the step now stays within the memory available, checked as a run
    checks it (only when it needs a noticeable share of the machine's)."""
    refs = _refs(step)
    if not all(shapes[ref].is_static for ref in refs):
        return False
    output = sum(tensor_bytes(shapes[ref].values(), types[ref]) for ref in refs)
    working = max((working_bytes(shapes[ref].values()) for ref in refs), default=0)
    return _affordable(output + working)


def _affordable(needed: int) -> bool:
    """Whether `needed` bytes fit in the memory available now; asked only for a noticeable
    share of the machine's, as a run asks."""
    return needed * CHECK_SHARE <= physical_memory() or needed <= available_memory()


def _computed_once(step: Step, constants: dict[Ref, NDArray[Any]]) -> bool:
    """Compute the step's kept outputs into `constants`; False when its kernel refuses it."""
    try:
        produced = step.kernel(step.op, [constants[ref] for ref in step.inputs], step.outputs)
    except ExecutionError:
        return False
    for index in step.kept:
        value = produced[index]
        assert value is not None, "a kernel returns every output something reads"
        if index in step.bf16_outputs:
            value = round_to_bf16(value)
        constants[(step.layer.id, index)] = value
    return True


def _folded_convert(
    op: Op, inputs: tuple[Ref, ...], constants: dict[Ref, NDArray[Any]], produced: TensorInfo
) -> NDArray[Any] | None:
    """A Convert of a constant of any size, folded as OpenVINO folds it when it compiles (the
    check folds small ones only); None for other layers, for types NumPy cannot hold, and
    when the memory available cannot hold the result (it then runs, and is refused, as a
    step)."""
    if not isinstance(op, Convert1) or inputs[0] not in constants:
        return None
    if not _affordable(tensor_bytes(produced.shape.values(), produced.element_type)):
        return None
    return op.fold_constant(constants[inputs[0]])


def _refs(step: Step) -> list[Ref]:
    return [(step.layer.id, index) for index in range(len(step.outputs))]


def _steps(
    computed: list[Computed],
    types: dict[Ref, str],
    constants: dict[Ref, NDArray[Any]],
    outputs: list[ModelOutput],
) -> list[Step]:
    """Each step with the outputs to keep (those something reads) and the intermediates to
    free after it: those it reads last, never a Const or a tensor a Result returns."""
    never_freed = set(constants) | {output.ref for output in outputs}
    last_reader = {ref: index for index, (*_, inputs, _) in enumerate(computed) for ref in inputs}
    frees: list[list[Ref]] = [[] for _ in computed]
    for ref, index in last_reader.items():
        if ref not in never_freed:
            frees[index].append(ref)
    steps = []
    for index, (layer, op, kernel, inputs, count) in enumerate(computed):
        refs = [(layer.id, i) for i in range(count)]
        used = [ref in last_reader or ref in never_freed for ref in refs]
        specs = tuple(
            OutputSpec.of(types[ref], wanted) for ref, wanted in zip(refs, used, strict=True)
        )
        kept = tuple(i for i, wanted in enumerate(used) if wanted)
        bf16 = tuple(i for i in kept if types[refs[i]] == "bf16")
        steps.append(Step(layer, op, kernel, inputs, specs, kept, bf16, tuple(frees[index])))
    return steps


def _output_key(model: RunnerInput, result: Layer, ref: Ref, taken: set[str]) -> str:
    """OpenVINO's `get_any_name()` is the smallest of the tensor's names; without names (or
    when an earlier Result returns the same tensor) the Result layer's name."""
    names = tensor_names(model, result, ref)
    candidates = [min(names)] if names else []
    candidates += [result.name, f"{result.name}#{result.id}"]
    return next(name for name in candidates if name not in taken)


def tensor_names(model: RunnerInput, result: Layer, ref: Ref) -> tuple[str, ...]:
    """The names OpenVINO gives the tensor a Result returns (checked against read_model):
    IR v11 takes the Result's `output_names` when it has any, else the producing port's
    `names`; IR v10 takes the port's `names` plus the producing layer's name (`.index`
    added when it has several outputs), as update_v10_model does."""
    if model.ir_version != 10:
        declared = read_tensor_names(result.element.get("output_names", ""))
        if declared:
            return declared
    producer = model.graph.layers[ref[0]]
    names: tuple[str, ...] = ()
    if ref[1] < len(producer.outputs):
        port = producer.port_element(producer.outputs[ref[1]])
        names = read_tensor_names(port.get("names", ""))
    if model.ir_version == 10:
        suffix = f".{ref[1]}" if len(producer.outputs) > 1 else ""
        names += (producer.name + suffix,)
    return names


def _constant_value(layer: Layer, info: TensorInfo) -> NDArray[Any]:
    if info.value is None:
        raise ExecutionError(
            f"{layer.describe()}: irpool cannot hold {info.element_type} constants in NumPy"
        )
    return info.value


def execute(
    model: RunnerInput,
    plan: ExecutionPlan,
    inputs: Mapping[InputKey, Any],
    cast: bool,
    on_cast: Callable[[str], None] | None,
) -> dict[str, NDArray[Any]]:
    tensors = bind(inputs, plan.parameters, plan.by_name, cast, on_cast)
    tensors.update(plan.constants)
    shapes = plan.static_shapes or _reinfer(model, plan, tensors)
    peak = plan.static_peak if plan.static_peak is not None else _replay(plan, shapes)
    if peak * CHECK_SHARE > physical_memory():
        _replay(plan, shapes, available_memory())
    for step in plan.steps:
        produced = step.kernel(step.op, [tensors[ref] for ref in step.inputs], step.outputs)
        for index in step.kept:
            array = produced[index]
            assert array is not None  # a kernel may skip only the outputs nothing reads
            if index in step.bf16_outputs:
                array = round_to_bf16(array)
            tensors[(step.layer.id, index)] = array
        for ref in step.frees:
            del tensors[ref]
    return {output.name: tensors[output.ref] for output in plan.outputs}


def _reinfer(
    model: RunnerInput, plan: ExecutionPlan, tensors: dict[Ref, NDArray[Any]]
) -> dict[Ref, Shape]:
    """Shape inference again on the concrete inputs, as the runtime does for dynamic models."""
    infos: dict[Ref, TensorInfo] = {}
    for parameter in plan.parameters:
        array = tensors[(parameter.layer.id, 0)]
        infos[(parameter.layer.id, 0)] = TensorInfo(
            parameter.element_type, Shape.of(*array.shape), array
        )
    for ref in plan.constants:
        infos[ref] = model.checked.outputs[ref[0]][ref[1]]
    ignore = LayerContext(frozenset(), lambda report: None, model.read_weights)
    for step in plan.steps:
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


def _replay(plan: ExecutionPlan, shapes: dict[Ref, Shape], available: int | None = None) -> int:
    """The peak bytes a run adds: replay its allocations (each layer's outputs, the read ones
    freed after their last reader, and the kernel's working memory while it computes). Inputs and
    constants are already in memory. Given the memory `available` now, refuse at the first
    layer that would exceed it, before anything is allocated."""
    held: dict[Ref, int] = {}
    live = peak = 0
    for step in plan.steps:
        sizes = {ref: tensor_bytes(shapes[ref].values(), plan.types[ref]) for ref in _refs(step)}
        output = sum(sizes.values())
        working = max((working_bytes(shapes[ref].values()) for ref in sizes), default=0)
        if available is not None and live + output + working > available:
            described = ", ".join(f"{shapes[ref]} ({plan.types[ref]})" for ref in sizes)
            raise ExecutionError(
                f"{step.layer.describe()}: its output {described} needs "
                f"{format_bytes(output)}, and computing it up to {format_bytes(working)} more, "
                f"with {format_bytes(live)} held for other layers; only "
                f"{format_bytes(available)} of memory is available"
            )
        peak = max(peak, live + output + working)
        for index in step.kept:  # an output nothing reads is dropped at once
            ref = (step.layer.id, index)
            held[ref] = sizes[ref]
            live += sizes[ref]
        for source in step.frees:
            live -= held.pop(source, 0)
    return peak
