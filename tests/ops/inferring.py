"""Shape inference of one op on tensors written as text ("?,6..10,7"), as irpool's checker
calls it, with what ShapeOf and Gather make of them as values and bounds."""

from __future__ import annotations

from typing import Any

import numpy as np

from irpool.element_types import element_type
from irpool.ops.base import LayerContext, Op, OpReport, TensorInfo
from irpool.ops.gather import Gather8
from irpool.ops.shape_of import ShapeOf3
from irpool.shape import Dim, Shape

F32, I64 = element_type("f32"), element_type("i64")


def parse(text: str) -> Shape:
    """ "?,6..10,7" as a Shape; "..." a dynamic rank."""
    if text == "...":
        return Shape.dynamic()
    dims = []
    for item in filter(None, text.split(",")):
        low, dots, high = item.partition("..")
        if item == "?":
            dims.append(Dim.dynamic())
        elif not dots:
            dims.append(Dim.static(int(item)))
        else:
            dims.append(Dim(int(low or 0), int(high) if high else None))
    return Shape(tuple(dims))


def data(text: str) -> TensorInfo:
    """An f32 tensor of this shape."""
    return TensorInfo(F32, parse(text))


def const(values: Any) -> TensorInfo:
    """An i64 tensor of these known values."""
    array = np.array(values, np.int64)
    return TensorInfo(I64, Shape.of(*array.shape), array)


def infer(op: Op, *inputs: TensorInfo, used: frozenset[int] = frozenset()) -> list[TensorInfo]:
    """`op`'s outputs, which it must infer without a report."""
    reports: list[OpReport] = []
    context = LayerContext(frozenset(), reports.append, lambda *_: memoryview(b""), used)
    outputs = op.infer(list(inputs), context)
    assert not reports, reports
    return outputs


def shape_of(shape: str) -> TensorInfo:
    (info,) = infer(ShapeOf3({"output_type": "i64"}), data(shape))
    return info


def pick(source: TensorInfo, indices: list[int] | int) -> TensorInfo:
    (info,) = infer(Gather8({"batch_dims": 0}), source, const(indices), const(0))
    return info
