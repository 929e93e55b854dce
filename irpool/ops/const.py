"""Const-1 (`Const`; the op is named `Constant`, but the IR must write `Const`): a tensor read
from the `.bin` at `offset`/`size`."""

from __future__ import annotations

import itertools
import math
import struct
from collections.abc import Sequence
from typing import TYPE_CHECKING

from irpool.element_types import DYNAMIC, ELEMENT_TYPES, STRING
from irpool.graph.weights import WeightsProblem, unmapped
from irpool.low_bit import LOW_BIT_TYPES, packed_size
from irpool.ops.base import (
    Attr,
    AttrType,
    LayerContext,
    Op,
    Role,
    ShapeError,
    TensorInfo,
)
from irpool.ops.registry import register
from irpool.rules import (
    CONST_SIZE_TOO_LARGE,
    CONST_SIZE_TOO_SMALL,
    INVALID_ATTRIBUTE_VALUE,
    WEIGHTS_UNAVAILABLE,
)
from irpool.shape import Shape

if TYPE_CHECKING:
    pass


def refuse_unbacked(info: TensorInfo, input_name: str) -> None:
    """ShapeError when a shape-reading input is a Const OpenVINO gives no data (measured: its
    read_model fails with "ptr is Null" in ReduceMean/ReduceMax/Squeeze/Unsqueeze axes)."""
    if info.unbacked:
        raise ShapeError(
            f"{input_name} is a Const of no elements in an empty .bin: OpenVINO gives such a "
            f'Const no data, and read_model fails reading {input_name} from it ("ptr is Null"); '
            "a .bin of at least one byte loads",
            WEIGHTS_UNAVAILABLE,
            about_file=True,
        )


@register
class Constant(Op):
    """Const-1: `element_type`, `shape`, and `offset`/`size` in bytes within the `.bin`."""

    type_name = "Const"  # "Constant", the op's own name, loads no value (see ops.opsets)
    version = 1
    opsets = range(1, 17)  # opset17 has Parameter but no Constant
    needs_data = True
    role = Role.CONSTANT
    attributes = (
        Attr("element_type", AttrType.ELEMENT_TYPE, default=DYNAMIC),
        # "Missing attribute 'shape' for Const": no scalar default (measured).
        Attr("shape", AttrType.SHAPE, mandatory=True),
        Attr("offset", AttrType.UINT, mandatory=True),
        Attr("size", AttrType.UINT, mandatory=True),
    )

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        element_type: str = self.attrs["element_type"]
        typed = ELEMENT_TYPES[element_type]
        shape: Shape = self.attrs["shape"]
        if typed.is_dynamic:
            raise ShapeError(
                "a Const needs a concrete element_type", INVALID_ATTRIBUTE_VALUE, "element_type"
            )
        if not shape.is_static:
            raise ShapeError(
                f"a Const needs a static shape, not {shape}", INVALID_ATTRIBUTE_VALUE, "shape"
            )
        count = math.prod(shape.values())
        offset: int = self.attrs["offset"]
        size: int = self.attrs["size"]
        raw = ctx.read_weights(offset, size)
        if isinstance(raw, WeightsProblem):
            # The shape is the attribute's; only the value is unknown, and nothing that
            # depends on it is checked (or fixed) against the declarations.
            where = None if raw.about_file else "size"
            ctx.report(raw.code, raw.message, where, about_file=raw.about_file)
            return [TensorInfo(typed, shape, unknown=True)]
        if element_type == STRING:
            problem = _packed_strings_problem(raw, count)
            if problem is not None:
                raise ShapeError(problem, CONST_SIZE_TOO_SMALL, "size")
            # Checked, not held (run refuses strings): a value irpool does not read.
            return [TensorInfo(typed, shape, unknown=True)]
        needed = (count * typed.bits + 7) // 8  # read_model's minimum, u3 and u6 too (measured)
        written = packed_size(element_type, count) if element_type in LOW_BIT_TYPES else needed
        if size < needed:
            raise ShapeError(
                f"size is {size} bytes, but {count} {element_type} elements of shape {shape} "
                f"need {needed}",
                CONST_SIZE_TOO_SMALL,
                "size",
            )
        if size > written:
            ctx.report(
                CONST_SIZE_TOO_LARGE,
                f"size is {size} bytes, but shape {shape} of {element_type} needs only {written}; "
                "OpenVINO ignores the rest",
                "size",
            )
        value = typed.decode(raw, count)
        if value is not None:
            value = value.reshape(shape.values())
        # A low-bit type NumPy does not hold: a constant checking does not read (a run decodes
        # its bytes).
        unknown = value is None
        packed = raw if element_type in LOW_BIT_TYPES else None
        unbacked = unmapped(raw)
        return [TensorInfo(typed, shape, value, unknown=unknown, unbacked=unbacked, packed=packed)]


def _packed_strings_problem(raw: memoryview, count: int) -> str | None:
    """What OpenVINO refuses in a string Const: its bytes are the string count, count + 1
    offsets (int32) and the characters (measured: a count other than the shape's, a header
    or an offset past `size`, or an offset going down fail read_model; bytes left over are
    fine)."""
    header = 4 * (count + 2)
    if len(raw) < 4:
        return f"size is {len(raw)} bytes, too few for the string count of a string Const"
    (written,) = struct.unpack_from("<i", raw)
    if written != count:
        return f"the packed strings count {written}, but shape holds {count}"
    if len(raw) < header:
        return f"size is {len(raw)} bytes, but the header of {count} packed strings needs {header}"
    offsets = struct.unpack_from(f"<{count + 1}i", raw, 4)
    if any(end < begin for begin, end in itertools.pairwise(offsets)):
        return f"the packed string offsets {list(offsets)} go down"
    if offsets[0] < 0 or offsets[-1] > len(raw) - header:
        return (
            f"the packed string offsets {list(offsets)} reach past the {len(raw) - header} "
            "bytes of characters that size leaves"
        )
    return None
