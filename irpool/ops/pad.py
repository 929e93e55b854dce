"""Pad-12 (opset12-16): `data` grown (or, by negative pads, cut) by `pads_begin` and
`pads_end` along every axis, the new elements `pad_value` (mode constant) or taken from the
data (edge, reflect, symmetric).

What OpenVINO 2026.4 checks (measured, docs/ops/Pad.md): pads of integer types
("pads_begin must be an integral number, but is: f32)."), one per axis ("length of
pads_begin mismatches with rank of input, expect 1, but got 2"); reflect pads at most the
dim - 1, symmetric at most the dim, edge needs every padded dim at least 1. A dim padded
below 0 becomes `?`. Pads computed from shapes are read by their bounds, as OpenVINO reads
them (docs/ops/Pad.md#bounded-pads: swin_t's window padding). The kernel is in
irpool.execute.kernels.pad.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from irpool.element_types import takes_integer_input
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo, read_value
from irpool.ops.bounds import UNBOUNDED, bounds_of
from irpool.ops.explanation import Explanation
from irpool.ops.folding import integer_values
from irpool.ops.pooling_geometry import csv
from irpool.ops.registry import register
from irpool.shape import Dim, Shape

MODES = ("constant", "edge", "reflect", "symmetric")


def padded(dim: Dim, begin: tuple[int, int], end: tuple[int, int]) -> Dim:
    """The dim grown by pads known by their (lower, upper) bounds, as OpenVINO 2026.4 infers
    it (docs/ops/Pad.md#bounded-pads): each end moved by the sum of those bounds in int64, an end
    below 0
    open (`?` for both; `2..5` by -2 is `..3`), and the upper end unbounded when a pad is
    `0..max`."""
    low_sum, high_sum = _int64(begin[0] + end[0]), _int64(begin[1] + end[1])
    if low_sum == 0 and high_sum == 0:
        return dim
    low = _int64(dim.low + low_sum)
    if any(pad == (0, UNBOUNDED) for pad in (begin, end)) or dim.high is None:
        high = None
    else:
        high = _int64(dim.high + high_sum)
        high = None if high < 0 else high
    return Dim(max(low, 0), high)


def _int64(value: int) -> int:
    """The value wrapped as C++'s int64 arithmetic wraps on x86."""
    return (value + (1 << 63)) % (1 << 64) - (1 << 63)


@register
class Pad12(Op):
    """Pad-12: inputs `data`, `pads_begin`, `pads_end` and, optionally, `pad_value`."""

    takes_strings = False
    type_name = "Pad"
    version = 12
    opsets = range(12, 17)
    input_names: ClassVar[tuple[str, ...]] = ("data", "pads_begin", "pads_end", "pad_value")
    optional_inputs = 1
    attributes: ClassVar[tuple[Attr, ...]] = (
        Attr("pad_mode", AttrType.ENUM, choices=MODES, default="constant", required=True),
    )

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, begin, end = inputs[:3]
        for info, name in ((begin, "pads_begin"), (end, "pads_end")):
            if not takes_integer_input(info.element_type):
                raise ShapeError(
                    f"{name} must be an integral number, but is: {info.element_type})."
                )
            read_value(info, name)
        if len(inputs) > 3:
            _check_pad_value(data, inputs[3])
        if data.shape.dims is None:
            return [TensorInfo(data.type, data.shape)]
        rank = len(data.shape.dims)
        pads = [bounds_of(begin), bounds_of(end)]
        for bounds, name in zip(pads, ("pads_begin", "pads_end"), strict=True):
            if bounds is not None and len(bounds.lower) != rank:
                raise ShapeError(
                    f"length of {name} mismatches with rank of input, expect {rank}, but got "
                    f"{len(bounds.lower)}"
                )
        if pads[0] is None or pads[1] is None:
            return [TensorInfo(data.type, Shape((Dim.dynamic(),) * rank))]
        dims = data.shape.dims
        self.check_mode(dims, pads[0].lower, pads[1].lower)
        begins = zip(pads[0].lower, pads[0].upper, strict=True)
        ends = zip(pads[1].lower, pads[1].upper, strict=True)
        shape = Shape(tuple(padded(d, b, e) for d, b, e in zip(dims, begins, ends, strict=True)))
        return [TensorInfo(data.type, shape)]

    def check_mode(self, dims: Sequence[Dim], begin: Sequence[int], end: Sequence[int]) -> None:
        """What the mode asks of the pads (checked on static dims)."""
        mode = self.attrs["pad_mode"]
        for dim, pads in zip(dims, zip(begin, end, strict=True), strict=True):
            if not dim.is_static:
                continue
            if mode == "reflect" and max(pads) > dim.value - 1:
                raise ShapeError(
                    "REFLECT padding mode requires that 'pads_begin[D]' and 'pads_end[D]' must "
                    "be not greater than 'data_shape[D] - 1'."
                )
            if mode == "symmetric" and max(pads) > dim.value:
                raise ShapeError(
                    "SYMMETRIC padding mode requires that 'pads_begin[D]' and 'pads_end[D]' "
                    "must be not greater than 'data_shape[D]'."
                )
            if mode == "edge" and dim.value < 1 and max(pads) > 0:
                raise ShapeError(
                    "EDGE padding mode requires an input of dimension of at least 1 at each "
                    "spatial axis."
                )

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        pads = [None if i is None else integer_values(i) for i in inputs[1:3]]
        mode = self.attrs["pad_mode"]
        if len(pads) < 2 or pads[0] is None or pads[1] is None:
            return Explanation(f"{mode} padding, by pads given at run time", [])
        return Explanation(f"{mode} padding: begin {csv(pads[0])}, end {csv(pads[1])}", [])


def _check_pad_value(data: TensorInfo, value: TensorInfo) -> None:
    if value.shape.rank is not None and value.shape.rank != 0:
        raise ShapeError("Argument for padding value is not a scalar.")
    if value.element_type != data.element_type and not (
        data.type.is_dynamic or value.type.is_dynamic
    ):
        raise ShapeError(
            "Argument element types do not match (input arg element type: "
            f"{data.element_type}, arg_pad element type: {value.element_type})."
        )
