"""Squeeze-1 and Unsqueeze-1 (opset1-16): remove or insert dims of length 1 at `axes`.

As OpenVINO 2026.4 infers them (squeeze/unsqueeze_shape_inference.hpp, measured): Squeeze
keeps, silently, an axis whose dim cannot be 1, and squeezes a dynamic dim that may be 1;
Unsqueeze drops repeated axes before it counts the output rank. Both are reported: the file
then says something else than what runs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from irpool.ops.base import LayerContext, NotInferable, Op, ShapeError, TensorInfo, read_value
from irpool.ops.const import refuse_unbacked
from irpool.ops.folding import integer_values
from irpool.ops.pooling_geometry import csv
from irpool.ops.registry import register
from irpool.ops.reshape import reshaped_info
from irpool.rules import IGNORED_AXES
from irpool.shape import Dim, Shape

if TYPE_CHECKING:
    from numpy.typing import NDArray

T = TypeVar("T")


def normalized(axes: Sequence[int], rank: int) -> list[int]:
    """Axes in [-rank, rank-1] made non-negative; ShapeError for one out of range."""
    for axis in axes:
        if not -rank <= axis < rank:
            raise ShapeError(f"axis {axis} is out of the range [{-rank}, {rank - 1}]")
    return [axis % rank for axis in axes]


def squeezed(shape: Shape, axes: Sequence[int] | None) -> Shape:
    """Squeeze-1's output for known axes (None or empty: every dim of length 1)."""
    if shape.dims is None:
        return Shape.dynamic()
    if not shape.dims:
        normalized(axes or (), 1)  # a scalar takes axes 0 and -1, and stays a scalar
        return shape
    if not axes:
        if any(not d.is_static and d.admits(1) for d in shape.dims):
            return Shape.dynamic()  # unknown whether such a dim will be 1
        return Shape(tuple(d for d in shape.dims if not d.admits(1)))
    chosen = set(normalized(axes, len(shape.dims)))
    return Shape(tuple(d for i, d in enumerate(shape.dims) if i not in chosen or not d.admits(1)))


def unsqueezed(shape: Shape, axes: Sequence[int]) -> Shape:
    """Unsqueeze-1's output for known axes: repeated axes count once."""
    if shape.dims is None:
        return Shape.dynamic()
    return Shape(tuple(_with_ones(list(shape.dims), axes, Dim.static(1))))


def _with_ones(dims: list[T], axes: Sequence[int], one: T) -> list[T]:
    """`dims` with `one` inserted at `axes` of the output (repeated axes count once)."""
    if not axes:
        raise ShapeError("axes is empty; Unsqueeze needs at least one axis")
    unique = set(axes)
    for axis in sorted(set(normalized(sorted(unique), len(dims) + len(unique)))):
        dims.insert(min(axis, len(dims)), one)
    return dims


class _AxesOp(Op):
    takes_strings = True
    input_names = ("data", "axes")

    def axes_values(self, axes: TensorInfo) -> list[int] | None:
        """The axes, when known (OpenVINO reads float axes truncated, as int64); ShapeError
        for a rank OpenVINO refuses."""
        if axes.shape.rank is not None and axes.shape.rank > 1:
            raise ShapeError(f"axes has shape {axes.shape}; it must be 0-D or 1-D")
        refuse_unbacked(axes, "axes")
        read_value(axes, "axes")
        values = integer_values(axes)
        if axes.value is not None and axes.type.is_held_float:
            values = [int(v) for v in axes.value.ravel() if math.isfinite(v)]
        return values

    def output_shape(self, data: Shape, axes: list[int] | None) -> Shape:
        raise NotImplementedError

    def target_shape(self, data: tuple[int, ...], rest: Sequence[NDArray[Any]]) -> tuple[int, ...]:
        """The output shape for a concrete input and axes (what the kernel uses)."""
        axes = [int(v) for v in rest[0].ravel()] if rest else None
        return self.output_shape(Shape.of(*data), axes).values()


@register
class Squeeze1(_AxesOp):
    """Squeeze-1: removes the dims of length 1 at `axes` (all of them without axes)."""

    type_name = "Squeeze"
    version = 1
    opsets = range(1, 17)
    optional_inputs = 1  # without axes, every dim of length 1 goes

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data = inputs[0]
        values = self.axes_values(inputs[1]) if len(inputs) > 1 else []
        if values is None:
            shape = _unknown_axes_squeeze(data.shape, inputs[1].shape)
            return [TensorInfo(data.type, shape)]
        shape = self.output_shape(data.shape, values)
        if data.unknown and data.shape.dims and values:
            chosen = normalized(values, len(data.shape))
            if any(not data.shape[a].is_static for a in chosen):
                # Squeezed here as "may be 1"; the runtime, knowing the dim, may keep it.
                raise NotInferable("an axis names a dim irpool does not know")
        if data.shape.dims and values:  # a scalar ignores its axes without notice
            kept = sorted({a for a in normalized(values, len(data.shape))})
            kept = [a for a in kept if not data.shape[a].admits(1)]
            if kept:
                named = ", ".join(f"dim {a} is {data.shape[a]}" for a in kept)
                ctx.report(
                    IGNORED_AXES,
                    f"axes {csv(values)} of input {data.shape}: {named}, not 1; OpenVINO keeps "
                    f"{'it' if len(kept) == 1 else 'them'} silently",
                )
        return [reshaped_info(data, shape)]

    def output_shape(self, data: Shape, axes: list[int] | None) -> Shape:
        return squeezed(data, axes)

    def target_shape(self, data: tuple[int, ...], rest: Sequence[NDArray[Any]]) -> tuple[int, ...]:
        """As for any axes op, but an axis on a dim that is not 1 fails: validation reports
        the static ones (IR306), so this is a dynamic dim that read_model squeezed, and the
        CPU plugin fails on it."""
        axes = [int(v) for v in rest[0].ravel()] if rest and data else []
        for axis in normalized(axes, len(data)):
            if data[axis] != 1:
                raise ShapeError(
                    f"axis {axis} of the input {Shape.of(*data)} is {data[axis]}, not 1"
                )
        return super().target_shape(data, rest)


def _unknown_axes_squeeze(data: Shape, axes: Shape) -> Shape:
    """Without the axes' values, a single axis still fixes the rank when a dim may be 1."""
    if data.dims and axes.is_static and math.prod(axes.values()) == 1:
        if any(d.admits(1) for d in data.dims):
            return Shape((Dim.dynamic(),) * (len(data.dims) - 1))
        return data
    return Shape.dynamic()


@register
class Unsqueeze1(_AxesOp):
    """Unsqueeze-1: inserts dims of length 1 at `axes` (of the output)."""

    shaped_by_data_shape = True
    type_name = "Unsqueeze"
    version = 1
    opsets = range(1, 17)

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, axes = inputs
        values = self.axes_values(axes)
        if values is None or data.shape.dims is None:
            return [TensorInfo(data.type, _unknown_axes_unsqueeze(data.shape, axes.shape))]
        shape = self.output_shape(data.shape, values)
        if len(shape) - len(data.shape) != len(values):
            ctx.report(
                IGNORED_AXES,
                f"axes {csv(values)} insert {len(shape) - len(data.shape)} dim(s), not "
                f"{len(values)}: OpenVINO drops the repeated axes silently",
            )
        return [reshaped_info(data, shape)]

    def output_shape(self, data: Shape, axes: list[int] | None) -> Shape:
        return unsqueezed(data, axes or [])

    def target_shape(self, data: tuple[int, ...], rest: Sequence[NDArray[Any]]) -> tuple[int, ...]:
        """As `unsqueezed`, in ints (Shape and Dim objects cost microseconds a dim)."""
        axes = [int(v) for v in rest[0].ravel()] if rest else []
        return tuple(_with_ones(list(data), axes, 1))


def _unknown_axes_unsqueeze(data: Shape, axes: Shape) -> Shape:
    """Without the axes' values, a 1-D axes of one element still fixes the rank."""
    if data.dims is not None and axes.rank == 1 and axes.is_static and axes[0].value == 1:
        return Shape((Dim.dynamic(),) * (len(data.dims) + 1))
    return Shape.dynamic()
