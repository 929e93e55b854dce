"""What OpenVINO's CPU plugin refuses to compile or run, declared per op class, apart from
each op's `infer` (which raises only what `read_model` refuses).

Each cause is one rule of the IR214 family (IR6xx, docs/rules/), declared once with
`irpool.cpu.declare.refuses`: element types, inputs and pooling windows here, the shape ops
in irpool/cpu/shape_refusals.py, Interpolate in irpool/cpu/interpolate_refusals.py. The
generic checker (irpool/check/layer_checker.py) asks `check_refusals` for every layer
`read_model` takes, and `multiply_fusion_refusal` and `clamp_fusion_refusal` for what the
plugin's fusion of a MatMul (or a Convolution) with the Multiply (or the Clamp) after it
refuses.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from irpool.cpu import (  # noqa: F401  (their declarations register themselves)
    interpolate_refusals,
    layer_refusals,
    quantization_refusals,
    shape_refusals,
)
from irpool.cpu.declare import REFUSALS, refuses
from irpool.cpu.prelu_slope import slope_layout
from irpool.element_types import (
    BF16,
    BOOLEAN,
    CPU_UNCOMPILED_TYPES,
    DYNAMIC,
    I8,
    I16,
    I32,
    I64,
    STRING,
    U8,
    U16,
    U32,
    U64,
)
from irpool.ops.activations import PRelu1
from irpool.ops.adaptive_max_pool import INDICES as ADAPTIVE_INDICES
from irpool.ops.adaptive_max_pool import AdaptiveMaxPool8
from irpool.ops.avg_pool import AvgPoolBase
from irpool.ops.base import LayerContext, Op, TensorInfo
from irpool.ops.clamp import Clamp1
from irpool.ops.convert import Convert1
from irpool.ops.convolution import Convolution1, GroupConvolution1
from irpool.ops.mat_mul import MatMul1
from irpool.ops.max_pool import INDEX_TYPES, INDICES, MaxPoolBase
from irpool.ops.parameter import Parameter
from irpool.ops.pooling import WindowPoolBase
from irpool.ops.pooling_geometry import WRAPPED
from irpool.ops.scaled_dot_product_attention import ScaledDotProductAttention13
from irpool.ops.unary_math import BY_TYPE as UNARY_MATH
from irpool.rules import (
    CPU_ATTENTION_MASK_KEYS,
    CPU_DYNAMIC_RANK_INPUT,
    CPU_MATMUL_BATCHED_CONSTANT,
    CPU_POOLING_INDEX_TYPE,
    CPU_POOLING_WITHOUT_DILATIONS,
    CPU_PRELU_SLOPE_SHAPE,
    CPU_UNCOMPILED_ELEMENT_TYPE,
    CPU_WINDOW_IN_PADDING,
    CPU_WRAPPED_STRIDE,
    INFERENCE_FAILURE,
)
from irpool.shape import Dim

# The destinations the CPU cannot convert a low-bit float type to (measured, Const -> Convert:
# "cpu_convert can't convert", "unsupported src_prc"; tests/golden/low_bit_cpu.json).
_WIDE_INTEGERS = frozenset({I16, U16, I32, I64, U32, U64, BOOLEAN})
CPU_UNCONVERTED_FROM = {
    "nf4": _WIDE_INTEGERS, "f4e2m1": _WIDE_INTEGERS, "f8e8m0": _WIDE_INTEGERS | {I8, U8},
}  # fmt: skip
# The integer types on which a Clamp post-op with crossed bounds fails (docs/rules/IR622.md).
INTEGER_POST_OP_TYPES = frozenset({I8, U8, I16, U16, I32, U32, I64, U64})


def check_refusals(op: Op, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    """Report, through `ctx`, everything the CPU plugin refuses of this layer."""
    for op_class in type(op).__mro__:
        for refusal in REFUSALS.get(op_class, ()):
            refusal(op, inputs, ctx)


@refuses(Op)
def _string_data(op: Op, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    if not op.takes_strings and any(info.element_type == STRING for info in inputs):
        ctx.report(
            CPU_UNCOMPILED_ELEMENT_TYPE,
            f"{op.label()} on string data: OpenVINO reads the layer, but its CPU plugin "
            "cannot compile it",
        )


@refuses(Parameter)
def _parameter(op: Parameter, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    if op.shape.dims is None:
        ctx.report(
            CPU_DYNAMIC_RANK_INPUT,
            "the CPU plugin cannot compile a model whose input has a dynamic rank (shape "
            '"..."); give the Parameter a rank',
            "shape",
        )
    if op.element_type == DYNAMIC:
        ctx.report(
            CPU_UNCOMPILED_ELEMENT_TYPE,
            "the CPU plugin cannot compile a model whose input has a dynamic element type; "
            "give the Parameter an element_type",
            "element_type",
        )
    if op.element_type in CPU_UNCOMPILED_TYPES:
        ctx.report(
            CPU_UNCOMPILED_ELEMENT_TYPE,
            f"the CPU plugin cannot compile a model whose input is {op.element_type} "
            "(OpenVINO reads it)",
            "element_type",
        )


@refuses(Convert1)
def _convert(op: Convert1, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    if op.destination == DYNAMIC:
        ctx.report(
            CPU_UNCOMPILED_ELEMENT_TYPE,
            "destination_type is dynamic (or missing): OpenVINO reads the layer, but its CPU "
            "plugin cannot compile a Convert to a dynamic type",
            "destination_type",
        )
    if STRING in (inputs[0].element_type, op.destination):
        ctx.report(
            CPU_UNCOMPILED_ELEMENT_TYPE,
            f"a Convert from {inputs[0].element_type} to {op.destination}: OpenVINO reads the "
            "layer, but its CPU plugin cannot compile a Convert of strings",
            "destination_type",
        )
    source = inputs[0].element_type
    if op.destination in CPU_UNCONVERTED_FROM.get(source, ()):
        ctx.report(
            CPU_UNCOMPILED_ELEMENT_TYPE,
            f"a Convert from {source} to {op.destination}: OpenVINO reads the layer, but its "
            f"CPU plugin cannot convert {source} to {op.destination}",
            "destination_type",
        )
    if op.destination in CPU_UNCOMPILED_TYPES:
        ctx.report(
            CPU_UNCOMPILED_ELEMENT_TYPE,
            f"destination_type is {op.destination}: OpenVINO reads the layer, but its CPU "
            f"plugin cannot compile a Convert to {op.destination}",
            "destination_type",
        )


@refuses(WindowPoolBase)
def _pooling_stride(op: WindowPoolBase, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    # A MaxPool-8/14 whose indices are read runs in the plugin's reference code, which takes
    # a wrapped stride (measured: docs/rules/IR603.md).
    if isinstance(op, MaxPoolBase) and op.version >= 8 and INDICES in ctx.used_outputs:
        return
    if any(v >= WRAPPED for v in op.spatial_attributes()[1]):
        ctx.report(
            CPU_WRAPPED_STRIDE,
            "a negative stride wraps around 2**64: OpenVINO reads it (one output on that "
            f"axis), but its CPU plugin cannot compile this {op.label()}",
            "strides",
        )


@refuses(AvgPoolBase)
def _avg_pool_dilations(op: AvgPoolBase, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    if op.version >= 16 and not op.attrs["dilations"]:
        ctx.report(
            CPU_POOLING_WITHOUT_DILATIONS,
            "AvgPool-16 needs explicit dilations (e.g. all 1); with empty or missing "
            "dilations OpenVINO's CPU plugin crashes compiling the model",
            "dilations",
        )


@refuses(AvgPoolBase)
def _avg_pool_window(op: AvgPoolBase, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    # read_model checks a window in the padding only on static dims (IR303); the plugin
    # checks it on dynamic dims too, when it compiles.
    shape = inputs[0].shape
    if shape.rank is None or not op.attrs["exclude-pad"]:
        return
    for index, axis in enumerate(op.axes(shape)):
        in_begin = axis.dilated_kernel <= axis.pad_begin
        if not axis.size.is_static and (in_begin or axis.dilated_kernel <= axis.pad_end):
            ctx.report(
                CPU_WINDOW_IN_PADDING,
                f"on spatial axis {index} the kernel after dilation ({axis.dilated_kernel}) "
                f"fits entirely in the padding (pads {axis.pad_begin}/{axis.pad_end}), which "
                "exclude-pad=true does not allow; the CPU plugin refuses to compile it",
                "pads_begin" if in_begin else "pads_end",
            )


@refuses(MaxPoolBase)
def _max_pool(op: MaxPoolBase, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    read = op.version >= 8 and INDICES in ctx.used_outputs
    if not read and op.attrs["rounding_type"] == "ceil_torch" and not op.attrs["dilations"]:
        # With the indices read the reference code runs it, and fails at inference (IR217).
        ctx.report(
            CPU_POOLING_WITHOUT_DILATIONS,
            f'{op.label()} with rounding_type="ceil_torch" needs explicit dilations (e.g. '
            "all 1); with empty or missing dilations OpenVINO's CPU plugin crashes "
            "compiling the model",
            "dilations",
        )
    if read and not op.attrs["dilations"]:
        ctx.report(
            INFERENCE_FAILURE,
            f"{op.label()} needs explicit dilations (e.g. all 1); without them OpenVINO's CPU "
            "plugin fails at inference when the indices output is used",
            "dilations",
        )
    index_type = op.attrs["index_element_type"] if read else None
    if index_type is not None and index_type not in INDEX_TYPES:
        # OpenVINO computes indices, and fails on them, only when they are read.
        ctx.report(
            INFERENCE_FAILURE,
            f'index_element_type="{index_type}": OpenVINO reads it, but its CPU plugin fails '
            "at inference on the indices output (i32 or i64 work)",
            "index_element_type",
        )
    if read and inputs[0].element_type == BF16:
        ctx.report(
            CPU_POOLING_INDEX_TYPE,
            f"{op.label()} on bf16 data with its indices output read: the CPU plugin "
            "computes indices only in its reference code, which has no bf16, and cannot "
            "compile the model",
        )


@refuses(AdaptiveMaxPool8)
def _adaptive_max_pool(
    op: AdaptiveMaxPool8, inputs: Sequence[TensorInfo], ctx: LayerContext
) -> None:
    size = inputs[1]
    # A global pooling with unread indices: the plugin compiles it as a ReduceMax, whatever
    # the index type (measured: output_size all ones, of any rank; not a run-time size).
    global_max = size.value is not None and bool((size.value == 1).all())
    if op.index_element_type == I64 and not (
        global_max and ADAPTIVE_INDICES not in ctx.used_outputs
    ):
        ctx.report(
            CPU_POOLING_INDEX_TYPE,
            "index_element_type is i64 (the default when it is missing); the CPU plugin "
            'refuses to compile AdaptiveMaxPool-8 with i64 indices: write "i32" (add a '
            "Convert to i64 after the indices if i64 is needed)",
            "index_element_type",
        )


@refuses(MatMul1)
def _mat_mul(op: MatMul1, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    data, weights = inputs
    batch = weights.shape[0] if weights.shape.rank == 3 else None
    if data.shape.rank != 2 or data.shape.is_static or weights.value is None or batch is None:
        return
    if batch.is_static and batch.value > 1:
        ctx.report(
            CPU_MATMUL_BATCHED_CONSTANT,
            f"a MatMul of dynamic data {data.shape} by a constant of shape {weights.shape}: the "
            "CPU plugin cannot compile it (\"Can't create dummy inputs if argument shapes "
            'ranks are not equal"); give the data a static shape',
        )


@refuses(UNARY_MATH["Negative"])
def _negative(op: Op, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    if inputs[0].element_type in (U8, U16, U32, U64):
        ctx.report(
            CPU_UNCOMPILED_ELEMENT_TYPE,
            f"Negative of {inputs[0].element_type}: OpenVINO reads the layer, but its CPU plugin "
            "rewrites it as a Multiply by -1, out of an unsigned type's range, and cannot "
            "compile it",
        )


@refuses(PRelu1)
def _prelu_slope(op: PRelu1, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    data, slope = (info.shape for info in inputs)
    if not (data.is_static and slope.is_static):
        return
    layout = slope_layout(data.values(), slope.values())
    if layout in ("one", "channel", "broadcast"):
        return
    if layout == "last" and inputs[0].element_type not in (I32, I64, U32, U64):
        return  # measured: i32 and i64 fail there (u32 and u64 are held as them)
    ctx.report(
        CPU_PRELU_SLOPE_SHAPE,
        f"a PReLU slope of shape {slope} on data {data}: OpenVINO reads the layer, but its CPU "
        "plugin applies a slope only per channel of axis 1 or by broadcast, and cannot "
        "compile it",
    )


@refuses(ScaledDotProductAttention13)
def _attention(
    op: ScaledDotProductAttention13, inputs: Sequence[TensorInfo], ctx: LayerContext
) -> None:
    mask = inputs[3].shape.dims if len(inputs) > 3 and not op.causal else None
    if not mask or not mask[-1].is_static or mask[-1].value <= 1:
        return
    keys = Dim.dynamic()
    for info in inputs[1:3]:  # key's and value's S, which infer found to overlap
        overlap = keys.overlap(info.shape.dims[-2]) if info.shape.dims else None
        keys = keys if overlap is None else overlap
    if keys == Dim.static(1):
        ctx.report(
            CPU_ATTENTION_MASK_KEYS,
            f"the attention mask's {mask[-1].value} keys widen key's and value's 1: the CPU "
            "plugin cannot compile the layer (its product with value fails)",
        )


def multiply_fusion_refusal(
    producer: Op, producer_inputs: Sequence[TensorInfo | None], factor: TensorInfo | None
) -> str | None:
    """Why the plugin's MatMulMultiplyFusion fails on a MatMul feeding a Multiply whose other
    operand is `factor`, or None (measured: docs/rules/IR619.md)."""
    if not isinstance(producer, MatMul1) or factor is None or factor.value is None:
        return None
    data, weights = producer_inputs
    if data is None or weights is None or weights.value is None:
        return None
    if weights.shape.rank != 1 or data.shape.rank is None or data.shape.rank < 3:
        return None
    return (
        f"a MatMul of rank-{data.shape.rank} data by a constant vector {weights.shape}, then a "
        "Multiply by a constant: the CPU plugin's MatMulMultiplyFusion fails compiling it "
        '("Incompatible MatMul matrix dimension"); write the vector as a [K, 1] constant and '
        "squeeze the result"
    )


def clamp_fusion_refusal(
    producer: Op, clamp: Op, data: TensorInfo | None, readers: int
) -> str | None:
    """Why the plugin cannot append a Clamp that alone (of `readers`) reads a MatMul's or
    Convolution's output to it as a post-op, or None (measured: docs/rules/IR622.md)."""
    if not isinstance(clamp, Clamp1) or readers != 1 or data is None:
        return None
    if not isinstance(producer, (MatMul1, Convolution1, GroupConvolution1)):
        return None
    bounds = (clamp.low, clamp.high)
    if data.element_type not in INTEGER_POST_OP_TYPES or not all(map(math.isfinite, bounds)):
        return None
    if math.ceil(clamp.low) <= math.floor(clamp.high):
        return None
    return (
        f"a Clamp of {data.element_type} data to [{clamp.low:g}, {clamp.high:g}], which holds no "
        f"integer, fused into the {producer.type_name} it reads: the CPU plugin rounds min up "
        'and max down and cannot compile it ("could not append an elementwise post-op"); '
        "write integer bounds"
    )
