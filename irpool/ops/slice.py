"""Slice-8 (opset8-16): `data` cut along `axes` from `start` to `stop` by `step`, as Python
slices cut (a negative step walks backwards; bounds beyond the axis clamp to it).

What OpenVINO 2026.4 checks (measured, docs/ops/Slice.md): `data` not a scalar ("Slice
`data` input can't be a scalar."); `start`, `stop`, `step` and `axes` of integer types ("Slice
`start` input type must be integer."), each 1-D ("Slice `start` input must be a 1D tensor.
Got rank: 2"), of one length ("Slice `start`, `stop`, `step` inputs must have compatible
shapes.", "Slice `axes` input must have compatible shape with `start`, `stop`, `step`
inputs."), no longer than the rank without `axes` ("Slice `start` input dim size can't be
bigger than `data` rank."); no step 0 ("Step must be non-zero"), axes in [-rank, rank - 1]
and unique ("Slice values in `axes` input must be unique."). A dimension known only as an
interval is sliced as OpenVINO slices its two ends (`slice_length`).
"""

from __future__ import annotations

from collections.abc import Sequence
from copy import copy
from typing import TYPE_CHECKING, Any, ClassVar

from irpool.element_types import takes_integer_input
from irpool.ops.base import LayerContext, Op, ShapeError, TensorInfo, read_value
from irpool.ops.bounds import moved
from irpool.ops.explanation import Explanation
from irpool.ops.folding import integer_values
from irpool.ops.pooling_geometry import csv
from irpool.ops.reduce import Reduce
from irpool.ops.registry import register
from irpool.shape import Dim, Shape

if TYPE_CHECKING:
    from numpy.typing import NDArray

INT64_MAX = (1 << 63) - 1
INT64_MIN = -(1 << 63)
INT32_MAX = (1 << 31) - 1
INT32_MIN = -(1 << 31)
NAMES = ("start", "stop", "step", "axes")
# A value known by its lower and upper bounds.
Bound = tuple[int, int]
# One axis' cut: its start and stop bounds and its step.
Cut = tuple[Bound, Bound, int]


def slice_length(dim: Dim, start: Bound, stop: Bound, step: int) -> Dim:
    """The length start:stop:step takes of `dim`, start and stop known by their (lower,
    upper) bounds: each end of the interval sliced alone with the bounds that give its
    least and its greatest length, as OpenVINO's make_dim
    (docs/ops/Slice.md#bounded-start-and-stop)."""
    start_lb, start_ub = _crossing_zero(start, dim)
    stop_lb, stop_ub = _crossing_zero(stop, dim)
    if step < 0:
        start_lb, start_ub, stop_lb, stop_ub = start_ub, start_lb, stop_ub, stop_lb
    low = sliced_count(dim.low, start_ub, stop_lb, step)
    high = sliced_count(-1 if dim.high is None else dim.high, start_lb, stop_ub, step)
    if high == -1:
        return Dim(low, None)
    # low > high: an empty interval, which OpenVINO prints `?` but the CPU plugin sizes as
    # empty, refusing every run that slices an element (docs/ops/Slice.md#bounded-start-and-stop).
    return Dim(low, high)


def _crossing_zero(bounds: Bound, dim: Dim) -> Bound:
    """Bounds from below 0 to 0 or more cover both ends of the axis: OpenVINO takes 0 for
    the lower (when the negative one reaches inside the axis) and -1 for the upper (when
    the other one is inside it)."""
    low, high = bounds
    if not low < 0 <= high:
        return bounds
    return (
        0 if dim.high is None or low + dim.high >= 0 else low,
        -1 if dim.high is None or high < dim.high else high,
    )


def sliced_count(dim: int, start: int, stop: int, step: int) -> int:
    """OpenVINO's sliced length of one end of an interval (-1: unbounded, also as `dim`): an
    unbounded axis is INT64_MAX long, but a negative bound counts from an end not known."""
    reverse = step < 0
    length = INT64_MAX if dim == -1 else dim
    unbounded = length == INT64_MAX
    start_negative = start < 0
    start_limit = start in (INT64_MAX, INT64_MIN)
    any_max = INT64_MAX in (start, stop)
    if unbounded and (start_negative != (stop < 0) or any_max or start_limit):
        if reverse:
            high = -1 if start_negative or any_max else -1 - start
        elif start_negative and not start_limit:
            high = -start if stop == INT64_MAX else stop
        else:
            high = -1
        low = 0
        if high == -1:
            return -1
    else:
        low = clipped(normalized(start, length), 0, length - 1 if reverse else length)
        high = clipped(normalized(stop, length), -1 if reverse else 0, length)
    span = min(0, high - low) if reverse else max(0, high - low)
    if step == -1:
        return -span
    if span == 0 or step == 1:
        return span
    span += 1 if reverse else -1
    return abs(span) // abs(step) + 1  # C++ division truncates; span and step share a sign


def as_int32(value: int) -> int:
    """A 64-bit value wrapped to int32, as the CPU plugin holds 64-bit tensors."""
    return (value - INT32_MIN) % (1 << 32) + INT32_MIN


def normalized(value: int, length: int) -> int:
    return value + length if value < 0 else value


def clipped(value: int, low: int, high: int) -> int:
    return min(max(value, low), high)


@register
class Slice8(Op):
    """Slice-8: inputs `data`, `start`, `stop`, `step` and, optionally, `axes`."""

    takes_strings = True
    type_name = "Slice"
    version = 8
    opsets = range(8, 17)
    input_names: ClassVar[tuple[str, ...]] = ("data", "start", "stop", "step", "axes")
    optional_inputs = 1
    # Which of start, stop, step and axes are known only at run time, where the CPU plugin
    # holds them as it holds every 64-bit tensor: wrapped to int32 (measured: a run-time
    # stop of INT64_MIN is 0, of -2**31 - 1 is 2**31 - 1). Set per layer by `for_layer`.
    run_time_bounds: tuple[bool, ...] = ()

    def for_layer(self, inputs: Sequence[TensorInfo]) -> Slice8:
        layer_op = copy(self)
        layer_op.run_time_bounds = tuple(info.value is None for info in inputs[1:])
        return layer_op

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, bounds = inputs[0], inputs[1:]
        if data.shape.rank == 0:
            raise ShapeError("Slice `data` input can't be a scalar.")
        for info, name in zip(bounds, NAMES, strict=False):
            if not takes_integer_input(info.element_type):
                raise ShapeError(f"Slice `{name}` input type must be integer.")
        if data.shape.dims is None:  # measured: nothing else is checked then
            return [TensorInfo(data.type, data.shape)]
        rank = len(data.shape.dims)
        _check_shapes(bounds, rank)
        for info, name in zip(bounds, NAMES, strict=False):
            read_value(info, f"the {name}")
        written = next((i.shape[0].value for i in bounds if i.shape.is_static), None)
        ends = [bound_pairs(i) for i in bounds[:2]]
        cuts = self._cuts(ends, [bound_values(i) for i in bounds[2:]], written, rank)
        if cuts is None:  # any axis may be cut, to any length up to its own
            return [TensorInfo(data.type, Shape(tuple(Dim(0, d.high) for d in data.shape)))]
        dims = list(data.shape.dims)
        for axis, cut in cuts.items():
            dims[axis] = Dim(0, dims[axis].high) if cut is None else slice_length(dims[axis], *cut)
        shape = Shape(tuple(dims))
        exact = all(cut is not None and _exact(cut) for cut in cuts.values())
        if not exact or not data.shape.is_static:
            return [TensorInfo(data.type, shape)]
        index = _index(cuts, data.shape.values())

        def taken(array: NDArray[Any]) -> NDArray[Any]:
            return array[index]

        return [moved(data, shape, taken)]

    @staticmethod
    def _cuts(
        ends: Sequence[list[Bound] | None],
        rest: Sequence[list[int] | None],
        written: int | None,
        rank: int,
    ) -> dict[int, Cut | None] | None:
        """Each sliced axis' start and stop bounds and step, None where they are not known;
        None when the axes are. `written`: how many bounds the inputs' shapes hold."""
        (start, stop), step = ends, rest[0]
        if step is not None and 0 in step:
            raise ShapeError("Step must be non-zero")
        if len(rest) > 1:
            if rest[1] is None:
                return None
            import numpy as np  # not at import: validating needs no NumPy

            axes = list(Reduce.normalized_axes(np.array(rest[1]), rank))
            if len(axes) != len(rest[1]):
                raise ShapeError("Slice values in `axes` input must be unique.")
            axes = [a % rank for a in rest[1]]
        else:
            count = next((len(v) for v in (start, stop, step) if v is not None), written)
            if count is None:
                return None
            axes = list(range(count))
        if start is None or stop is None or step is None:
            return dict.fromkeys(axes)
        return {a: (start[i], stop[i], step[i]) for i, a in enumerate(axes)}

    def cut(self, shape: tuple[int, ...], rest: Sequence[NDArray[Any]]) -> tuple[slice, ...]:
        """The index that slices concrete data (what the kernel uses)."""
        run_time = self.run_time_bounds or (False,) * len(rest)
        values = [
            # tolist(): Python numbers at once, not one NumPy scalar per element.
            [as_int32(int(v)) if at_run_time else int(v) for v in array.ravel().tolist()]
            for array, at_run_time in zip(rest, run_time, strict=True)
        ]
        ends = [[(v, v) for v in end] for end in values[:2]]
        cuts = self._cuts(ends, values[2:], None, len(shape)) or {}
        return _index(cuts, shape)

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        known = [i for i in inputs[1:] if i is not None]
        values = [integer_values(i) for i in known]
        if len(known) < 3 or any(v is None for v in values):
            return Explanation("a slice, by bounds given at run time", [])
        rows = [f"{name} {csv(v or [])}" for name, v in zip(NAMES, values, strict=False)]
        return Explanation("a slice: " + "; ".join(rows), [])


def _check_shapes(bounds: Sequence[TensorInfo], rank: int) -> None:
    """The bounds' ranks and lengths, as OpenVINO checks them on data of known rank."""
    for info, name in zip(bounds, NAMES, strict=False):
        if info.shape.rank is not None and info.shape.rank != 1:
            raise ShapeError(
                f"Slice `{name}` input must be a 1D tensor. Got rank: {info.shape.rank}"
            )
    lengths = {i.shape[0].value for i in bounds[:3] if i.shape.dims and i.shape[0].is_static}
    if len(lengths) > 1:
        raise ShapeError("Slice `start`, `stop`, `step` inputs must have compatible shapes.")
    axes = bounds[3] if len(bounds) > 3 else None
    axes_dims = () if axes is None or axes.shape.dims is None else axes.shape.dims
    if axes_dims and axes_dims[0].is_static and lengths and {axes_dims[0].value} != lengths:
        raise ShapeError(
            "Slice `axes` input must have compatible shape with `start`, `stop`, `step` inputs."
        )
    if axes is None and lengths and max(lengths) > rank:
        raise ShapeError("Slice `start` input dim size can't be bigger than `data` rank.")


def bound_values(info: TensorInfo) -> list[int] | None:
    """A bound's values as OpenVINO reads them: an i32's extremes stand for int64's."""
    pairs = bound_pairs(info) if info.value is not None else None
    return None if pairs is None else [low for low, _ in pairs]


def bound_pairs(info: TensorInfo) -> list[Bound] | None:
    """A start's or stop's lower and upper bounds, as OpenVINO reads them: an i32's extremes
    stand for int64's."""
    values = integer_values(info)
    if values is not None:
        pairs = [(v, v) for v in values]
    elif info.bounds is not None:
        pairs = list(zip(info.bounds.lower, info.bounds.upper, strict=True))
    else:
        return None
    if info.element_type != "i32":
        return pairs
    wide = {INT32_MAX: INT64_MAX, INT32_MIN: INT64_MIN}
    return [(wide.get(low, low), wide.get(high, high)) for low, high in pairs]


def _exact(cut: Cut) -> bool:
    return cut[0][0] == cut[0][1] and cut[1][0] == cut[1][1]


def _index(cuts: dict[int, Cut | None], shape: tuple[int, ...]) -> tuple[slice, ...]:
    """NumPy's index for the cuts on concrete dims: the elements OpenVINO takes, which are
    not always Python's (a reverse start before the axis is clipped to its first element)."""
    index = []
    for axis, dim in enumerate(shape):
        cut = cuts.get(axis)
        if cut is None:
            index.append(slice(None))
            continue
        (start, _), (stop, _), step = cut
        index.append(cut_index(dim, start, stop, step))
    return tuple(index)


def cut_index(dim: int, start: int, stop: int, step: int) -> slice:
    """NumPy's slice for start:stop:step on an axis of `dim`: the elements OpenVINO takes,
    which are not always Python's (a reverse start before the axis is clipped to its first
    element)."""
    count = sliced_count(dim, start, stop, step)
    first = clipped(normalized(start, dim), 0, dim - 1 if step < 0 else dim)
    last = first + count * step
    return slice(first, last if last >= 0 else None, step) if count else slice(0, 0)
