"""What the CPU plugin decides for one layer when it compiles a model, where the decision
changes what the layer computes (docs/cpu.md, "Compilation"). The execution plan asks
`compiled_for_layer` for each layer it runs; the op's kernel reads the decision off the op.

- MaxPool with its indices read and auto_pad same_*: the reference kernel that computes
  indices pads the spatial axes the model leaves dynamic by 0 (`unpadded_axes`).
- ScaledDotProductAttention: a scale known when compiling (a constant, or the default
  1/sqrt(E) of a static E, but not for f64 data) multiplies key before the product; any other
  scale multiplies the product (`scales_key`); with any input's shape dynamic, its fused
  snippet is compiled for dynamic shapes, which sums the softmax's tail otherwise
  (`dynamic_shapes`, irpool/cpu/attention_snippet.py).
- ScaledDotProductAttention at rank 5 runs its softmax through the SoftMax node, whose exp is
  0 below `EXP_UNDERFLOW`; at other ranks the fused kernel flushes exp results below FLT_MIN
  (`attention_runs_softmax_node`).
- Convert: the CPU runs its kernel for dynamic shapes when the model leaves the input's shape
  dynamic or its rank is 7 or more; that kernel rounds f32 to bf16 otherwise and saturates
  floats to i8/u8 (`dynamic_kernel`). A Convert from a low-bit type converts as OpenVINO
  folds, with two exceptions (`low_bit_source`, irpool/ops/convert_fold.py `fold_low_bit`).
- TopK along the last axis: the CPU's heap (k above 6 or dynamic shapes), lanes (k 1) or
  bubble kernel, each with its own order of ties and NaN (`kernel_order`,
  irpool/cpu/topk_order.py, docs/ops/TopK.md).
- Swish whose beta is no constant: the reference kernel, not the JIT one
  (`beta_at_run_time`, irpool.cpu.scalar_exp.reference_swish).
"""

from __future__ import annotations

from collections.abc import Sequence
from copy import copy
from typing import TypeVar

from irpool.cpu.topk_order import cpu_kernel_order
from irpool.element_types import F64
from irpool.low_bit import LOW_BIT_TYPES
from irpool.ops.activations import Swish4
from irpool.ops.base import Op, TensorInfo
from irpool.ops.convert import Convert1
from irpool.ops.max_pool import MaxPoolBase
from irpool.ops.scaled_dot_product_attention import ScaledDotProductAttention13
from irpool.ops.topk import TopK1, TopK3, TopK11

LayerOp = TypeVar("LayerOp", bound=Op)
SOFTMAX_NODE_RANK = 5  # the one rank of attention the plugin does not fuse
DYNAMIC_KERNEL_RANK = 7  # from this rank on, the CPU's Convert runs its dynamic-shape kernel


def compiled_for_layer(op: Op, inputs: Sequence[TensorInfo], blocked: bool = False) -> Op:
    """`op` as one layer runs it (`op.for_layer`), given its inputs as checking inferred them
    (`blocked`: the CPU may hold its first in a blocked layout), with what the CPU decides for
    the layer: itself where the decision is the op's default, else a copy (layers share ops)."""
    layer_op = op.for_layer(inputs)
    if isinstance(layer_op, MaxPoolBase):
        axes = unpadded_axes(layer_op, inputs)
        if axes:
            layer_op = _own(op, layer_op)
            layer_op.unpadded_axes = axes
    elif isinstance(layer_op, ScaledDotProductAttention13):
        known = scale_known_when_compiled(inputs)
        if known != layer_op.scales_key:
            layer_op = _own(op, layer_op)
            layer_op.scales_key = known
        dynamic = not all(info.shape.is_static for info in inputs[:4])
        if dynamic != layer_op.dynamic_shapes:
            layer_op = _own(op, layer_op)
            layer_op.dynamic_shapes = dynamic
    elif isinstance(layer_op, Convert1):
        if runs_dynamic_kernel(inputs[0]):
            layer_op = _own(op, layer_op)
            layer_op.dynamic_kernel = True
        if inputs[0].element_type in LOW_BIT_TYPES:
            layer_op = _own(op, layer_op)
            layer_op.low_bit_source = inputs[0].element_type
    elif isinstance(layer_op, TopK1 | TopK3 | TopK11):
        kernel = cpu_kernel_order(layer_op.attrs, (inputs[0], inputs[1]), blocked)
        if kernel is not None:
            layer_op = _own(op, layer_op)
            layer_op.kernel_order = kernel
    elif isinstance(layer_op, Swish4) and len(inputs) > 1 and inputs[1].value is None:
        layer_op = _own(op, layer_op)
        layer_op.beta_at_run_time = True
    return layer_op


def _own(shared: Op, layer_op: LayerOp) -> LayerOp:
    return copy(layer_op) if layer_op is shared else layer_op


def unpadded_axes(op: MaxPoolBase, inputs: Sequence[TensorInfo]) -> frozenset[int]:
    """The spatial axes (0 = the first) the model leaves dynamic under auto_pad same_*."""
    dims = inputs[0].shape.dims
    if op.attrs["auto_pad"] not in ("same_upper", "same_lower") or dims is None:
        return frozenset()
    return frozenset(i for i, dim in enumerate(dims[2:]) if not dim.is_static)


def scale_known_when_compiled(inputs: Sequence[TensorInfo]) -> bool:
    """Whether the CPU knows an attention's scale when compiling: a constant scale input, or
    the default 1/sqrt(E), which it folds for a static E (not for f64 data)."""
    if len(inputs) > 4:
        return inputs[4].value is not None
    dims, f64 = inputs[0].shape.dims, inputs[0].type.name == F64
    return dims is not None and bool(dims) and dims[-1].is_static and not f64


def attention_runs_softmax_node(rank: int) -> bool:
    """Whether the CPU computes an attention's softmax of scores of `rank` through its SoftMax
    node rather than fused into the attention kernel."""
    return rank == SOFTMAX_NODE_RANK


def runs_dynamic_kernel(data: TensorInfo) -> bool:
    """Whether the CPU runs Convert's kernel for dynamic shapes on this input."""
    return not data.shape.is_static or (data.shape.rank or 0) >= DYNAMIC_KERNEL_RANK
