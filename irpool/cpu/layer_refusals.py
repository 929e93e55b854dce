"""What the CPU plugin refuses of the convolutions, GridSample, the variables (ReadValue)
and DetectionOutput, where `read_model` takes the layer: each cause a rule of the IR214
family (docs/rules/)."""

from __future__ import annotations

from collections.abc import Sequence

from irpool.cpu.declare import refuses
from irpool.element_types import DYNAMIC, F64, I16, I64, U16, U32, U64
from irpool.ops.base import LayerContext, ShapeError, TensorInfo
from irpool.ops.convolution import ConvolutionBase
from irpool.ops.convolution_backprop import ConvolutionBackpropBase
from irpool.ops.detection_output import DetectionOutputBase
from irpool.ops.grid_sample import GridSample9
from irpool.ops.pooling_geometry import WRAPPED
from irpool.ops.variables import ReadValue6, ReadValueBase
from irpool.rules import (
    CPU_BACKPROP_DYNAMIC_SHAPE,
    CPU_BACKPROP_ONE_GROUP,
    CPU_DETECTION_OUTPUT_CLEARS_PAST_OUTPUT,
    CPU_DETECTION_OUTPUT_DECREASED_BACKGROUND,
    CPU_GRID_SAMPLE_EMPTY_DATA,
    CPU_UNCOMPILED_ELEMENT_TYPE,
    CPU_VARIABLE_DYNAMIC_RANK,
    CPU_VARIABLE_ELEMENT_TYPE,
    CPU_WRAPPED_STRIDE,
)
from irpool.shape import Dim, Shape

# The types of which the CPU plugin holds no variable: oneDNN has no memory of them (measured).
UNHELD_VARIABLE_TYPES = frozenset({I64, U64, I16, U16, U32, F64})


@refuses(ReadValueBase)
def _variable_type(op: ReadValueBase, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    variable = op.variable(inputs)
    if variable.element_type in UNHELD_VARIABLE_TYPES:
        ctx.report(
            CPU_VARIABLE_ELEMENT_TYPE,
            f'variable "{op.variable_id}" is {variable.element_type}: OpenVINO reads the layer and '
            "its CPU plugin compiles it, but the first inference fails (oneDNN has no "
            f"{variable.element_type} memory)",
            "variable_type" if "variable_type" in ctx.present else None,
        )


@refuses(ReadValue6)
def _read_value(op: ReadValue6, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    variable = op.variable(inputs)
    if variable.shape.dims is None:
        ctx.report(
            CPU_VARIABLE_DYNAMIC_RANK,
            f'variable "{op.variable_id}" has a dynamic rank: OpenVINO reads the layer, but its '
            "CPU plugin cannot compile a ReadValue of dynamic rank; write variable_shape",
            "variable_shape",
        )
    if variable.element_type == DYNAMIC:
        ctx.report(
            CPU_UNCOMPILED_ELEMENT_TYPE,
            f'variable "{op.variable_id}" has a dynamic element type: OpenVINO reads the layer, '
            "but its CPU plugin cannot compile or run it; write variable_type",
            "variable_type",
        )


@refuses(ConvolutionBase)
def _convolution_stride(
    op: ConvolutionBase, inputs: Sequence[TensorInfo], ctx: LayerContext
) -> None:
    if any(v >= WRAPPED for v in op.attrs["strides"]):
        ctx.report(
            CPU_WRAPPED_STRIDE,
            "a negative stride wraps around 2**64: OpenVINO reads it, but its CPU plugin "
            "cannot compile the layer (object is not initialized)",
            "strides",
        )


@refuses(ConvolutionBackpropBase)
def _convolution_backprop(
    op: ConvolutionBackpropBase, inputs: Sequence[TensorInfo], ctx: LayerContext
) -> None:
    for info, name in zip(inputs[1:], ("filters", "output_shape"), strict=False):
        if not info.shape.is_static and not info.trusted:
            ctx.report(
                CPU_BACKPROP_DYNAMIC_SHAPE,
                f"{name} of shape {info.shape}: the CPU plugin compiles {op.type_name} only "
                "with static filters and output_shape shapes",
            )
    data, filters = inputs[0].shape, inputs[1].shape
    # A negative dim (pads past the extent) fails on static spatial dims whatever the batch;
    # an output_shape known only at run time fails when the data is wholly static.
    spatial = data.dims is not None and all(dim.is_static for dim in data.dims[2:])
    static = data.is_static if len(inputs) > 2 else spatial
    # dynamic filters or output_shape shapes: reported once, above
    shapes_static = all(info.shape.is_static for info in inputs[1:])
    if static and shapes_static and not inputs[-1].unknown:
        mute = LayerContext(ctx.present, lambda report: None, ctx.read_weights, ctx.used_outputs)
        try:
            out = op.infer(inputs, mute)[0].shape
        except ShapeError:  # read_model refuses it: reported by infer
            out = data
        if out.dims is not None and not all(dim.is_static for dim in out.dims[2:]):
            ctx.report(
                CPU_BACKPROP_DYNAMIC_SHAPE,
                f"the output {out} is not static though data {data} and filters {filters} "
                "are: the CPU plugin cannot compile it (Destination memory is undefined); "
                "give output_shape as a Const, make the data dynamic, or lower the pads",
            )
    if op.filter_prefix == 3 and filters.dims is not None and filters[0] == Dim.static(1):
        channels = filters.dims[1:3]
        if any(dim.is_static and dim.value != 1 for dim in channels):
            ctx.report(
                CPU_BACKPROP_ONE_GROUP,
                f"filters {filters} of one group: the CPU plugin cannot compile a "
                f"{op.type_name} of one group with {channels[0]} input and {channels[1]} "
                "output channels; write a ConvolutionBackpropData with filters "
                f"{Shape(filters.dims[1:])}",
            )


@refuses(GridSample9)
def _grid_sample(op: GridSample9, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    data, grid = inputs
    if data.shape.dims is None or not any(d == Dim.static(0) for d in data.shape.dims[2:]):
        return
    dims = [data.shape[0], data.shape[1]]
    if grid.shape.dims is not None:
        dims += [grid.shape[1], grid.shape[2]]
    if Dim.static(0) not in dims:  # an empty output is right
        ctx.report(
            CPU_GRID_SAMPLE_EMPTY_DATA,
            f"the data {data.shape} has no rows or no columns to sample: the CPU plugin runs "
            "the layer but never writes its output (each inference returns what the memory "
            "held); irpool gives zeros",
        )


@refuses(DetectionOutputBase)
def _detection_output(
    op: DetectionOutputBase, inputs: Sequence[TensorInfo], ctx: LayerContext
) -> None:
    background = op.attrs["background_label_id"]
    if op.attrs["decrease_label_id"] and background != 0:
        ctx.report(
            CPU_DETECTION_OUTPUT_DECREASED_BACKGROUND,
            f"decrease_label_id with background_label_id {background}: OpenVINO reads it, but "
            "its CPU plugin takes class 0 as the background there and refuses another",
            "background_label_id",
        )
    keep, top_k = op.keep_top_k, op.attrs["top_k"]
    priors = op.known_priors(inputs)
    if (keep == 0 or keep < -1) and top_k > 0 and priors is not None and top_k > priors:
        ctx.report(
            CPU_DETECTION_OUTPUT_CLEARS_PAST_OUTPUT,
            f"keep_top_k {keep} and top_k {top_k} over {priors} priors: the output has "
            f"{priors} rows per image and class, but the CPU plugin clears {top_k}, past "
            "the end of its buffer",
            "top_k",
        )
