"""The table of what the CPU plugin refuses, per op class (irpool/cpu/refusals.py reads it):
a refusal declared for a base class applies to its subclasses, every version of the op."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from irpool.ops.base import LayerContext, Op, TensorInfo

Refusal = Callable[[Any, Sequence[TensorInfo], LayerContext], None]
REFUSALS: dict[type[Op], list[Refusal]] = {}


def refuses(op_class: type[Op]) -> Callable[[Refusal], Refusal]:
    """Declare a refusal of `op_class` (and its subclasses): a function of the op, its inputs
    and the layer's context that reports, through the context, what the plugin refuses."""

    def declare(refusal: Refusal) -> Refusal:
        REFUSALS.setdefault(op_class, []).append(refusal)
        return refusal

    return declare
