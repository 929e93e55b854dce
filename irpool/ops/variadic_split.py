"""VariadicSplit-1 (opset1-16): `data` cut along `axis` into pieces of `split_lengths`.

As OpenVINO 2026.4 infers it (measured, docs/ops/VariadicSplit.md): `axis` a scalar or one-element
tensor of any number type (a float read
truncated), in [-rank, rank-1]; `split_lengths` 1-D, one output per length. At most one -1
("Cannot infer split with multiple -1 values at 0 and 1"), nothing below it ("Invalid value -2
in split lengths input. Should be >= -1."); on a static axis the lengths must sum to it
("Total length of splits: 5 must match the length of the chosen axis: 6"), and the -1 piece is
what the others leave; when they take more it is `?` (one more) or 0, the CPU plugin reads past
the input and irpool reports IR307. On a dynamic or interval axis the pieces are as written and
the -1 piece is `?`. Lengths known only at run time make the axis `?`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from irpool.ops.base import LayerContext, Op, ShapeError, TensorInfo, read_value
from irpool.ops.bounds import moved
from irpool.ops.concat import axis_in_range, one_element
from irpool.ops.const import refuse_unbacked
from irpool.ops.explanation import Explanation
from irpool.ops.folding import integer_values
from irpool.ops.pooling_geometry import csv
from irpool.ops.registry import register
from irpool.rules import RESHAPE_ELEMENT_COUNT
from irpool.shape import Dim, Shape

if TYPE_CHECKING:
    from numpy.typing import NDArray


def piece_dims(axis_dim: Dim, lengths: Sequence[int]) -> list[Dim]:
    """Each piece's length along the axis, or OpenVINO's refusal."""
    minus_ones = [i for i, v in enumerate(lengths) if v == -1]
    if len(minus_ones) > 1:
        raise ShapeError(
            f"Cannot infer split with multiple -1 values at {minus_ones[0]} and {minus_ones[1]}"
        )
    for value in lengths:
        if value < -1:
            raise ShapeError(f"Invalid value {value} in split lengths input. Should be >= -1.")
    written = sum(v for v in lengths if v != -1)
    if axis_dim.is_static and not minus_ones and written != axis_dim.value:
        raise ShapeError(
            f"Total length of splits: {written} must match the length of the chosen axis: "
            f"{axis_dim.value}"
        )
    rest = Dim.dynamic()
    if axis_dim.is_static and axis_dim.value - written != -1:
        # measured: what the others leave as Dimension(n) makes it, -1 dynamic, below it 0
        rest = Dim.static(max(axis_dim.value - written, 0))
    return [rest if v == -1 else Dim.static(v) for v in lengths]


@register
class VariadicSplit1(Op):
    """VariadicSplit-1: inputs `data`, `axis` and `split_lengths`; one output per length."""

    takes_strings = True
    type_name = "VariadicSplit"
    version = 1
    opsets = range(1, 17)
    input_names = ("data", "axis", "split_lengths")
    variadic_outputs = True

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, axis, lengths = inputs
        if not one_element(axis.shape):
            raise ShapeError(f"Axis should be a scalar or of shape [1]. Got {axis.shape} instead.")
        if lengths.shape.rank is not None and lengths.shape.rank != 1:
            raise ShapeError(
                f"Split lengths should be a 1-D tensor. Got {lengths.shape.rank} instead."
            )
        if data.shape.rank == 0:
            raise ShapeError("Accessing out-of-range dimension")
        refuse_unbacked(lengths, "split_lengths")
        read_value(lengths, "split_lengths")
        values = _numbers(lengths)
        count = len(values) if values is not None else _count(lengths.shape)
        if count is not None and ctx.used_outputs and max(ctx.used_outputs) >= count:
            raise ShapeError(
                f"output {max(ctx.used_outputs)} is read, but the {count} split lengths make "
                f"{count} output(s)"
            )
        refuse_unbacked(axis, "axis")
        read_value(axis, "the axis")
        position = _numbers(axis)
        outputs = count if count is not None else max(ctx.used_outputs, default=0) + 1
        if data.shape.dims is None or position is None:
            return VariadicSplit1.unknown_pieces(data, outputs)
        index = axis_in_range(position[0], len(data.shape))
        if values is None:
            dims = data.shape.dims
            shape = Shape((*dims[:index], Dim.dynamic(), *dims[index + 1 :]))
            return [TensorInfo(data.type, shape)] * outputs
        axis_dim = data.shape[index]
        written = sum(v for v in values if v != -1)
        if axis_dim.is_static and written > axis_dim.value:
            ctx.report(
                RESHAPE_ELEMENT_COUNT,
                f"split lengths {csv(values)} take {written} of an axis of {axis_dim.value}: "
                "OpenVINO accepts them (the -1 piece is left empty or dynamic) and its CPU "
                "plugin reads past the input",
            )
        return self.pieces_of(data, index, piece_dims(axis_dim, values))

    @staticmethod
    def unknown_pieces(data: TensorInfo, count: int) -> list[TensorInfo]:
        """`count` pieces of `data` cut along an axis not known (shared with Split): each dim
        dynamic, the rank kept."""
        unknown = Shape((Dim.dynamic(),) * len(data.shape)) if data.shape.dims else data.shape
        return [TensorInfo(data.type, unknown)] * count

    @staticmethod
    def pieces_of(data: TensorInfo, axis: int, pieces: list[Dim]) -> list[TensorInfo]:
        """Consecutive pieces of `data` along `axis` (shared with Split), values and bounds
        cut alike."""
        outputs = []
        start = 0
        dims = data.shape.dims or ()
        for piece in pieces:
            shape = Shape((*dims[:axis], piece, *dims[axis + 1 :]))
            if not (piece.is_static and shape.is_static):
                outputs.append(TensorInfo(data.type, shape))
                continue
            cut = slice(start, start + piece.value)
            start += piece.value

            def taken(array: NDArray[Any], cut: slice = cut) -> NDArray[Any]:
                return array[(slice(None),) * axis + (cut,)]

            outputs.append(moved(data, shape, taken))
        return outputs

    def pieces(self, shape: tuple[int, ...], rest: Sequence[NDArray[Any]]) -> tuple[int, list[int]]:
        """The axis and each piece's length for concrete inputs (what the kernel uses)."""
        axis = axis_in_range(int(rest[0].ravel()[0]), len(shape))
        lengths = [int(v) for v in rest[1].ravel()]
        dims = piece_dims(Dim.static(shape[axis]), lengths)
        if not all(d.is_static for d in dims):
            raise ShapeError(f"split lengths {csv(lengths)} exceed the axis' {shape[axis]}")
        return axis, [d.value for d in dims]

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        lengths = inputs[2] if len(inputs) > 2 else None
        values = None if lengths is None else _numbers(lengths)
        shown = "known at run time" if values is None else csv(values)
        return Explanation(f"split lengths {shown}", [])


def _numbers(info: TensorInfo) -> list[int] | None:
    """An integer or float input's values, floats truncated as OpenVINO reads them."""
    if info.value is not None and info.type.is_held_float:
        return [int(v) for v in info.value.ravel() if math.isfinite(v)]
    return integer_values(info)


def _count(shape: Shape) -> int | None:
    if shape.rank == 1 and shape[0].is_static:
        return shape[0].value
    return None
