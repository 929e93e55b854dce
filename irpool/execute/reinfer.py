"""Stage 4b, for dynamic models: shape inference again on a run's inputs and variables, as
the runtime does, each step checked as the CPU plugin checks it (irpool/execute/run.py runs
the steps). A plan remembers what each step's inference gave on inputs seen in the last
runs: most layers of an LLM's decode step see the same shapes at every token, and only those
whose inputs change (the KV length) are inferred again. A run starts from the last whole
run's inferences and looks only at the steps whose inputs changed since."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from heapq import heappop, heappush
from operator import is_
from typing import Any, cast

from numpy.typing import NDArray

from irpool.element_types import element_type
from irpool.execute import memory
from irpool.execute.errors import InputError
from irpool.execute.plan import ExecutionPlan, Ref, RunnerInput, Step
from irpool.ops.base import LayerContext, NotInferable, Op, ShapeError, TensorInfo
from irpool.shape import Shape


def bound_infos(plan: ExecutionPlan, tensors: dict[Ref, NDArray[Any]]) -> dict[Ref, TensorInfo]:
    """What shape inference starts from: the inputs as given, the constants as checked."""
    infos = dict(plan.constant_infos)
    for parameter in plan.parameters:
        array = tensors[(parameter.layer.id, 0)]
        infos[(parameter.layer.id, 0)] = TensorInfo(
            element_type(parameter.computed_as or parameter.element_type),
            Shape.of(*array.shape),
            array,
        )
    return infos


def reinfer(
    model: RunnerInput,
    plan: ExecutionPlan,
    infos: dict[Ref, TensorInfo],
    start: int,
    variables: Mapping[str, NDArray[Any]],
) -> tuple[int, list[_Inferred]]:
    """Shape inference again from step `start` on the concrete inputs and variables, as the
    runtime does for dynamic models, up to the first step whose output size depends on
    values: its index (or the number of steps), and the inference of each step before it
    (what it takes in memory: irpool/execute/segment_memory.py). A step inferred
    in this run or the last `REMEMBERED_RUNS` on the same inputs, or a step of its group
    (irpool/execute/inference_groups.py), is not again (the plan remembers: most layers of a
    decode step see the same shapes at each token)."""
    remembered = plan.inferred
    last_of, by_key, input_readers = remembered.last, remembered.by_key, plan.input_readers
    groups = plan.inference_groups
    if start == 0:  # what the last runs inferred by key and this one does not find is
        # forgotten: a decode step's inferences at its length die young (the collector need
        # not look at them again and again as old objects)
        remembered.older = [by_key, *remembered.older][:REMEMBERED_RUNS]
        remembered.by_key = by_key = {}
    older = remembered.older
    ignore = LayerContext(frozenset(), lambda report: None, model.read_weights, at_run_time=True)
    steps, run_sources = plan.steps, plan.run_sources
    done = cast(list[_Inferred], [None] * len(steps))  # each filled before it is read
    # A run from the first step starts from the last whole run's inferences and looks only
    # at the steps that read an input or a variable, or a tensor whose description changed
    # since (it is not that same object): the others keep theirs.
    previous: _WholeRun | None = remembered.previous if start == 0 else None
    positions: Iterable[int] = range(start, len(steps))
    if previous is not None:
        infos.update(previous.infos)  # not the inputs': they are no part of it
        done[:] = previous.inferred
        positions = pending = _Pending(previous.looked_at)
    before, unread = (previous.infos, previous.unread) if previous else ({}, frozenset())
    # Per group, the last step's inference in this run and what it read: a step of the
    # group that reads the very same descriptions (a decoder block's step after the first
    # block's, fed by the inferences they share) infers alike without a key.
    group_last: dict[int, _Read] = {}
    for position in positions:
        step = steps[position]
        read_variable = step.reads_variable
        variable = None
        if read_variable is not None and read_variable in variables:
            variable = variables[read_variable].shape
        read = list(map(infos.get, run_sources[position]))
        last = last_of.get(position)
        group = groups[position]
        sibling = group_last.get(group)
        if last is not None and _reads_alike(last, read, variable):
            inferred = last[2]
        elif sibling is not None and _reads_alike(sibling, read, variable):
            inferred = sibling[2]
            if position not in input_readers:
                last_of[position] = (read, variable, inferred)
        else:
            valueless = position in unread  # no value of another token is kept
            key = _inference_key(group, read, variable, valueless or _by_shapes(step.op, read))
            found = None if key is None else _remembered(key, by_key, older)
            if found is None:
                found = _inferred(model, plan, position, infos, variables, ignore, valueless)
                if found is None:
                    return position, done[start:position]
            if key is not None:
                by_key[key] = found
            inferred = found
            if position not in input_readers:  # an input's is new at every run
                last_of[position] = (read, variable, inferred)
        group_last[group] = (read, variable, inferred)
        layer_id = step.layer.id
        for index, info in enumerate(inferred.produced):
            ref = (layer_id, index)
            if previous is not None and before.get(ref) is not info:
                pending.extend(previous.readers.get(ref, ()))
            infos[ref] = info  # with its value: a ShapeOf's feeds a Reshape
        done[position] = inferred
    if start == 0:
        remembered.previous = _whole_run(plan, infos, done, previous)
    return len(plan.steps), done[start:]


# What a step read and its variable's shape when it was inferred, and the inference.
_Read = tuple[list[TensorInfo | None], Any, "_Inferred"]


def _reads_alike(memo: _Read, read: list[TensorInfo | None], variable: Any) -> bool:
    """Whether a step reads the very descriptions (the same objects) and variable shape
    another inference was made on."""
    return memo[1] == variable and len(memo[0]) == len(read) and all(map(is_, memo[0], read))


def _by_shapes(op: Op, read: list[TensorInfo | None]) -> bool:
    """Whether the op's inference on these inputs reads their types and shapes alone: it
    reads no more, or it reads values only where every input has one and an input the run
    computes has neither a value nor bounds."""
    if op.infers_from_shapes:
        return True
    return op.reads_values_of_all and any(
        info is not None and info.value is None and info.bounds is None for info in read
    )


def _remembered(key: tuple[Any, ...], by_key: dict[Any, Any], older: list[dict[Any, Any]]) -> Any:
    """The inference remembered by `key` in this run's table or an older run's; None."""
    found = by_key.get(key)
    for table in older if found is None else ():
        found = table.get(key)
        if found is not None:
            break
    return found


def _whole_run(
    plan: ExecutionPlan,
    infos: dict[Ref, TensorInfo],
    done: list[_Inferred],
    previous: _WholeRun | None,
) -> _WholeRun:
    """What the plan keeps of a run from the first step to the last."""
    kept = _without_inputs(plan, infos, done)
    if previous is not None:
        return _WholeRun(kept, done, previous.readers, previous.looked_at, previous.unread)
    readers, looked_at = _readers(plan)
    return _WholeRun(kept, done, readers, looked_at, _values_unread(plan, readers))


class _Pending:
    """Step positions to look at, taken in increasing order as later ones are added."""

    __slots__ = ("_heap", "_seen")

    def __init__(self, first: tuple[int, ...]) -> None:
        self._heap = list(first)  # sorted: a heap already
        self._seen = set(first)

    def extend(self, positions: tuple[int, ...]) -> None:
        for position in positions:
            if position not in self._seen:
                self._seen.add(position)
                heappush(self._heap, position)

    def __iter__(self) -> _Pending:
        return self

    def __next__(self) -> int:
        if not self._heap:
            raise StopIteration
        return heappop(self._heap)


def _readers(plan: ExecutionPlan) -> tuple[dict[Ref, tuple[int, ...]], tuple[int, ...]]:
    """Per tensor a run computes or binds, the positions of the steps that infer from it; and
    the steps a run looks at in any case: those that read an input or a variable."""
    found: dict[Ref, list[int]] = {}
    for position, sources in enumerate(plan.run_sources):
        for ref in sources:
            found.setdefault(ref, []).append(position)
    reading = {p for p, step in enumerate(plan.steps) if step.reads_variable is not None}
    looked_at = tuple(sorted(reading | plan.input_readers))
    return {ref: tuple(positions) for ref, positions in found.items()}, looked_at


def _values_unread(plan: ExecutionPlan, readers: dict[Ref, tuple[int, ...]]) -> frozenset[int]:
    """The steps of ops `shaped_by_data_shape` that read one tensor the run computes or binds, whose
    outputs only steps that infer from types and shapes read, or other such steps (the
    positions' Unsqueeze and Convert before the rotary product): their inference is
    remembered by their input's type and shape, without the values no one reads."""
    unread: set[int] = set()
    for position in reversed(range(len(plan.steps))):
        step = plan.steps[position]
        if not step.op.shaped_by_data_shape or plan.run_sources[position] != step.inputs[:1]:
            continue
        refs = [(step.layer.id, index) for index in range(len(step.outputs))]
        users = [user for ref in refs for user in readers.get(ref, ())]
        if users and all(u in unread or plan.steps[u].op.infers_from_shapes for u in users):
            unread.add(position)
    return frozenset(unread)


def _shape_of(info: TensorInfo) -> TensorInfo:
    """A description without its value."""
    return TensorInfo(info.type, info.shape, unknown=info.unknown, bounds=info.bounds)


def _without_inputs(
    plan: ExecutionPlan, infos: dict[Ref, TensorInfo], done: list[_Inferred]
) -> dict[Ref, TensorInfo]:
    """A run's inferences as the plan keeps them: none of the inputs' (their values are the
    caller's arrays) nor of the steps that read them (new at every run)."""
    kept = dict(infos)
    for parameter in plan.parameters:
        kept.pop((parameter.layer.id, 0), None)
    for position in plan.input_readers:
        for index in range(len(done[position].produced)):
            kept.pop((plan.steps[position].layer.id, index), None)
    return kept


# How many runs before the present one a plan remembers what they inferred by key (each
# step's last inference stays in any case).
REMEMBERED_RUNS = 2
# An input value of at most this many bytes (a shape subgraph's) is part of what a step's
# inference is remembered by; a step that reads a larger one is inferred on every run.
REMEMBERED_VALUE_BYTES = 4096


@dataclass(frozen=True, slots=True)
class _WholeRun:
    """What a run from the first step to the last inferred: every tensor's description (but
    the inputs' and their readers') and each step's inference, in order; and what the next
    run looks at: per tensor the steps that infer from it, and the steps that read an input
    or a variable."""

    infos: dict[Ref, TensorInfo]
    inferred: list[_Inferred]
    readers: dict[Ref, tuple[int, ...]]
    looked_at: tuple[int, ...]
    unread: frozenset[int]  # steps remembered by shapes: `_values_unread`


@dataclass(frozen=True, slots=True)
class _Inferred:
    """A step's shape inference on some inputs: its outputs, the bytes of each the step
    has and their sum, and what its kernel needs besides (irpool/execute/memory.py); the
    same for every step of its group."""

    produced: list[TensorInfo]
    output_sizes: tuple[int, ...]
    output_bytes: int
    working_bytes: int


def _inference_key(
    group: int,
    read: list[TensorInfo | None],
    variable: tuple[int, ...] | None,
    shapes_only: bool = False,
) -> tuple[Any, ...] | None:
    """What a step's inference depends on, beyond what its group holds (the op, the
    constants): each input the run computes or binds (its type, shape, bounds and value, or
    its shape alone for an op that reads no more: a ShapeOf of the token ids, a binary op
    one of whose inputs has neither value nor bounds) and a
    ReadValue's variable's shape. None: not remembered (an input value that is large or of
    objects)."""
    # One flat tuple of ints, strings and bytes (hashed without calling Python, and few
    # objects for the collector): per input its type, rank and each dim's interval, bounds,
    # whether unknown, and its value's type, shape and bytes (or None).
    parts: list[Any] = [group, variable, shapes_only]  # an op keyed both ways keeps them apart
    append = parts.append
    for info in read:
        if info is None:
            continue
        append(info.type.name)
        dims = info.shape.dims
        if dims is None:
            append(None)
        else:
            append(len(dims))
            for dim in dims:
                append(dim.low)
                append(dim.high)
        if shapes_only:
            continue
        bounds = info.bounds
        append(None if bounds is None else (bounds.shape, bounds.lower, bounds.upper))
        append(info.unknown)
        value = info.value
        if value is None:
            append(None)
        elif value.nbytes > REMEMBERED_VALUE_BYTES or value.dtype.hasobject:
            return None
        else:
            parts += (value.dtype.str, value.shape, value.tobytes())
    return tuple(parts)


def _inferred(
    model: RunnerInput,
    plan: ExecutionPlan,
    position: int,
    infos: Mapping[Ref, TensorInfo],
    variables: Mapping[str, NDArray[Any]],
    ignore: LayerContext,
    valueless: bool = False,
) -> _Inferred | None:
    """A step's outputs inferred and checked as the runtime checks them (None: their size
    depends on values), without their values when `valueless`; `ignore`: a context that drops
    what the inference reports."""
    step = plan.steps[position]
    try:
        produced = step.op.infer(_infer_inputs(model, plan, position, infos), ignore)
        if step.reads_variable is not None and step.reads_variable in variables:
            value = variables[step.reads_variable]
            produced = [TensorInfo(produced[0].type, Shape.of(*value.shape))]
    except (ShapeError, NotInferable) as error:
        raise InputError(f"with these inputs, {step.layer.describe()} fails: {error}") from None
    if step.op.sized_by_values and not all(info.shape.is_static for info in produced):
        return None
    sizes = []
    for index, info in enumerate(produced):
        try:
            lengths = info.shape.values()
        except ValueError:
            raise InputError(
                f"with these inputs, {step.layer.describe()} has an undefined output shape "
                f"{info.shape}"
            ) from None
        _check_fits(model, step, index, info.shape, lengths)
        sizes.append(lengths)
    source = infos[step.inputs[0]].shape.values() if step.inputs else ()
    output_sizes = []
    working = 0
    for index, lengths in enumerate(sizes[: len(step.outputs)]):
        output_sizes.append(memory.tensor_bytes(lengths, plan.types[(step.layer.id, index)]))
        working = max(working, memory.working_bytes(source, lengths))
    if valueless:
        produced = [_shape_of(info) for info in produced]
    return _Inferred(produced, tuple(output_sizes), sum(output_sizes), working)


def _infer_inputs(
    model: RunnerInput, plan: ExecutionPlan, position: int, infos: Mapping[Ref, TensorInfo]
) -> list[TensorInfo]:
    """What the step's op infers from: the run's tensors, and the layer's constant inputs as
    checked where the run does not hold them (irpool/execute/plan.py)."""
    return [
        infos.get(ref) or model.checked.outputs[ref[0]][ref[1]]
        for ref in plan.inference_sources[position]
    ]


def _check_fits(
    model: RunnerInput, step: Step, index: int, shape: Shape, lengths: tuple[int, ...]
) -> None:
    """The CPU plugin sizes each output within the dims inferred for the model, bounds of
    shape values included; those bounds are not always true (OpenVINO's FloorMod bounds are
    its corners' results: `5..9 floormod 2` is taken as 1), and a run outside them fails
    ("Can not clone with new dims", docs/shape-values.md#runs-outside-the-inferred-dims), unless it
    holds no element.
    irpool's own inference, not the file's declared dims, is that model's."""
    inferred = model.checked.outputs.get(step.layer.id)
    if inferred is None or index >= len(inferred) or inferred[index].trusted:
        return
    if 0 in lengths:
        return
    if not inferred[index].shape.contains(lengths):
        raise InputError(
            f"with these inputs, {step.layer.describe()} gives {shape}, outside the "
            f"{inferred[index].shape} inferred for the model, which the CPU plugin refuses"
        )
