"""Parameter-1: a model input. Its `shape` attribute, not its port dims, defines the type."""

from __future__ import annotations

from collections.abc import Sequence

from irpool.element_types import DYNAMIC, ELEMENT_TYPES
from irpool.ops.base import KNOWN_OPSETS, Attr, AttrType, LayerContext, Op, Role, TensorInfo
from irpool.ops.registry import register
from irpool.shape import Shape


@register
class Parameter(Op):
    """Parameter-1: `shape` (`1,3,?,1..10`, `...`, `""` for a scalar) and `element_type`."""

    type_name = "Parameter"
    version = 1
    opsets = KNOWN_OPSETS
    needs_data = True
    role = Role.INPUT
    attributes = (
        Attr("shape", AttrType.SHAPE, default=Shape(())),
        Attr("element_type", AttrType.ELEMENT_TYPE, default=DYNAMIC),
    )

    @property
    def shape(self) -> Shape:
        shape: Shape = self.attrs["shape"]
        return shape

    @property
    def element_type(self) -> str:
        element_type: str = self.attrs["element_type"]
        return element_type

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        return [TensorInfo(ELEMENT_TYPES[self.element_type], self.shape)]
