"""What the CPU plugin refuses of the shape and data-movement ops (reductions, MVN, Roll,
Pad, ScatterNDUpdate, Transpose, Range, Broadcast, Gather, Slice, StridedSlice, Tile, CumSum,
TopK) where
`read_model` takes the layer: each cause a rule of the IR214 family (docs/rules/)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from irpool.cpu.declare import refuses
from irpool.element_types import DYNAMIC, I32, I64, STRING
from irpool.ops.base import LayerContext, ShapeError, TensorInfo
from irpool.ops.bounds import bounds_of
from irpool.ops.broadcast import Broadcast, wrong_shape
from irpool.ops.concat import axis_in_range
from irpool.ops.cumsum import CumSum3
from irpool.ops.folding import integer_values
from irpool.ops.gather import Gather1, Gather7, Gather8
from irpool.ops.mvn import MVN6
from irpool.ops.pad import Pad12
from irpool.ops.range import Range4
from irpool.ops.reduce import Reduce
from irpool.ops.roll import Roll7
from irpool.ops.scatter_nd_update import ScatterNDUpdate3
from irpool.ops.slice import Slice8
from irpool.ops.strided_slice import StridedSlice1, out_of_range
from irpool.ops.tile import Tile1
from irpool.ops.topk import TopK1, TopK3, TopK11
from irpool.ops.transpose import Transpose1
from irpool.rules import (
    CPU_BROADCAST_SCALAR_TO_EMPTY,
    CPU_BROADCAST_TARGET,
    CPU_CUMSUM_AXIS,
    CPU_EMPTY_REDUCE_AXES,
    CPU_GATHER_NO_ELEMENTS,
    CPU_GATHER_RUN_TIME_AXIS,
    CPU_GATHER_UNIT_BATCH,
    CPU_MVN_AXES_OUT_OF_RANK,
    CPU_PAD_CUTS_PAST_AXIS,
    CPU_ROLL_SCALAR_SHIFT,
    CPU_SCATTER_UPDATES_RANK,
    CPU_SLICE_MINIMUM_STEP,
    CPU_STRIDED_SLICE_SHRINK_OUT_OF_RANGE,
    CPU_TILE_NEGATIVE_REPEAT,
    CPU_TOPK_K_RANGE,
    CPU_TRANSPOSE_BYTE_ORDER,
    CPU_UNCOMPILED_ELEMENT_TYPE,
    INFERENCE_FAILURE,
)
from irpool.shape import Dim, Shape


@refuses(Reduce)
def _reduce(op: Reduce, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    data, axes = inputs
    rank = data.shape.rank
    if axes.value is None or rank is None or rank == 0 or op.keep_dims:
        return
    if not op.normalized_axes(axes.value, rank):
        ctx.report(
            CPU_EMPTY_REDUCE_AXES,
            f"axes is empty and keep_dims is false; the CPU plugin refuses to compile "
            f'{op.label()} like that (write keep_dims="true", or remove the layer: it '
            "changes nothing)",
            "keep_dims",
        )


@refuses(MVN6)
def _mvn(op: MVN6, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    if len(inputs) < 2:  # MVN-1: no axes input
        return
    data, axes = inputs
    if axes.value is None or data.shape.rank is None:
        return
    try:
        Reduce.normalized_axes(axes.value, data.shape.rank)
    except ShapeError as error:  # read_model checks only how many axes there are
        ctx.report(CPU_MVN_AXES_OUT_OF_RANK, f"{error}: the CPU plugin cannot compile the layer")


@refuses(Roll7)
def _roll(op: Roll7, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    data, shift, axes = inputs
    empty = data.shape.dims is not None and Dim.static(0) in data.shape.dims
    several = axes.shape.is_static and axes.shape.values() not in ((), (1,))
    if shift.shape.rank == 0 and several and not empty:  # an empty tensor compiles
        ctx.report(
            CPU_ROLL_SCALAR_SHIFT,
            f"a scalar shift with axes {axes.shape}: the CPU plugin cannot compile it "
            "(\"'shift' and 'axes' dimensions mismatch\"); write one shift per axis",
        )


@refuses(Pad12)
def _pad(op: Pad12, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    dims = inputs[0].shape.dims
    begin, end = bounds_of(inputs[1]), bounds_of(inputs[2])
    if dims is None or begin is None or end is None or not (begin.exact and end.exact):
        return
    if not len(dims) == len(begin.lower) == len(end.lower):  # pads irpool does not know
        return
    pairs = zip(dims, begin.lower, end.lower, strict=True)
    cut = [
        d.value
        for d, b, e in pairs
        if d.is_static and (min(b, e) < -d.value or d.value + b + e < 0)
    ]
    if cut:
        ctx.report(
            CPU_PAD_CUTS_PAST_AXIS,
            f"negative pads cut more than the whole axis of {cut[0]}: OpenVINO reads it, "
            "but its CPU plugin cannot run it (a pad beyond the axis corrupts memory, "
            "free(): invalid pointer; pads together beyond it: undefined source memory)",
        )


@refuses(Slice8)
def _slice(op: Slice8, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    step = inputs[3]
    steps = integer_values(step) if step.element_type in (I32, I64) else None
    if inputs[0].value is not None or not steps or min(steps) > -(2**31):
        return  # constant data folds
    try:  # the output's shape, its findings already reported by infer
        mute = LayerContext(ctx.present, lambda report: None, ctx.read_weights, ctx.used_outputs)
        dims = op.for_layer(inputs).infer(inputs, mute)[0].shape.dims
    except ShapeError:
        return
    if dims is not None and all(dim.low > 0 for dim in dims):
        ctx.report(
            CPU_SLICE_MINIMUM_STEP,
            f"a step of {min(steps)}, at or below -2**31, on a slice of shape "
            f"{Shape(dims)}: the CPU plugin's process dies of SIGFPE (compiling it, or at "
            "the first inference); write minus the axis length instead",
        )


@refuses(CumSum3)
def _cumsum(op: CumSum3, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    data, axis = inputs
    values = integer_values(axis)
    rank = data.shape.rank
    if axis.shape.rank is not None and axis.shape.rank != 0:
        ctx.report(
            CPU_CUMSUM_AXIS,
            f"an axis of shape {axis.shape}: OpenVINO reads it, but its CPU plugin compiles a "
            "CumSum only with a scalar axis",
        )
    elif values is not None and rank is not None and not op.axis_in_range(values[0], rank):
        ctx.report(
            CPU_CUMSUM_AXIS,
            f"axis {values[0]} out of the rank-{rank} data's range: OpenVINO reads and its CPU "
            "plugin compiles it, but an inference fails or returns memory it never wrote",
        )


@refuses(TopK1)
@refuses(TopK3)
@refuses(TopK11)
def _topk(op: TopK1 | TopK3 | TopK11, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    data, k = inputs
    values = integer_values(k)
    if values is None or data.shape.dims is None or not data.shape.dims:
        return
    try:  # k known before the axis was checked (its value unknown to irpool): no finding
        along = data.shape.dims[axis_in_range(int(op.attrs["axis"]), len(data.shape))]
    except ShapeError:
        return
    if values[0] == 0 or (along.high is not None and values[0] > along.high):
        ctx.report(
            CPU_TOPK_K_RANGE,
            f"k {values[0]} on an axis of {along}: OpenVINO reads it, but its CPU plugin takes "
            "k in [1, the axis's length] only",
        )


@refuses(Tile1)
def _tile(op: Tile1, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    data, repeats = inputs
    values = integer_values(repeats)
    if data.value is None and values and min(values) < 0:  # constant data folds
        ctx.report(
            CPU_TILE_NEGATIVE_REPEAT,
            f"repeats {','.join(map(str, values))}: OpenVINO reads a negative repeat as 0, "
            "but its CPU plugin's process dies (SIGSEGV) on some shapes; write 0",
        )


@refuses(StridedSlice1)
def _strided_slice(op: StridedSlice1, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    data, begin = inputs[0], inputs[1]
    values = integer_values(begin)
    if data.value is not None or values is None or not data.shape.is_static:
        return  # constant data folds; a run-time begin is checked when it runs
    pairs = [(v, v) for v in values]
    try:
        steps = op.steps(data.shape.dims or (), len(values), pairs, pairs, [1] * len(values))
    except ShapeError:  # read_model refuses it: reported by infer
        return
    found = out_of_range(steps, data.shape.values())
    if found is not None:
        ctx.report(
            CPU_STRIDED_SLICE_SHRINK_OUT_OF_RANGE,
            f"shrink_axis_mask takes index {found[0]} of an axis of {found[1]}: read_model "
            "drops the axis, but the CPU plugin cannot compile it (begin out of range); "
            "write an index within the axis",
        )


@refuses(ScatterNDUpdate3)
def _scatter(op: ScatterNDUpdate3, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    if ScatterNDUpdate3.updates_single_elements(*inputs):
        ctx.report(
            CPU_SCATTER_UPDATES_RANK,
            f"updates {inputs[2].shape} for single elements: read_model takes them, the CPU "
            'plugin cannot compile them ("do not have matched tensor rank relationship"); '
            "give scalar updates",
        )


@refuses(Transpose1)
def _transpose(op: Transpose1, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    data, order = inputs
    rank = data.shape.rank
    if order.value is not None and rank is not None and rank <= 1 and order.type.bits == 8:
        ctx.report(
            CPU_TRANSPOSE_BYTE_ORDER,
            f"a Transpose of rank {rank} by an {order.element_type} order: OpenVINO reads it, "
            'but its CPU plugin fails to run it ("contains less child edges"; wider order '
            "types and higher ranks run)",
        )


@refuses(Range4)
def _range(op: Range4, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    # Range-1's output type is its inputs' one type (Range1.for_layer types it).
    output_type = op.for_layer(inputs).attrs.get("output_type", op.output_type)
    uncompiled = output_type == STRING
    if uncompiled or output_type in (DYNAMIC, "u1"):
        ctx.report(
            CPU_UNCOMPILED_ELEMENT_TYPE if uncompiled else INFERENCE_FAILURE,
            f"a Range with output_type {output_type}: the CPU plugin cannot "
            f"{'compile' if uncompiled else 'run'} it; write a numeric output_type",
            "output_type",
        )


@refuses(Broadcast)
def _broadcast(op: Broadcast, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    """What the CPU plugin cannot run (measured, docs/ops/Broadcast.md), most of it with a
    constant target (`values`): it crashes, refuses to compile, or runs another shape than
    OpenVINO infers. A run's own target is checked by `infer`; constant data is folded."""
    data, target = inputs[:2]
    if data.value is not None or ctx.at_run_time or (target.unknown and target.value is None):
        return
    mode, values = op.mode(len(inputs)), integer_values(target)
    problem = None if values is None else wrong_shape(data.shape, values, mode)
    problems = [problem] if problem else []
    if mode in ("numpy", "explicit"):
        named = ("target", "axes_mapping")
        controls = zip(inputs[1 : 3 if mode == "explicit" else 2], named, strict=False)
        problems += [
            f'a constant {info.element_type} {name} ("Buffer over-read")'
            for info, name in controls
            if info.value is not None and info.type.bits == 8
        ]
    if data.shape.rank == 0 and values == [] and mode in ("numpy", "bidirectional"):
        ctx.report(
            CPU_BROADCAST_SCALAR_TO_EMPTY,
            "a scalar broadcast to []: OpenVINO reads the Broadcast, and its CPU plugin crashes "
            "in some runs (segmentation fault); remove the layer, which changes nothing",
        )
    empty = data.shape.dims is not None and any(d.high == 0 for d in data.shape.dims)
    if empty and (values is not None or mode == "pdpd"):
        problems.append(f"data of no elements {data.shape} (a crash)")
    if problems:
        ctx.report(
            CPU_BROADCAST_TARGET,
            f"{'; '.join(problems)}: OpenVINO reads the Broadcast, but its CPU plugin crashes, "
            "refuses to compile it or gives another shape than it infers",
        )


@refuses(Gather1)
@refuses(Gather7)
@refuses(Gather8)
def _gather(
    op: Gather1 | Gather7 | Gather8, inputs: Sequence[TensorInfo], ctx: LayerContext
) -> None:
    data, indices, axis = inputs
    position = integer_values(axis)
    if position is None:
        if not axis.unknown:  # computed at run time, not a value irpool does not know
            _run_time_axis(op.version, data.shape, indices.shape, ctx)
        return
    batch_dims = op.batch_dims(indices.shape.rank)
    if batch_dims < 0 and indices.shape.rank is not None:
        return  # IR205: the plugin fills the output from memory it never wrote
    if data.value is None and data.shape.is_static:
        _crashes(data.shape.values(), indices.shape, position[0], batch_dims, ctx)


def _run_time_axis(version: int, data: Shape, indices: Shape, ctx: LayerContext) -> None:
    """The CPU plugin reads an axis it cannot fold to a constant only where the data's or
    the indices' shape is dynamic (measured: a Parameter axis, or one computed from a
    dynamic dim, runs there); with both static it fails compiling the model ("axis value
    is not set", Gather-7 and -8) or crashes (Gather-1: segmentation fault), except a
    Gather-1 of one element (a scalar index into 1-D data), which runs."""
    one_element = version == 1 and data.rank == 1 and indices.rank == 0
    if data.is_static and indices.is_static and not one_element:
        failure = "crashes" if version == 1 else 'fails ("axis value is not set")'
        ctx.report(
            CPU_GATHER_RUN_TIME_AXIS,
            f"the axis is computed at run time, not a constant OpenVINO folds, and the data "
            f"{data} and indices {indices} are static: the CPU plugin {failure} compiling "
            "it (it reads such an axis only when a shape is dynamic); write the axis as a "
            "Const",
        )


def _crashes(
    data: tuple[int, ...], indices: Shape, axis: int, batch_dims: int, ctx: LayerContext
) -> None:
    """The CPU plugin's crashes on a Gather it does not fold (measured, the process dies):
    it divides by the indices per batch, by the data dims between the batch and the axis,
    and (with more than one index per batch, or batch dims) by those after the axis when it
    compiles one (a floating-point exception when one is 0; a 0 after the axis with one
    index and no batch dims runs), and it crashes in some runs on batch dims all 1."""
    between = math.prod(data[batch_dims : axis % len(data)])
    after = math.prod(data[axis % len(data) + 1 :])
    picks = indices.dims[batch_dims:] if indices.dims is not None else (Dim.dynamic(),)
    none_picked = any(d.high == 0 for d in picks)
    several = any(d.high is None or d.high > 1 for d in picks)
    if between == 0 or none_picked or (after == 0 and (several or batch_dims > 0)):
        ctx.report(
            CPU_GATHER_NO_ELEMENTS,
            "a Gather picking no elements (no indices, a 0 among the data dims between "
            "batch_dims and the axis, or after it with more than one index or batch_dims): "
            "OpenVINO reads it, but its CPU plugin crashes compiling it (floating-point "
            "exception) unless the data is a constant",
        )
    elif batch_dims > 0 and math.prod(data[:batch_dims]) == 1:
        ctx.report(
            CPU_GATHER_UNIT_BATCH,
            f"a Gather with batch_dims {batch_dims} over batch dims of 1 ({Shape.of(*data)}):"
            " OpenVINO reads it, and its CPU plugin crashes running it in some runs "
            "(segmentation fault, measured with Gather-7 and -8) unless the data is a constant",
        )
