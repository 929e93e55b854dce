"""Stage 4b: one run of a planned model: bind the inputs, re-infer shapes when the model is
dynamic, check that the run fits in memory, and compute each step in order.

A stateful model's run may carry `variables` (an infer request's, irpool/model.py): each
ReadValue of a variable they hold gives its value instead of its first value, and what the
Assigns receive replaces them when the run ends, as the CPU plugin commits its states after
an inference."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.kv_cache import stored_value
from irpool.execute import memory
from irpool.execute.bind import Inputs, bind
from irpool.execute.errors import ExecutionError, InputError
from irpool.execute.kernels.convert import convert
from irpool.execute.plan import ExecutionPlan, ModelOutput, Ref, RunnerInput, Step
from irpool.execute.registry import OutputSpec
from irpool.execute.reinfer import bound_infos, reinfer
from irpool.execute.segment_memory import check_segment
from irpool.ops.base import ShapeError, TensorInfo
from irpool.ops.variables import ReadValueBase, first_value_shape
from irpool.shape import Shape


@dataclass(frozen=True, slots=True)
class _Variables:
    """A run's variables: their values as it starts (what its ReadValues give, when held)
    and what its Assigns receive (the values when it ends)."""

    held: Mapping[str, NDArray[Any]]
    assigned: dict[str, NDArray[Any]] = field(default_factory=dict)


def execute(
    model: RunnerInput,
    plan: ExecutionPlan,
    inputs: Inputs,
    cast: bool,
    on_cast: Callable[[str], None] | None,
    keep: bool = False,
    observe: Observer | None = None,
    variables: dict[str, NDArray[Any]] | None = None,
) -> tuple[dict[str, NDArray[Any]], dict[str, NDArray[Any]]]:
    """The outputs by key, and when the run `keep`s them, every tensor it computed (by key,
    in run order: irpool/execute/tensors.py); nothing is freed then. `observe` sees each
    step with the run's tensors (constants and inputs included) right after it computes,
    before it frees what it read last. `variables` (None: every ReadValue gives its first
    value) are read, then updated by the Assigns."""
    state = _Variables({} if variables is None else dict(variables))
    tensors = bind(inputs, plan.parameters, plan.by_name, cast, on_cast)
    for parameter in plan.parameters:  # the file's type, where OpenVINO presents another
        if parameter.computed_as is not None:
            ref = (parameter.layer.id, 0)
            tensors[ref] = convert(tensors[ref], parameter.computed_as)
    tensors.update(plan.constants)
    if plan.static_shapes is not None:
        _check_memory(plan, plan.static_shapes, keep, plan.static_peak)
        _run_steps(_steps_run(plan, keep, observe, state), tensors, keep, observe, state)
    else:
        _run_dynamic(model, plan, tensors, keep, observe, state)
    outputs = {output.name: _presented(output, tensors[output.ref]) for output in plan.outputs}
    if variables is not None:
        stored = {id(array) for array in (*state.assigned.values(), *state.held.values())}
        # The caller's outputs are its own: none is a variable's array it could change.
        outputs = {k: v.copy() if id(v) in stored else v for k, v in outputs.items()}
        variables.update(state.assigned)
    return outputs, ({t.name: tensors[t.ref] for t in plan.tensors} if keep else {})


# What a caller may see of a run as it goes: a step and the tensors alive after it.
Observer = Callable[[Step, Mapping[Ref, NDArray[Any]]], None]


def _run_steps(
    steps: Sequence[Step],
    tensors: dict[Ref, Any],
    keep: bool,
    observe: Observer | None,
    variables: _Variables,
) -> None:
    held, assigned = variables.held, variables.assigned
    for step in steps:
        arrays = [tensors[ref] for ref in step.inputs]
        specs = step.outputs
        if step.overwriting is not None and not keep and _unshared(arrays[0]):
            specs = step.overwriting
        if step.assign is not None:  # held here: no later step overwrites it
            assigned[step.assign.variable_id] = stored_value(step.assign, arrays)
        try:
            _store(step, _computed(step, arrays, specs, held), tensors)
        except ShapeError as error:  # what only the values show (a Squeeze of a dim not 1)
            raise InputError(f"with these inputs, {step.layer.describe()} fails: {error}") from None
        except ExecutionError as error:  # what a kernel cannot run: the message names the layer
            raise ExecutionError(f"{step.layer.describe()}: {error}", error.diagnostics) from None
        del arrays  # `tensors` alone holds them now: a later step may overwrite one
        if observe is not None:
            observe(step, tensors)
        if not keep:
            for ref in step.frees:
                del tensors[ref]


def _run_dynamic(
    model: RunnerInput,
    plan: ExecutionPlan,
    tensors: dict[Ref, Any],
    keep: bool,
    observe: Observer | None,
    variables: _Variables,
) -> None:
    """A dynamic model: shapes inferred again on the inputs, as the runtime does. A layer
    whose output size depends on values (NonZero) ends a segment: the steps up to it are
    checked for memory and run, then inference goes on from its actual output."""
    infos = bound_infos(plan, tensors)
    start = 0
    while start < len(plan.steps):
        end, inferred = reinfer(model, plan, infos, start, variables.held)
        segment: Sequence[Step] = plan.steps[start:end]
        held = sum(array.nbytes for ref, array in tensors.items() if ref not in plan.constants)
        check_segment(plan, segment, infos, inferred, keep, held)
        if start == 0 and end == len(plan.steps):  # one segment: the run's steps
            segment = _steps_run(plan, keep, observe, variables)
        _run_steps(segment, tensors, keep, observe, variables)
        if end < len(plan.steps):  # the value-dependent step: its size is known once run
            step = plan.steps[end]
            _run_steps([step], tensors, keep, observe, variables)
            for index in step.kept:
                array = tensors[(step.layer.id, index)]
                kind = step.outputs[index].type
                infos[(step.layer.id, index)] = TensorInfo(kind, Shape.of(*array.shape), array)
            end += 1
        start = end


def _steps_run(
    plan: ExecutionPlan, keep: bool, observe: Observer | None, variables: _Variables
) -> Sequence[Step]:
    """The steps of a whole run: without those that only initializers read when the run
    holds every variable they initialize and no one sees its tensors
    (irpool/execute/held_variables.py)."""
    held = plan.held_steps
    if held is None or keep or observe is not None or not held.variables <= variables.held.keys():
        return plan.steps
    return held.steps


def _check_memory(
    plan: ExecutionPlan, shapes: Mapping[Ref, Shape], keep: bool, peak: int | None
) -> None:
    """Refuse before allocating when a static model's run would not fit in the memory
    available (`peak`: the plan's, when known and the run keeps nothing)."""
    if peak is None or keep:
        peak = memory.replay(plan.steps, shapes, plan.types, keep=keep)
    if peak * memory.CHECK_SHARE > memory.physical_memory():
        memory.replay(plan.steps, shapes, plan.types, memory.available_memory(), keep)


def _computed(
    step: Step,
    arrays: list[NDArray[Any]],
    specs: tuple[OutputSpec, ...],
    variables: Mapping[str, NDArray[Any]],
) -> list[NDArray[Any] | None]:
    """A step's outputs: a ReadValue's variable, when the run holds it, or its kernel's."""
    if step.reads_variable is not None and step.reads_variable in variables:
        return [variables[step.reads_variable]]
    return step.kernel(step.op, arrays, specs)


def _presented(output: ModelOutput, array: NDArray[Any]) -> NDArray[Any]:
    """An output in the type OpenVINO presents it in (graph/io_types.py)."""
    return array if output.converted_to is None else convert(array, output.converted_to)


def _store(step: Step, produced: list[NDArray[Any] | None], tensors: dict[Ref, Any]) -> None:
    """A step's kept outputs into the run's tensors (in a function of its own, so that no
    variable of the run's loop still refers to them)."""
    layer_id = step.layer.id
    for index in step.kept:
        array = produced[index]
        assert array is not None  # a kernel may skip only the outputs nothing reads
        if index in step.rounded:
            array = step.outputs[index].held(array)
        tensors[(layer_id, index)] = array


def _unshared(array: NDArray[Any]) -> bool:
    """Whether a step may overwrite its input: an array of its own (no view of another) that
    nothing but the run's tensors and the step's input list refers to (no view of it, not
    the caller's, not returned)."""
    return array.base is None and array.flags.writeable and _references(array) <= HELD_BY_RUN


def _references(array: NDArray[Any]) -> int:
    return sys.getrefcount(array)


def _held_by_run() -> int:
    """What `_references` counts, called as `_unshared` calls it, for an array a dict and a
    list hold and nothing else (what the count itself adds differs between Python versions)."""
    array = np.empty(1)
    holders = ({0: array}, [array])
    del array
    return _as_unshared_counts(holders[1][0])


def _as_unshared_counts(array: NDArray[Any]) -> int:
    return _references(array)  # one frame between, as in `_unshared`


HELD_BY_RUN = _held_by_run()


def first_values(model: RunnerInput, plan: ExecutionPlan) -> dict[str, NDArray[Any]]:
    """Each variable the model's ReadValues read, as OpenVINO's query_state shows it before a
    run has assigned it: zeros of the shape of an initializer the run computes, or else (no
    initializer, a constant one) of the variable's; each dynamic dim 0."""
    values: dict[str, NDArray[Any]] = {}
    for step in plan.steps:
        if not isinstance(step.op, ReadValueBase):
            continue
        variable = model.checked.outputs[step.layer.id][0]
        shape = variable.shape
        if step.inputs and step.inputs[0] not in plan.constants:
            shape = model.checked.outputs[step.inputs[0][0]][step.inputs[0][1]].shape
        dtype = variable.type.held_dtype
        if dtype is not None:
            values.setdefault(step.op.variable_id, np.zeros(first_value_shape(shape), dtype))
    return values
