"""Tile-1 (opset1-17): `data` repeated `repeats[i]` times along each axis.

What OpenVINO 2026.4 does (measured, docs/ops/Tile.md): `repeats` is a 1-D tensor of any
integer type ("Tile repeats must be of rank 1", "Tile repeats must have any integer element
type, but has f32"); the shorter of the data's shape and `repeats` is padded with 1s in front;
a negative repeat gives a dim of 0. Each output dim is the data's interval times the repeat's
(`?` times 2 stays `?`, 2..5 times 3 is 6..15), the repeats read from their value or their
bounds (a shape subgraph's); repeats known only by their length give that many dims, all `?`.
Values and bounds are tiled too, so shape subgraphs flow. The kernel is in
irpool.execute.kernels.tile.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from irpool.element_types import takes_integer_input
from irpool.ops.base import LayerContext, Op, ShapeError, TensorInfo, read_value
from irpool.ops.bounds import UNBOUNDED, bounds_of, moved
from irpool.ops.const import refuse_unbacked
from irpool.ops.explanation import Explanation
from irpool.ops.folding import FOLDED_SIZE
from irpool.ops.registry import register
from irpool.shape import Dim, Shape

if TYPE_CHECKING:
    from numpy.typing import NDArray


def tiled(data: NDArray[Any], repeats: Sequence[int]) -> NDArray[Any]:
    """`data` tiled as the CPU tiles it: a negative repeat as 0."""
    import numpy as np

    return np.tile(data, [max(r, 0) for r in repeats])


def _times(dim: Dim, low: int, high: int) -> Dim:
    """An interval times a repeat in [low, high] (negative repeats count as 0)."""
    low, high = max(low, 0), max(high, 0)
    if high == 0:
        return Dim.static(0)
    if dim.high is None or high == UNBOUNDED:
        return Dim(dim.low * low, None)
    return Dim(dim.low * low, dim.high * high)


@register
class Tile1(Op):
    type_name = "Tile"
    version = 1
    opsets = range(1, 18)
    input_names = ("data", "repeats")

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, repeats = inputs
        if not takes_integer_input(repeats.element_type) and not repeats.type.is_dynamic:
            raise ShapeError(
                f"Tile repeats must have any integer element type, but has {repeats.element_type}"
            )
        if repeats.shape.rank is not None and repeats.shape.rank != 1:
            raise ShapeError("Tile repeats must be of rank 1")
        refuse_unbacked(repeats, "repeats")
        read_value(repeats, "repeats")
        bounds = bounds_of(repeats)
        if ctx.at_run_time and repeats.value is not None and repeats.value.dtype.itemsize == 8:
            # the CPU holds the repeats it is given as int32 (2**33 + 1 tiles once)
            bounds = bounds_of(TensorInfo(repeats.type, repeats.shape, repeats.value.astype("i4")))
        if data.shape.dims is None:
            return [TensorInfo(data.type, Shape.dynamic())]
        if bounds is None:
            if not repeats.shape.is_static:
                return [TensorInfo(data.type, Shape.dynamic())]
            rank = max(len(data.shape), repeats.shape.values()[0])
            return [TensorInfo(data.type, Shape((Dim.dynamic(),) * rank))]
        rank = max(len(data.shape), len(bounds.lower))
        dims = (Dim.static(1),) * (rank - len(data.shape)) + data.shape.dims
        pad = (1,) * (rank - len(bounds.lower))
        lows, highs = pad + bounds.lower, pad + bounds.upper
        shape = Shape(tuple(_times(d, lo, hi) for d, lo, hi in zip(dims, lows, highs, strict=True)))
        if not bounds.exact or not shape.is_static or math.prod(shape.values()) > FOLDED_SIZE:
            return [TensorInfo(data.type, shape)]
        return [moved(data, shape, lambda a: tiled(a, bounds.lower))]

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        repeats = inputs[1] if len(inputs) > 1 else None
        bounds = None if repeats is None else bounds_of(repeats)
        if bounds is None or not bounds.exact:
            return Explanation("repeats known at run time", [])
        return Explanation(f"repeats {','.join(map(str, bounds.lower))}", [])
