"""Stage 4a: the execution plan of a checked model, built once per model.

The plan holds what every run needs and no input changes: which layers run and with which
kernel, where their inputs come from, the constants (folded once: irpool/execute/fold.py),
element types, which tensors each step frees, the outputs' names, and for static models
their shapes and peak memory. A run (irpool/execute/run.py) only binds inputs, re-infers
shapes when the model is dynamic, and computes.

Layers are handled by their op's `role`: INPUT layers are bound to the caller's arrays,
OUTPUT layers name what `run` returns, and every other layer is folded into a constant or
runs the kernel `irpool.execute.registry` has for its op on every run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from copy import copy
from dataclasses import dataclass, field, replace
from typing import Any

from numpy.typing import NDArray

from irpool.check.checked import CheckedLayers
from irpool.cpu.bf16_in_f32 import bf16_constants_in_f32, computed_type
from irpool.cpu.compilation import compiled_for_layer
from irpool.cpu.compressed_weights import (
    decompressed_in_f32,
    decompressions,
    quantizing_matmuls,
    read_only_by_their_reader,
)
from irpool.cpu.eltwise_fusion import fused_eltwise_chains
from irpool.cpu.f16_constants import f16_constants_in_f32
from irpool.cpu.kv_cache import cache_attentions, held_caches
from irpool.cpu.linear_fusion import folded_linear_chains, multiply_adds
from irpool.cpu.product_activations import activations_after_blas_products
from irpool.cpu.product_fusion import clamps_in_products, scaled_matmuls
from irpool.cpu.quantization_clamps import clamps_before_quantizers
from irpool.cpu.quantized_convolutions import (
    marked_int8_products,
    quantizers_after_convolutions,
)
from irpool.cpu.reduce_merge import merged_reduce_chains
from irpool.cpu.replacements import Rewrite
from irpool.cpu.rms_fusion import fused_rms_norms
from irpool.cpu.rope_fusion import fused_rotary_embeddings
from irpool.cpu.subnormal_constants import flush_constant_subnormals
from irpool.cpu.topk_order import held_blocked
from irpool.element_types import ElementType
from irpool.execute.bind import ModelInput, model_input
from irpool.execute.compressed import (
    CompressedWeights,
    compressed_weights,
    mode_from_environment,
    packs_whole_rows,
)
from irpool.execute.engine import tuning
from irpool.execute.engine.blocks import threads_from_environment
from irpool.execute.fold import Candidate, Ref, cannot_run, fold_constants
from irpool.execute.frees import frees_by_step
from irpool.execute.held_variables import HeldSteps, steps_when_held
from irpool.execute.inference_groups import inference_groups
from irpool.execute.mask_chain import causal_masks
from irpool.execute.memory import replay
from irpool.execute.registry import Kernel, OutputSpec, kernel_of
from irpool.execute.tensors import ComputedTensor, computed_tensors
from irpool.execute.weights_order import in_product_order
from irpool.graph.graph import Graph, Layer
from irpool.graph.io_types import output_type
from irpool.graph.tensor_names import Names, output_key, renaming
from irpool.graph.weights import WeightsProblem
from irpool.ops.base import Op, Role, TensorInfo
from irpool.ops.mat_mul import MatMul1
from irpool.ops.variables import AssignBase, ReadValueBase
from irpool.shape import Shape

__all__ = ["ExecutionPlan", "ModelOutput", "Ref", "RunnerInput", "Step", "plan_execution"]


@dataclass(frozen=True, slots=True)
class RunnerInput:
    """What the runner needs of a loaded, error-free model."""

    graph: Graph
    checked: CheckedLayers
    ir_version: int  # tensor names differ between IR v10 and v11
    read_weights: Callable[[int, int], memoryview | WeightsProblem]
    # The model's rt_info runtime_options, which the CPU plugin applies (KV_CACHE_PRECISION).
    runtime_options: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Step:
    layer: Layer
    op: Op
    kernel: Kernel
    inputs: tuple[Ref, ...]
    outputs: tuple[OutputSpec, ...]
    kept: tuple[int, ...]  # the outputs something reads (a kernel may skip the others)
    rounded: tuple[int, ...]  # kept outputs of a type held wider, rounded to it (bf16)
    frees: tuple[Ref, ...]  # intermediates this step reads last
    # The outputs with the first marked `overwrites_input`, when the first input is an
    # intermediate this step reads last (the run checks that nothing else refers to it).
    overwriting: tuple[OutputSpec, ...] | None
    # The variable a ReadValue reads, and the op when an Assign (None: neither), which the
    # run's loop asks without looking at the op's type.
    reads_variable: str | None = None
    assign: AssignBase | None = None


@dataclass(frozen=True, slots=True)
class ModelOutput:
    """A Result: the key of its array is the name OpenVINO's `get_any_name()` gives the
    tensor it returns, or the Result layer's name when that tensor has none."""

    name: str
    layer: Layer  # the Result
    ref: Ref
    # The type OpenVINO presents it in, if not as computed (io_types.py, cpu/bf16_in_f32.py).
    converted_to: str | None = None


@dataclass(frozen=True, slots=True)
class ExecutionPlan:
    parameters: list[ModelInput]
    by_name: dict[str, ModelInput]  # every name an input answers to
    constants: dict[Ref, NDArray[Any]]
    steps: list[Step]  # every other reachable layer but Results, in topological order
    outputs: list[ModelOutput]
    tensors: list[ComputedTensor]  # what the steps compute, keyed (irpool/execute/tensors.py)
    types: dict[Ref, ElementType]
    # Shapes and the peak bytes a run adds, known from validation; None when they depend on
    # the inputs.
    static_shapes: dict[Ref, Shape] | None
    static_peak: int | None
    # Per step, the tensors its op infers from, and those of them a run computes or binds
    # (the others are the same on every run); the steps that read an input (a Parameter's
    # tensor) among them: irpool/execute/reinfer.py.
    inference_sources: list[tuple[Ref, ...]] = field(default_factory=list, repr=False)
    run_sources: list[tuple[Ref, ...]] = field(default_factory=list, repr=False)
    input_readers: frozenset[int] = frozenset()
    # Per step, its group of steps that infer alike (irpool/execute/inference_groups.py).
    inference_groups: list[int] = field(default_factory=list, repr=False)
    # The constants as checking inferred them, where a run's shape inference starts.
    constant_infos: dict[Ref, TensorInfo] = field(default_factory=dict, repr=False)
    # A dynamic model's runs: what each step's shape inference gave on inputs seen before
    # (irpool/execute/reinfer.py), so that a decode step re-infers only what its lengths change.
    inferred: RememberedInference = field(
        default_factory=lambda: RememberedInference(), compare=False, repr=False
    )
    # The steps of a run that holds every variable a ReadValue initializes (None: as many).
    held_steps: HeldSteps | None = field(default=None, repr=False)


class RememberedInference:
    """What a dynamic model's steps inferred on inputs seen before: by what the inference
    depends on (`by_key`, this run's; `older`, the last runs', of which a run keeps what it
    finds), per step its last inference with the very input descriptions it read
    (`last`: a step whose inputs are those same objects is not even keyed again), and the
    last run that inferred every step (`previous`: a step whose inputs did not change since
    is not even looked at)."""

    __slots__ = ("by_key", "last", "older", "previous")

    def __init__(self) -> None:
        self.by_key: dict[Any, Any] = {}
        self.older: list[dict[Any, Any]] = []
        self.last: dict[int, Any] = {}
        self.previous: Any = None

    def clear(self) -> None:
        self.by_key.clear()
        self.older.clear()
        self.last.clear()
        self.previous = None


def plan_execution(model: RunnerInput) -> ExecutionPlan:
    # A bad IRPOOL_THREADS or IRPOOL_TUNE fails the first run, not only a large one.
    threads_from_environment()
    tuning.enabled()
    checked = model.checked
    types = {
        (layer_id, index): computed_type(info.type)
        for layer_id, infos in checked.outputs.items()
        for index, info in enumerate(infos)
    }
    shapes = {
        (layer_id, index): info.shape
        for layer_id, infos in checked.outputs.items()
        for index, info in enumerate(infos)
    }
    kept = renaming(model.graph, model.ir_version)
    parameters, candidates, outputs = _layers(model, types, kept)
    candidates = _replaced(candidates, marked_int8_products(candidates))  # leave the f32 formula
    compressed = decompressions(candidates, types)
    read_by = Counter(ref for c in candidates for ref in c.inputs)
    read_by.update(output.ref for output in outputs)
    candidates = _replaced(candidates, quantizers_after_convolutions(candidates, read_by))
    skipped = {  # decompressed by the run; a 4-bit row of odd length is folded instead
        reader: parts
        for reader, parts in read_only_by_their_reader(compressed, read_by).items()
        if packs_whole_rows(parts.element_type, shapes[parts.weights].values()[-1])
    }
    dropped = {layer_id for parts in skipped.values() for layer_id in parts.chain}
    constants, computed = fold_constants([c for c in candidates if c.layer.id not in dropped])
    constants = f16_constants_in_f32(candidates, constants)  # as the CPU folds f16
    constants, types = bf16_constants_in_f32(candidates, computed, constants, types)
    constants = decompressed_in_f32(compressed, constants)  # as the CPU decompresses
    weights = compressed_weights(skipped, candidates, constants, mode_from_environment())
    readers = [(c.layer.type, c.inputs) for c in computed] + [("Result", [o.ref]) for o in outputs]
    constants = flush_constant_subnormals(constants, readers, types)  # as the CPU holds them
    returned = [output.ref for output in outputs]
    computed = _replaced(computed, merged_reduce_chains(computed, constants, returned))
    computed = _replaced(computed, fused_rms_norms(computed, constants, returned))
    computed = _replaced(computed, fused_rotary_embeddings(computed, constants, returned))
    layer_types = {layer_id: layer.type for layer_id, layer in model.graph.layers.items()}
    fused = fused_eltwise_chains(computed, layer_types, returned, constants, shapes)
    computed = _replaced(computed, fused)
    computed = _replaced(computed, scaled_matmuls(computed, constants, shapes, returned))
    computed = _replaced(computed, folded_linear_chains(computed, constants, returned, shapes))
    computed = _replaced(computed, multiply_adds(computed, returned, shapes))
    computed = _replaced(computed, clamps_in_products(computed, returned))
    computed = _replaced(computed, clamps_before_quantizers(computed, constants, returned))
    computed = _replaced(computed, quantizing_matmuls(computed, compressed, shapes, read_by))
    computed = _replaced(computed, by_compressed_weights(computed, weights))
    computed = _replaced(computed, activations_after_blas_products(computed))
    computed = _replaced(computed, held_caches(computed, model.runtime_options))
    computed = _replaced(computed, cache_attentions(computed, model.runtime_options, returned))
    computed = _replaced(computed, causal_masks(computed, constants, checked.outputs, returned))
    steps = _steps(computed, constants, outputs, {(p.layer.id, 0) for p in parameters})
    in_product_order(steps, constants)
    constants = _read_constants(steps, constants, outputs)
    static = all(shapes[(s.layer.id, i)].is_static for s in steps for i in range(len(s.outputs)))
    static = static and all(p.shape.is_static for p in parameters)
    by_name = {name: p for p in parameters for name in p.names}
    produced = [(step.layer, index) for step in steps for index in step.kept]
    tensors = computed_tensors(produced, [(o.ref, o.name) for o in outputs], types, kept)
    sources = [_inference_sources(model, step) for step in steps]
    run = {p.layer.id for p in parameters} | {step.layer.id for step in steps}  # its layers
    in_run = [tuple(r for r in refs if r[0] in run and r not in constants) for refs in sources]
    bound = {(p.layer.id, 0) for p in parameters}
    reading = frozenset(i for i, refs in enumerate(in_run) if not bound.isdisjoint(refs))
    constant_infos = {ref: checked.outputs[ref[0]][ref[1]] for ref in constants}
    groups = [] if static else inference_groups(model, steps, sources, in_run, constant_infos)
    plan = ExecutionPlan(
        parameters, by_name, constants, steps, outputs, tensors, types, None, None,
        sources, in_run, reading, groups, constant_infos,
        held_steps=steps_when_held(steps, [*constants, *(output.ref for output in outputs)]),
    )  # fmt: skip
    if static:
        plan = replace(plan, static_shapes=shapes, static_peak=replay(steps, shapes, types))
    return plan


def _layers(
    model: RunnerInput, types: dict[Ref, ElementType], kept: Names
) -> tuple[list[ModelInput], list[Candidate], list[ModelOutput]]:
    """The reachable layers (OpenVINO drops what no Result needs) by role: the computed ones
    in topological order, the Parameters and Results in XML order, as OpenVINO's
    `model.inputs` and `model.outputs` list them (docs/inputs-outputs.md)."""
    graph, checked = model.graph, model.checked
    reachable = [graph.layers[i] for i in graph.order if i in graph.reachable]
    read = {graph.producers[(layer.id, i)] for layer in reachable for i in range(len(layer.inputs))}
    kinds = {layer_id: layer.type for layer_id, layer in graph.layers.items()}
    parameters: list[ModelInput] = []
    candidates: list[Candidate] = []
    results: list[tuple[Layer, Ref]] = []
    for layer in reachable:
        op = checked.ops.get(layer.id)
        if op is None or layer.id in checked.trusted:
            raise cannot_run(layer)
        inputs = tuple(graph.producers[(layer.id, i)] for i in range(len(layer.inputs)))
        produced = checked.outputs[layer.id]
        if op.role is Role.INPUT:
            parameters.append(model_input(layer, produced[0], kept, model.ir_version))
        elif op.role is Role.OUTPUT:
            results.append((layer, inputs[0]))
        else:
            refs = [(layer.id, index) for index in range(len(produced))]
            specs = tuple(OutputSpec(types[ref], ref in read) for ref in refs)
            kernel = None
            if op.role is not Role.CONSTANT:
                kernel = kernel_of(op)
                blocked = layer.type == "TopK" and held_blocked(inputs[0], kinds, graph.producers)
                op = compiled_for_layer(op, [checked.outputs[r[0]][r[1]] for r in inputs], blocked)
            candidates.append(Candidate(layer, op, kernel, inputs, produced, specs))
    outputs: list[ModelOutput] = []
    taken: set[str] = set()  # the outputs' keys so far
    for layer, source in sorted(results, key=lambda item: item[0].position):
        key = output_key(graph, model.ir_version, layer, source, taken, kept)
        taken.add(key)
        presented = output_type(model.ir_version, checked.outputs[source[0]][source[1]].type.name)
        converted_to = presented if presented != types[source].name else None
        outputs.append(ModelOutput(key, layer, source, converted_to))
    parameters.sort(key=lambda parameter: parameter.layer.position)
    return parameters, candidates, outputs


def by_compressed_weights(
    computed: list[Candidate], weights: dict[int, CompressedWeights]
) -> dict[int, Rewrite | None]:
    """The MatMuls and Gathers whose weights the run holds itself: their op, given the
    weights, on the activations (or the indices) alone."""
    rewrites: dict[int, Rewrite | None] = {}
    for candidate in computed:
        if candidate.layer.id in weights:
            op = copy(candidate.op)
            held = weights[candidate.layer.id]
            if (
                isinstance(op, MatMul1)
                and op.activation_group is None
                and held.held_codes is not None
            ):
                held = held.decompressed_once()  # its activations come quantized (int8 models)
            op.compressed_weights = held  # type: ignore[attr-defined]
            read = candidate.inputs[:1] if isinstance(op, MatMul1) else candidate.inputs[1:2]
            rewrites[candidate.layer.id] = Rewrite(op, read)
    return rewrites


def _replaced(computed: list[Candidate], rewrites: dict[int, Rewrite | None]) -> list[Candidate]:
    """`computed` with the layers the CPU plugin fuses or rewrites replaced by what it runs
    instead (None: nothing, fused into a later layer)."""
    replaced = []
    for candidate in computed:
        if candidate.layer.id not in rewrites:
            replaced.append(candidate)
            continue
        rewrite = rewrites[candidate.layer.id]
        if rewrite is not None:
            kernel = kernel_of(rewrite.op)
            replaced.append(replace(candidate, op=rewrite.op, kernel=kernel, inputs=rewrite.inputs))
    return replaced


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


def _inference_sources(model: RunnerInput, step: Step) -> tuple[Ref, ...]:
    """The tensors a step's op infers from. A layer whose constant inputs the run holds itself
    (compressed weights) reads fewer inputs than its op has: the others are its layer's."""
    layer = step.layer
    if len(step.inputs) == len(layer.inputs) or type(step.op) is not type(
        model.checked.ops.get(layer.id)
    ):
        return step.inputs
    return tuple(model.graph.producers[(layer.id, index)] for index in range(len(layer.inputs)))


def _steps(
    computed: list[Candidate],
    constants: dict[Ref, NDArray[Any]],
    outputs: list[ModelOutput],
    inputs: set[Ref],
) -> list[Step]:
    """Each step with the outputs to keep (those something reads) and the intermediates to
    free after it: those it reads last and those it makes that a rewrite left unread, never a
    constant or a tensor a Result returns; its
    first input may be overwritten if freed then and not the caller's (an `inputs` one)."""
    never_freed = set(constants) | {output.ref for output in outputs}
    kept_outputs = [tuple(i for i, s in enumerate(c.outputs) if s.used) for c in computed]
    made = [[(c.layer.id, i) for i in kept] for c, kept in zip(computed, kept_outputs, strict=True)]
    frees = frees_by_step([c.inputs for c in computed], made, never_freed)
    steps = []
    for index, candidate in enumerate(computed):
        assert candidate.kernel is not None, "a layer without a kernel is folded or refused"
        specs = candidate.outputs
        kept = kept_outputs[index]
        rounded = tuple(i for i in kept if specs[i].type.rounds_when_held)
        first = candidate.inputs[:1]
        overwriting = None
        if specs and first and first[0] in frees[index] and first[0] not in inputs:
            overwriting = (replace(specs[0], overwrites_input=True), *specs[1:])
        steps.append(
            Step(
                candidate.layer,
                candidate.op,
                candidate.kernel,
                candidate.inputs,
                specs,
                kept,
                rounded,
                frees[index],
                overwriting,
                candidate.op.variable_id if isinstance(candidate.op, ReadValueBase) else None,
                candidate.op if isinstance(candidate.op, AssignBase) else None,
            )
        )
    return steps
