"""StringTensorUnpack-15 and StringTensorPack-15 (opset15-16): a string tensor taken apart into
begins, ends and symbols (u8 bytes) and put back together; tokenizer files begin and end
with them.

What OpenVINO 2026.4 checks (measured, docs/ops/StringTensorUnpack.md): Unpack takes string
data only ("StringTensorUnpack expects a tensor with string elements. Got: f32"), dynamic
refused too, and gives i32 begins and ends of the data's shape and u8 symbols [?] ([0] when a
dim of the data is 0). Pack takes
begins and ends of one type, i32 or i64 ("The element types of the begins and ends input
tensors must match and be of i32 or i64 type. Got: i32 and i64"), of compatible shapes
("The shapes of begins and ends have to be compatible."; the output has their merged shape),
and 1-D u8 symbols ("StringTensorPack expects a tensor with ov::element::u8 elements. Got:
i8", "Symbols input must be 1D."). irpool holds no string tensor, so it runs neither
(irpool.execute.kernels.string_tensors says so).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from irpool.element_types import ELEMENT_TYPES, I32, I64, STRING, U8
from irpool.ops.base import LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.registry import register
from irpool.shape import Dim, Shape


def merged(first: Shape, second: Shape) -> Shape | None:
    """OpenVINO's PartialShape::merge_into: the shape both admit, None when none."""
    if first.dims is None:
        return second
    if second.dims is None:
        return first
    if len(first.dims) != len(second.dims):
        return None
    dims = [a.overlap(b) for a, b in zip(first.dims, second.dims, strict=True)]
    if any(dim is None for dim in dims):
        return None
    return Shape(tuple(dim for dim in dims if dim is not None))


@register
class StringTensorUnpack15(Op):
    """StringTensorUnpack-15: string data -> (begins i32, ends i32, symbols u8 [?])."""

    type_name = "StringTensorUnpack"
    version = 15
    opsets = range(15, 17)
    takes_strings = True
    input_names: ClassVar[tuple[str, ...]] = ("data",)
    output_count = 3

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data = inputs[0]
        if data.element_type != STRING:
            raise ShapeError(
                "StringTensorUnpack expects a tensor with string elements. Got: "
                f"{data.element_type}"
            )
        offsets = TensorInfo(ELEMENT_TYPES[I32], data.shape)
        empty = any(dim.high == 0 for dim in data.shape)  # no string: no byte
        symbols = TensorInfo(ELEMENT_TYPES[U8], Shape((Dim.static(0) if empty else Dim.dynamic(),)))
        return [offsets, offsets, symbols]


@register
class StringTensorPack15(Op):
    """StringTensorPack-15: (begins, ends, symbols) -> a string tensor of their shape."""

    type_name = "StringTensorPack"
    version = 15
    opsets = range(15, 17)
    input_names: ClassVar[tuple[str, ...]] = ("begins", "ends", "symbols")

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        begins, ends, symbols = inputs
        types = (begins.element_type, ends.element_type)
        if types[0] != types[1] or types[0] not in (I32, I64):
            raise ShapeError(
                "The element types of the begins and ends input tensors must match and be of "
                f"i32 or i64 type. Got: {types[0]} and {types[1]}"
            )
        shape = merged(begins.shape, ends.shape)
        if shape is None:
            raise ShapeError("The shapes of begins and ends have to be compatible.")
        if symbols.element_type != U8:
            raise ShapeError(
                "StringTensorPack expects a tensor with ov::element::u8 elements. Got: "
                f"{symbols.element_type}"
            )
        if symbols.shape.rank is not None and symbols.shape.rank != 1:
            raise ShapeError("Symbols input must be 1D.")
        return [TensorInfo(ELEMENT_TYPES[STRING], shape)]
