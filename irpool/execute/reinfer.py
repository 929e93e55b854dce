"""Stage 4b, for dynamic models: shape inference again on a run's inputs and variables, as
the runtime does, each step checked as the CPU plugin checks it (irpool/execute/run.py runs
the steps). A plan remembers what each step's inference gave on inputs seen before: most
layers of an LLM's decode step see the same shapes at every token, and only those whose
inputs change (the KV length) are inferred again."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from numpy.typing import NDArray

from irpool.element_types import element_type
from irpool.execute import memory
from irpool.execute.errors import InputError
from irpool.execute.plan import ExecutionPlan, Ref, RunnerInput, Step
from irpool.ops.base import LayerContext, NotInferable, ShapeError, TensorInfo
from irpool.ops.variables import ReadValueBase
from irpool.shape import Shape


def bound_infos(
    model: RunnerInput, plan: ExecutionPlan, tensors: dict[Ref, NDArray[Any]]
) -> dict[Ref, TensorInfo]:
    """What shape inference starts from: the inputs as given, the constants as checked."""
    infos: dict[Ref, TensorInfo] = {}
    for parameter in plan.parameters:
        array = tensors[(parameter.layer.id, 0)]
        infos[(parameter.layer.id, 0)] = TensorInfo(
            element_type(parameter.computed_as or parameter.element_type),
            Shape.of(*array.shape),
            array,
        )
    for ref in plan.constants:
        infos[ref] = model.checked.outputs[ref[0]][ref[1]]
    return infos


def reinfer(
    model: RunnerInput,
    plan: ExecutionPlan,
    infos: dict[Ref, TensorInfo],
    start: int,
    variables: Mapping[str, NDArray[Any]],
) -> tuple[int, int]:
    """Shape inference again from step `start` on the concrete inputs and variables, as the
    runtime does for dynamic models, up to the first step whose output size depends on
    values: its index (or the number of steps), and what bounds the peak memory of the steps
    before it: all their outputs and the largest working memory of one. A step inferred
    before on the same inputs is not again (the plan remembers: most layers of a decode
    step see the same shapes at each token)."""
    remembered = plan.inferred
    if len(remembered) > REMEMBERED_PER_STEP * len(plan.steps):
        remembered.clear()
    outputs = working = 0
    for position in range(start, len(plan.steps)):
        step = plan.steps[position]
        key = _inference_key(model, plan, step, position, infos, variables)
        inferred = remembered.get(key) if key is not None else None
        if inferred is None:
            inferred = _inferred(model, plan, step, infos, variables)
            if inferred is None:
                return position, outputs + working
            if key is not None:
                remembered[key] = inferred
        for index, info in enumerate(inferred.produced):
            infos[(step.layer.id, index)] = info  # with its value: a ShapeOf's feeds a Reshape
        outputs += inferred.output_bytes
        working = max(working, inferred.working_bytes)
    return len(plan.steps), outputs + working


# How many inferred steps a plan remembers before it forgets them all: every step at a
# few input lengths.
REMEMBERED_PER_STEP = 8
# An input value of at most this many bytes (a shape subgraph's) is part of what a step's
# inference is remembered by; a step that reads a larger one is inferred on every run.
REMEMBERED_VALUE_BYTES = 4096


@dataclass(frozen=True, slots=True)
class _Inferred:
    """A step's shape inference on some inputs: its outputs, what they take, and what its
    kernel needs besides (irpool/execute/memory.py)."""

    produced: list[TensorInfo]
    output_bytes: int
    working_bytes: int


def _inference_key(
    model: RunnerInput,
    plan: ExecutionPlan,
    step: Step,
    position: int,
    infos: Mapping[Ref, TensorInfo],
    variables: Mapping[str, NDArray[Any]],
) -> tuple[Any, ...] | None:
    """What a step's inference depends on, beyond the constants: each other input's type,
    shape, bounds and value, and a ReadValue's variable's shape. None: not remembered (an
    input value that is large or of objects)."""
    parts: list[Any] = [position]
    if isinstance(step.op, ReadValueBase) and step.op.variable_id in variables:
        parts.append(variables[step.op.variable_id].shape)
    for ref in _inference_sources(model, step):
        info = infos.get(ref)
        if info is None or ref in plan.constants:  # as checked, the same on every run
            continue
        value: Any = info.value
        if value is not None:
            if value.nbytes > REMEMBERED_VALUE_BYTES or value.dtype.hasobject:
                return None
            value = (value.dtype.str, value.shape, value.tobytes())
        parts.append((info.type.name, info.shape, info.bounds, info.unknown, value))
    return tuple(parts)


def _inferred(
    model: RunnerInput,
    plan: ExecutionPlan,
    step: Step,
    infos: Mapping[Ref, TensorInfo],
    variables: Mapping[str, NDArray[Any]],
) -> _Inferred | None:
    """A step's outputs inferred and checked as the runtime checks them (None: their size
    depends on values)."""
    ignore = LayerContext(frozenset(), lambda report: None, model.read_weights, at_run_time=True)
    try:
        produced = step.op.infer(_infer_inputs(model, step, infos), ignore)
        if isinstance(step.op, ReadValueBase) and step.op.variable_id in variables:
            value = variables[step.op.variable_id]
            produced = [TensorInfo(produced[0].type, Shape.of(*value.shape))]
    except (ShapeError, NotInferable) as error:
        raise InputError(f"with these inputs, {step.layer.describe()} fails: {error}") from None
    if step.op.sized_by_values and not all(info.shape.is_static for info in produced):
        return None
    for index, info in enumerate(produced):
        if not info.shape.is_static:
            raise InputError(
                f"with these inputs, {step.layer.describe()} has an undefined output shape "
                f"{info.shape}"
            )
        _check_fits(model, step, index, info.shape)
    source = infos[step.inputs[0]].shape.values() if step.inputs else ()
    refs = [(step.layer.id, index) for index in range(len(step.outputs))]
    sizes = [info.shape.values() for info in produced[: len(refs)]]
    output = sum(memory.tensor_bytes(s, plan.types[r]) for s, r in zip(sizes, refs, strict=False))
    working = max((memory.working_bytes(source, s) for s in sizes), default=0)
    return _Inferred(produced, output, working)


def _infer_inputs(
    model: RunnerInput, step: Step, infos: Mapping[Ref, TensorInfo]
) -> list[TensorInfo]:
    """What the step's op infers from (`_inference_sources`): the run's tensors, and the
    layer's constant inputs as checked where the run does not hold them."""
    return [
        infos.get(ref) or model.checked.outputs[ref[0]][ref[1]]
        for ref in _inference_sources(model, step)
    ]


def _inference_sources(model: RunnerInput, step: Step) -> Sequence[Ref]:
    """The tensors a step's op infers from. A layer whose constant inputs the run holds itself
    (compressed weights) reads fewer inputs than its op has: the others are its layer's."""
    layer = step.layer
    if len(step.inputs) == len(layer.inputs) or type(step.op) is not type(
        model.checked.ops.get(layer.id)
    ):
        return step.inputs
    return [model.graph.producers[(layer.id, index)] for index in range(len(layer.inputs))]


def _check_fits(model: RunnerInput, step: Step, index: int, shape: Shape) -> None:
    """The CPU plugin sizes each output within the dims inferred for the model, bounds of
    shape values included; those bounds are not always true (OpenVINO's FloorMod bounds are
    its corners' results: `5..9 floormod 2` is taken as 1), and a run outside them fails
    ("Can not clone with new dims", docs/shape-values.md#runs-outside-the-inferred-dims), unless it
    holds no element.
    irpool's own inference, not the file's declared dims, is that model's."""
    inferred = model.checked.outputs.get(step.layer.id)
    if inferred is None or index >= len(inferred) or inferred[index].trusted:
        return
    if 0 in shape.values():
        return
    if not inferred[index].shape.contains(shape.values()):
        raise InputError(
            f"with these inputs, {step.layer.describe()} gives {shape}, outside the "
            f"{inferred[index].shape} inferred for the model, which the CPU plugin refuses"
        )
