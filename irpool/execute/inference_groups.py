"""Which steps of a plan infer alike: the same op (its type, attributes and what planning set
on it), the same constant inputs, output types and dims inferred for the model. A run's
shape inference (irpool/execute/reinfer.py) remembers a step's inference by its group, so
one step of a group inferred on some inputs serves the others on the same inputs: a decode
step's layers repeat in every decoder block (the K and V caches' reads, joins, expands,
reshapes and stores), so at each token they are inferred once a shape, not once a layer. A
variable's id names which value a ReadValue gives or an Assign stores, never a shape: it
does not part them.

A step whose op holds anything but plain values (numbers, text, shapes, element types and
tuples of them), or that reads a constant not known by its description (a large or packed
value), is a group of its own."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any

from irpool.element_types import ElementType
from irpool.ops.base import TensorInfo
from irpool.ops.variables import AssignBase, ReadValueBase
from irpool.shape import Dim, Shape

if TYPE_CHECKING:
    from irpool.execute.fold import Ref
    from irpool.execute.plan import RunnerInput, Step

# A constant input of at most this many bytes is described by its value.
DESCRIBED_VALUE_BYTES = 4096


def inference_groups(
    model: RunnerInput,
    steps: Sequence[Step],
    sources: Sequence[tuple[Ref, ...]],
    run_sources: Sequence[tuple[Ref, ...]],
    constants: dict[Ref, TensorInfo],
) -> list[int]:
    """Each step's group (steps infer alike when their groups are equal), given the tensors
    each infers from (`sources`), those of them a run computes or binds (`run_sources`) and
    the constants as checked."""
    groups: dict[Hashable, int] = {}
    found = []
    for position, step in enumerate(steps):
        signature = _signature(model, step, sources[position], run_sources[position], constants)
        found.append(groups.setdefault(signature or ("step", position), len(groups)))
    return found


def _signature(
    model: RunnerInput,
    step: Step,
    sources: tuple[Ref, ...],
    run_sources: tuple[Ref, ...],
    constants: dict[Ref, TensorInfo],
) -> Hashable | None:
    op = step.op
    if any("__slots__" in vars(kind) for kind in type(op).__mro__[:-1]):
        return None  # state vars() does not show
    held = {k: v for k, v in vars(op).items() if k != "kernel_cache"}
    if isinstance(op, ReadValueBase | AssignBase):  # the id names a value, never a shape
        held["attrs"] = {k: v for k, v in op.attrs.items() if k != "variable_id"}
    state = _plain(held)
    if state is None:
        return None
    read: list[Hashable] = []
    for ref in (*sources, *step.inputs[:1]):  # the first input sizes the kernel's memory
        if ref in run_sources:
            read.append(None)
            continue
        described = _described(constants.get(ref) or model.checked.outputs[ref[0]][ref[1]])
        if described is None:
            return None
        read.append(described)
    checked = _plain(
        [(info.type, info.shape, info.trusted) for info in model.checked.outputs[step.layer.id]]
    )
    types = tuple(spec.type for spec in step.outputs)
    return None if checked is None else (type(op), state, tuple(read), types, checked)


def _described(info: TensorInfo) -> Hashable | None:
    """A constant input as inference may read it; None: too large or packed to describe."""
    value: Any = info.value
    if info.packed is not None:
        return None
    if value is not None:
        if value.nbytes > DESCRIBED_VALUE_BYTES or value.dtype.hasobject:
            return None
        value = (value.dtype.str, value.shape, value.tobytes())
    bounds = info.bounds
    known = None if bounds is None else (bounds.shape, bounds.lower, bounds.upper)
    flags = (info.type, info.shape, info.trusted, info.unknown, info.written_as, info.unbacked)
    plain = _plain(flags)
    return None if plain is None else (plain, value, known)


_NOTHING = ("nothing",)  # None as a plain value (None itself says: not plain)


def _plain(item: Any) -> Hashable | None:
    """`item` as a hashable of plain values, or None when it holds anything else."""
    if item is None:
        return _NOTHING
    if isinstance(item, bool | int | float | str | bytes | Enum | Shape | Dim | ElementType):
        return item
    if isinstance(item, dict):
        item = sorted(item.items()) if all(isinstance(key, str) for key in item) else None
    if isinstance(item, tuple | list):
        parts = [_plain(part) for part in item]
        return None if any(part is None for part in parts) else tuple(parts)
    return None
