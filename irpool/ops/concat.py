"""Concat-1 (opset1-16): its inputs joined along `axis`.

As OpenVINO 2026.4 infers it (measured, docs/ops/Concat.md): every input of one element type and one
rank (inputs of dynamic rank left
out), `axis` in [-rank, rank-1] of that rank, the other dims merged (their overlap), the axis
dims summed as intervals (`1..5` + `2..8` is `3..13`, a dynamic rank adds `?`). Values and
bounds are concatenated too: a shape built from ShapeOf pieces keeps what they know.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.bounds import Bounds, bounded, bounds_of
from irpool.ops.explanation import Explanation
from irpool.ops.folding import FOLDED_SIZE
from irpool.ops.registry import register
from irpool.shape import Dim, Shape

if TYPE_CHECKING:
    from numpy.typing import NDArray

INCONSISTENT = (
    "Argument shapes are inconsistent; they must have the same rank, and must have equal "
    "dimension everywhere except on the concatenation axis (axis {axis})."
)


def axis_in_range(axis: int, rank: int) -> int:
    """`axis` made non-negative, or OpenVINO's refusal."""
    if not -rank <= axis < rank:
        raise ShapeError(f"Axis {axis} out of the tensor rank range [{-rank}, {rank - 1}].")
    return axis % rank


def one_element(shape: Shape) -> bool:
    """Whether a shape may be a scalar's or `[1]` (an axis input's, as OpenVINO checks it)."""
    if shape.dims is None or not shape.dims:
        return True
    return len(shape.dims) == 1 and shape.dims[0].admits(1)


def summed(a: Dim, b: Dim) -> Dim:
    return Dim(a.low + b.low, None if a.high is None or b.high is None else a.high + b.high)


def concatenated(shapes: Sequence[Shape], axis: int) -> Shape:
    """Concat-1's output shape, or ShapeError as OpenVINO refuses the inputs."""
    ranked = [s.dims for s in shapes if s.dims is not None]
    if not ranked:
        return Shape.dynamic()
    rank = len(ranked[0])
    if rank == 0:
        raise ShapeError("Accessing out-of-range dimension")
    position = axis_in_range(axis, rank)
    dims = list(ranked[0])
    dims[position] = Dim.static(0)
    for other in ranked:
        if len(other) != rank:
            raise ShapeError(INCONSISTENT.format(axis=position))
        for index, dim in enumerate(other):
            if index == position:
                dims[index] = summed(dims[index], dim)
                continue
            overlap = dims[index].overlap(dim)
            if overlap is None:
                raise ShapeError(INCONSISTENT.format(axis=position))
            dims[index] = overlap
    if len(ranked) < len(shapes):  # an input of dynamic rank adds a dynamic length
        dims[position] = summed(dims[position], Dim.dynamic())
    return Shape(tuple(dims))


@register
class Concat1(Op):
    """Concat-1: any number of inputs (at least one), attribute `axis` (i64, default 0)."""

    takes_strings = True
    type_name = "Concat"
    version = 1
    opsets = range(1, 17)
    input_names = ("inputs",)
    variadic_inputs = True
    attributes = (Attr("axis", AttrType.INT, default=0),)
    # The type the CPU holds this join in as a KV cache (u8 or f16): set per layer by
    # irpool.cpu.kv_cache; None: not a cache so held.
    cache_type: str | None = None

    @property
    def axis(self) -> int:
        axis: int = self.attrs["axis"]
        return axis

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        types = {i.type for i in inputs if not i.type.is_dynamic}
        if len(types) > 1:
            raise ShapeError("Argument element types are inconsistent.")
        kind = types.pop() if types else inputs[0].type
        shape = concatenated([i.shape for i in inputs], self.axis)
        if not shape.is_static:
            return [TensorInfo(kind, shape)]
        position = self.axis % len(shape)
        values = [i.value for i in inputs if i.value is not None]
        if len(values) == len(inputs) and _small(shape):
            return [TensorInfo(kind, shape, self.fold_constant(values))]
        known = [bounds_of(i) for i in inputs]
        if kind.is_integer and all(b is not None for b in known):
            lowers, uppers = zip(*(b.arrays() for b in known if b is not None), strict=True)
            import numpy as np

            joined = Bounds.of_arrays(
                np.concatenate(lowers, position), np.concatenate(uppers, position)
            )
            return [bounded(kind, shape, joined)]
        return [TensorInfo(kind, shape)]

    def fold_constant(self, inputs: Sequence[NDArray[Any]]) -> NDArray[Any] | None:
        import numpy as np

        joined: NDArray[Any] = np.concatenate(inputs, self.axis % inputs[0].ndim)
        return joined

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        lengths = " + ".join("?" if i is None else _axis_dim(i.shape, self.axis) for i in inputs)
        total = _axis_dim(outputs[0].shape, self.axis)
        return Explanation(f"axis {self.axis}: {lengths} = {total}", [])


def _small(shape: Shape) -> bool:
    import math

    return math.prod(shape.values()) <= FOLDED_SIZE


def _axis_dim(shape: Shape, axis: int) -> str:
    if shape.dims is None or not -len(shape.dims) <= axis < len(shape.dims):
        return "?"
    return str(shape.dims[axis])
