"""StridedSlice-1 (opset1-16): `data` cut from `begin` to `end` by `strides` (default 1) per
axis, with five masks: `begin_mask`/`end_mask` (1: the axis' begin/end is ignored, the whole
axis taken from that side), `new_axis_mask` (1: a new axis of 1 there), `shrink_axis_mask`
(1: the axis taken at `begin` and dropped), `ellipsis_mask` (1: every axis the bounds do not
name, kept whole).

What OpenVINO 2026.4 checks (measured, docs/ops/StridedSlice.md): `begin`, `end` and
`strides` of integer types ("Begin mask must be an integral number, but is: f32"), each 1-D
("Begin input must be 1D (has rank: 2)"), begin and end of one length ("Begin and end need to
have same number of values."), strides too ("Stride needs to have same number of values as
begin and end."), masks of 0s and 1s ("All masks of StridedSlice must have be 0 or 1"), at
most one ellipsis ("At most one ellipsis is allowed."), without one no more bounds than the
rank plus the new axes ("Input rank plus number of new axis has to be at least the size of
Lower and Upper bounds vector."), no stride 0 ("Stride must be non-zero"). Begin and end may be
known by their bounds (a shape subgraph), the strides only by their values; each cut axis is
sliced as Slice-8 slices it (`irpool.ops.slice.slice_length`), and known values flow through
(`irpool.ops.bounds`). The kernel is `irpool.execute.kernels.strided_slice`.
"""

from __future__ import annotations

from collections.abc import Sequence
from copy import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from irpool.element_types import takes_integer_input
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo, read_value
from irpool.ops.bounds import moved
from irpool.ops.explanation import Explanation
from irpool.ops.folding import integer_values
from irpool.ops.pooling_geometry import csv
from irpool.ops.registry import register
from irpool.ops.slice import (
    INT64_MAX,
    INT64_MIN,
    Bound,
    as_int32,
    bound_pairs,
    bound_values,
    cut_index,
    normalized,
    slice_length,
)
from irpool.shape import Dim, Shape

if TYPE_CHECKING:
    from numpy.typing import NDArray

MASKS = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")
NAMES = ("Begin", "End", "Strides")
# The bounds OpenVINO evaluates for a begin or end computed at run time: any int64.
ANY = (INT64_MIN, INT64_MAX)


@dataclass(frozen=True, slots=True)
class Step:
    """What one position of the bounds does: "ellipsis" (`count` whole input axes), "new"
    (an axis of 1), "shrink" (one element at `begin`, the axis dropped), "cut" (from
    `begin` to `end` by `stride`, each known by bounds, or None where not known) or
    "unknown" (a cut whose bounds are not known)."""

    kind: str
    count: int = 1
    begin: Bound | None = None
    # A shrunk axis under begin_mask: index 0 (its begin is still checked).
    first: bool = False
    end: Bound | None = None
    stride: int = 1


@register
class StridedSlice1(Op):
    """StridedSlice-1: inputs `data`, `begin`, `end` and, optionally, `strides`."""

    type_name = "StridedSlice"
    version = 1
    opsets = range(1, 17)
    attributes = (
        Attr("begin_mask", AttrType.UINT_LIST, default=(), required=True),
        Attr("end_mask", AttrType.UINT_LIST, default=(), required=True),
        Attr("new_axis_mask", AttrType.UINT_LIST, default=()),
        Attr("shrink_axis_mask", AttrType.UINT_LIST, default=()),
        Attr("ellipsis_mask", AttrType.UINT_LIST, default=()),
    )
    input_names: ClassVar[tuple[str, ...]] = ("data", "begin", "end", "strides")
    optional_inputs = 1
    # Which of begin, end and strides are known only at run time, where the CPU plugin holds
    # them as it holds every 64-bit tensor: wrapped to int32. Set per layer by `for_layer`.
    run_time_bounds: tuple[bool, ...] = ()

    def for_layer(self, inputs: Sequence[TensorInfo]) -> StridedSlice1:
        layer_op = copy(self)
        layer_op.run_time_bounds = tuple(info.value is None for info in inputs[1:])
        return layer_op

    def mask(self, name: str) -> set[int]:
        """The positions a mask sets."""
        return {i for i, bit in enumerate(self.attrs[name]) if bit == 1}

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, bounds = inputs[0], inputs[1:]
        for info, name in zip(bounds[:2], ("Begin mask", "End mask"), strict=False):
            if not (takes_integer_input(info.element_type) or info.type.is_dynamic):
                raise ShapeError(f"{name} must be an integral number, but is: {info.element_type}")
        if any(bit not in (0, 1) for name in MASKS for bit in self.attrs[name]):
            raise ShapeError("All masks of StridedSlice must have be 0 or 1")
        size = len(self.attrs["begin_mask"])  # an empty optional mask has any size
        if any(self.attrs[name] and len(self.attrs[name]) != size for name in MASKS[1:]):
            raise ShapeError("All masks of StridedSlice must have the same size")
        for info, name in zip(bounds, NAMES, strict=False):
            if info.shape.rank not in (None, 1):
                raise ShapeError(f"{name} input must be 1D (has rank: {info.shape.rank})")
        if data.shape.dims is None:
            return [TensorInfo(data.type, Shape.dynamic())]
        for info, name in zip(bounds, ("begin", "end", "strides"), strict=False):
            read_value(info, f"the {name}")
        begin, end = _read_bounds(bounds[0]), _read_bounds(bounds[1])
        strides = _read_strides(bounds[2]) if len(bounds) > 2 else None
        if strides is None and len(bounds) == 2 and begin is not None:
            strides = [1] * len(begin)
        count = self._count(bounds, strides)
        if count is None:
            return [TensorInfo(data.type, Shape.dynamic())]
        steps = self.steps(data.shape.dims, count, begin, end, strides)
        dims: list[Dim] = []
        position = 0
        for step in steps:
            if step.kind == "new":
                dims.append(Dim.static(1))
                continue
            taken = data.shape.dims[position : position + step.count]
            position += step.count
            if step.kind == "ellipsis":
                dims.extend(taken)
            elif step.kind == "unknown":
                dims.append(Dim(0, taken[0].high))
            elif step.kind == "cut" and ANY in (step.begin, step.end):
                # any begin or end: from none to a stride's share of the axis (measured)
                high = taken[0].high
                dims.append(Dim(0, None if high is None else -(-high // abs(step.stride))))
            elif step.kind == "cut":
                assert step.begin is not None and step.end is not None
                dims.append(slice_length(taken[0], step.begin, step.end, step.stride))
        dims.extend(data.shape.dims[position:])
        shape = Shape(tuple(dims))
        exact = all(s.kind != "unknown" and _exact(s) for s in steps)
        if not exact or not data.shape.is_static or out_of_range(steps, data.shape.values()):
            return [TensorInfo(data.type, shape)]
        index = _index(steps, data.shape.values())

        def taken_elements(array: NDArray[Any]) -> NDArray[Any]:
            taken: NDArray[Any] = array[index]
            return taken

        return [moved(data, shape, taken_elements)]

    @staticmethod
    def _count(bounds: Sequence[TensorInfo], strides: list[int] | None) -> int | None:
        """How many positions the bounds have, checked as OpenVINO checks their lengths."""
        lengths = [
            info.shape[0].value if info.shape.dims and info.shape[0].is_static else None
            for info in bounds[:2]
        ]
        count, end_count = lengths
        if count is not None and end_count is not None and count != end_count:
            raise ShapeError("Begin and end need to have same number of values.")
        count = end_count if count is None else count
        if count is not None and strides is not None and count != len(strides):
            raise ShapeError("Stride needs to have same number of values as begin and end.")
        return len(strides) if count is None and strides is not None else count

    def steps(
        self,
        dims: Sequence[Dim],
        count: int,
        begin: list[Bound] | None,
        end: list[Bound] | None,
        strides: list[int] | None,
    ) -> list[Step]:
        """What each of the `count` positions does to data of these dims, as OpenVINO's
        shape inference walks them."""
        rank = len(dims)
        ellipsis, new = self.mask("ellipsis_mask"), self.mask("new_axis_mask")
        if len(ellipsis) > 1:
            raise ShapeError("At most one ellipsis is allowed.")
        if not ellipsis and rank + len(new) < count:
            raise ShapeError(
                "Input rank plus number of new axis has to be at least the size of Lower and "
                "Upper bounds vector."
            )
        begin_mask, end_mask = self.mask("begin_mask"), self.mask("end_mask")
        shrink = self.mask("shrink_axis_mask")
        steps: list[Step] = []
        position = 0  # the input axis the next position takes
        for axis in range(count):
            position += steps[-1].count if steps else 0
            if position >= rank and axis not in ellipsis | new | shrink:
                raise ShapeError("Accessing out-of-range dimension")
            if axis in ellipsis:
                before = sum(1 for i in range(axis) if i not in new)
                after_new = sum(1 for i in range(axis + 1, len(begin) if begin else 0) if i in new)
                hidden = rank - (count - axis - after_new - 1) - before
                steps.append(Step("ellipsis", max(hidden, 0)))
            elif axis in new:
                steps.append(Step("new", 0))
            elif axis in shrink:
                # begin_mask takes index 0, but the CPU checks the begin written all the same
                written = None if begin is None else begin[axis]
                steps.append(Step("shrink", begin=written, first=axis in begin_mask))
            elif begin is None or end is None or strides is None:
                steps.append(Step("unknown"))
            else:
                stride = strides[axis]
                if stride == 0:
                    raise ShapeError("Stride must be non-zero")
                # The default ends are the axis' own (an unbounded one is INT64_MAX long).
                high = dims[position].high if position < rank else None
                length = INT64_MAX if high is None else high
                first, past = (
                    ((length, length), (-1 - length,) * 2)
                    if stride < 0
                    else ((0, 0), (length, length))
                )
                steps.append(
                    Step(
                        "cut",
                        begin=first if axis in begin_mask else begin[axis],
                        end=past if axis in end_mask else end[axis],
                        stride=stride,
                    )
                )
        return steps

    def index(self, shape: tuple[int, ...], rest: Sequence[NDArray[Any]]) -> tuple[Any, ...]:
        """The NumPy index that slices concrete data (what the kernel uses)."""
        run_time = self.run_time_bounds or (False,) * len(rest)
        values = [
            [as_int32(int(v)) if at_run_time else int(v) for v in array.ravel()]
            for array, at_run_time in zip(rest, run_time, strict=True)
        ]
        strides = values[2] if len(values) > 2 else [1] * len(values[0])
        begin = [(v, v) for v in values[0]]
        end = [(v, v) for v in values[1]]
        steps = self.steps([Dim.static(d) for d in shape], len(begin), begin, end, strides)
        return _index(steps, shape)

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        known = [i for i in inputs[1:] if i is not None]
        values = [integer_values(i) for i in known]
        masks = "; ".join(f"{name} {csv(self.attrs[name])}" for name in MASKS if self.attrs[name])
        if len(known) < 2 or any(v is None for v in values):
            return Explanation(f"a strided slice, by bounds given at run time; {masks}", [])
        rows = [f"{name.lower()} {csv(v or [])}" for name, v in zip(NAMES, values, strict=False)]
        return Explanation("a strided slice: " + "; ".join([*rows, masks]), [])


def _read_bounds(info: TensorInfo) -> list[Bound] | None:
    """A begin's or end's lower and upper values as OpenVINO evaluates them: its values or
    bounds, or, for a tensor of known length computed at run time, any int64."""
    pairs = bound_pairs(info)
    if pairs is None and info.shape.is_static and not info.unknown:
        return [ANY] * info.shape.values()[0]
    return pairs


def _read_strides(info: TensorInfo) -> list[int] | None:
    """The strides' values as OpenVINO reads them (of any type, cast to int64); None when
    computed at run time (their bounds do not count)."""
    if info.value is None:
        return None
    if info.type.is_integer:
        return bound_values(info)
    return [int(v) for v in info.value.ravel()]


def out_of_range(steps: Sequence[Step], shape: tuple[int, ...]) -> tuple[int, int] | None:
    """The begin of a shrunk axis outside its axis, with the axis' length, where the CPU
    refuses the layer."""
    position = 0
    for step in steps:
        if step.kind == "shrink" and step.begin is not None and position < len(shape):
            dim, begin = shape[position], step.begin[0]
            if not -dim <= begin < dim:
                return begin, dim
        position += step.count
    return None


def _exact(step: Step) -> bool:
    if step.kind != "cut":
        return True
    assert step.begin is not None and step.end is not None
    return step.begin[0] == step.begin[1] and step.end[0] == step.end[1]


def _index(steps: Sequence[Step], shape: tuple[int, ...]) -> tuple[Any, ...]:
    """NumPy's index for the steps on concrete dims: slices, None for a new axis, an
    integer for a shrunk one (its begin counted from the end when negative)."""
    index: list[Any] = []
    position = 0
    for step in steps:
        if step.kind == "new":
            index.append(None)
            continue
        if step.kind == "ellipsis":
            index.extend([slice(None)] * step.count)
            position += step.count
            continue
        dim = shape[position]
        position += 1
        if step.kind == "shrink":
            assert step.begin is not None
            if not -dim <= step.begin[0] < dim:
                raise ShapeError(
                    f"shrink_axis_mask takes index {step.begin[0]} of an axis of {dim}: the "
                    "CPU plugin refuses it (Index out of range)"
                )
            index.append(0 if step.first else normalized(step.begin[0], dim))
            continue
        assert step.begin is not None and step.end is not None
        index.append(cut_index(dim, step.begin[0], step.end[0], step.stride))
    return tuple(index)
