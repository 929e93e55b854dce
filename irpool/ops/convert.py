"""Convert-1 (opset1-16): `data` converted to `destination_type`, element by element.

`ov.save_model` with fp16 compression writes every float Const as a Const f16 followed by a
Convert to f32 (marked `decompression` in rt_info), which OpenVINO folds when it loads the model.
Converting back from f16 is exact, so irpool folds it too (see irpool/ops/folding.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from irpool.element_types import DYNAMIC, element_type
from irpool.ops.base import Attr, AttrType, LayerContext, Op, TensorInfo
from irpool.ops.bounds import converted_bounds
from irpool.ops.folding import folded
from irpool.ops.registry import register

if TYPE_CHECKING:
    from numpy.typing import NDArray


@register
class Convert1(Op):
    """Convert-1: one input, `destination_type` (an element type name)."""

    takes_strings = True
    shaped_by_data_shape = True
    type_name = "Convert"
    version = 1
    opsets = range(1, 17)
    input_names = ("data",)
    attributes = (Attr("destination_type", AttrType.ELEMENT_TYPE, default=DYNAMIC, required=True),)
    # Whether the CPU runs its kernel for dynamic shapes, which rounds and saturates otherwise:
    # set per layer by irpool.cpu.compilation.
    dynamic_kernel = False
    # The input's type when it is a low-bit one (irpool/low_bit.py), held wider: set per layer
    # by irpool.cpu.compilation.
    low_bit_source: str | None = None

    @property
    def destination(self) -> str:
        destination: str = self.attrs["destination_type"]
        return destination

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data = inputs[0]
        value = folded(data, lambda array: self.fold_constant([array]))
        # save_model writes a decompression Convert's ports (and its consumers' input ports)
        # with the compressed Const's precision; OpenVINO folds it and ignores that precision.
        constant = data.value is not None or data.unknown  # unknown: maybe a constant
        destination = element_type(self.destination)
        decompresses = constant and data.type.is_held_float and destination.is_held_float
        written_as = data.element_type if decompresses else None
        bounds = None
        if value is None and data.bounds is not None and destination.is_integer:
            bounds = converted_bounds(data.bounds, destination)
        return [TensorInfo(destination, data.shape, value, written_as=written_as, bounds=bounds)]

    def fold_constant(self, inputs: Sequence[NDArray[Any]]) -> NDArray[Any] | None:
        """The value OpenVINO folds a Const to: its reference conversion, which differs from
        the CPU plugin's kernel on values out of range (docs/ops/Convert.md)."""
        if element_type(self.destination).held_dtype is None:  # a low-bit type, or dynamic
            return None
        # Imported here: the conversion rules need NumPy, which a model without constants
        # never loads (validate's start-up).
        from irpool.ops.convert_fold import fold, fold_low_bit

        if self.low_bit_source is not None:
            return fold_low_bit(inputs[0], self.low_bit_source, self.destination)
        return fold(inputs[0], self.destination)
