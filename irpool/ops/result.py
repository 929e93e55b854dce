"""Result-1: a model output; one input, no attributes, no output ports."""

from __future__ import annotations

from collections.abc import Sequence

from irpool.ops.base import LayerContext, Op, Role, TensorInfo
from irpool.ops.registry import register


@register
class Result(Op):
    """Result-1: passes its input through as a model output."""

    takes_strings = True
    type_name = "Result"
    version = 1
    opsets = range(1, 17)  # opset17 has Parameter but no Result
    input_names = ("data",)
    output_count = 0
    role = Role.OUTPUT

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        return []
