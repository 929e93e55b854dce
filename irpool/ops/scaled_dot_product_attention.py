"""ScaledDotProductAttention-13 (opset13-16): softmax(query @ keyᵀ * scale + mask) @ value,
what torch's `scaled_dot_product_attention` converts to (vit_b_16 holds 12).

Inputs: query [N..., L, E], key [N..., S, E], value [N..., S, Ev], then optionally
attention_mask (boolean: false masks out; or float, added) and scale (default 1/sqrt(E)); a
layer with a scale but no mask is written with a mask of 0. `causal` masks out every key after
the query's position (counted from the top left) and ignores the mask's shape.

What OpenVINO 2026.4's `read_model` does (measured, docs/ops/ScaledDotProductAttention.md):
- the mask's type must be a float or boolean type; then query, key, value, a float mask and
  the scale must share one type (dynamic takes the other), which must be a float type; a
  causal layer reads neither the mask's type nor its shape;
- query's rank at least 3; key's and value's too; their leading (batch) dims broadcast as
  numpy's with query's (and a mask's beyond its last two), key's E equals query's and value's S
  key's (intervals overlap, the overlap kept); a mask (not causal) of rank 0 passes, of rank 1
  is refused, its last two dims broadcast into L and S: the output's L is the broadcast one;
- a scale of static rank must be a scalar or hold one element ([?] passes, [1,1] does not).
Output: the broadcast batch dims, L and value's Ev; a dynamic rank when query's is.
The CPU plugin cannot compile a mask whose static S widens key's static S of 1 (IR613). Where
it multiplies by the scale is its compile-time decision (irpool.cpu.compilation).
The kernel is in irpool.execute.kernels.scaled_dot_product_attention.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from irpool.element_types import ElementType
from irpool.ops.arithmetic import broadcast, numpy_dim
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.concat import one_element
from irpool.ops.explanation import Explanation
from irpool.ops.registry import register
from irpool.shape import Dim, Shape

MIXED = "Mixed input types are not supported."


def _merged(a: Dim, b: Dim, message: str) -> Dim:
    """Two dims that must be equal (OpenVINO's Dimension::merge): their overlap."""
    overlap = a.overlap(b)
    if overlap is None:
        raise ShapeError(message)
    return overlap


def _batch_merged(batch: Shape, dims: tuple[Dim, ...], message: str) -> Shape:
    """`batch` with `dims` broadcast into it (PartialShape::broadcast_merge_into, numpy)."""
    try:
        return broadcast(batch, Shape(dims), "numpy")
    except ShapeError:
        raise ShapeError(message) from None


def _with_batch(info: TensorInfo, batch: Shape, message: str) -> tuple[Shape, tuple[Dim, ...]]:
    """Key's or value's batch dims broadcast into `batch`, and its dims (none: a dynamic
    rank, not checked); ShapeError with `message` below rank 3."""
    dims = info.shape.dims
    if dims is None:
        return batch, ()
    if len(dims) < 3:
        raise ShapeError(message)
    return _batch_merged(batch, dims[:-2], message), dims


def _broadcast_merged(a: Dim, b: Dim, message: str) -> Dim:
    try:
        return numpy_dim(a, b)
    except ShapeError:
        raise ShapeError(message) from None


@register
class ScaledDotProductAttention13(Op):
    type_name = "ScaledDotProductAttention"
    version = 13
    opsets = range(13, 17)
    attributes: ClassVar[tuple[Attr, ...]] = (Attr("causal", AttrType.BOOL, default=False),)
    input_names = ("query", "key", "value", "attention_mask", "scale")
    optional_inputs = 2
    # Whether the CPU multiplies key by the scale before the product rather than the product
    # after it: set per layer by irpool.cpu.compilation.
    scales_key = False
    # Whether the CPU compiles the layer for dynamic shapes (its fused snippet then adds the
    # softmax sum's tail otherwise): set per layer by irpool.cpu.compilation.
    dynamic_shapes = False
    # Whether the CPU runs the layer in its attention node, fused with the KV cache it reads:
    # set per layer by irpool.cpu.kv_cache.
    reads_cache = False
    cache_type: str | None = None  # the type that cache is held in (u8, f16, f32)
    # Whether a MatMul that quantizes its activations to int8 reads the output, so that its
    # products are emulated to a larger budget: set per layer by irpool.cpu.compressed_weights.
    read_by_quantization = False

    @property
    def causal(self) -> bool:
        return bool(self.attrs["causal"])

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        element = _element_type(inputs, self.causal)
        query, key, value = inputs[:3]
        if query.shape.dims is None:
            batch, length, depth = Shape.dynamic(), Dim.dynamic(), Dim.dynamic()
        elif len(query.shape.dims) < 3:
            raise ShapeError("Query input rank length must be at least 3 or more.")
        else:
            *leading, length, depth = query.shape.dims
            batch = Shape(tuple(leading))
        keys, values_depth = Dim.dynamic(), Dim.dynamic()
        message = "Key input shape not compatible with other inputs."
        batch, dims = _with_batch(key, batch, message)
        if dims:
            _merged(depth, dims[-1], message)
            keys = dims[-2]
        message = "Value input shape not compatible with other inputs."
        batch, dims = _with_batch(value, batch, message)
        if dims:
            keys = _merged(keys, dims[-2], message)
            values_depth = dims[-1]
        if len(inputs) > 3 and not self.causal:
            batch, length = self._with_mask(inputs[3], batch, length, keys)
        if len(inputs) > 4:
            _check_scale(inputs[4].shape)
        if batch.dims is None:
            return [TensorInfo(element, Shape.dynamic())]
        return [TensorInfo(element, Shape((*batch.dims, length, values_depth)))]

    @staticmethod
    def _with_mask(mask: TensorInfo, batch: Shape, length: Dim, keys: Dim) -> tuple[Shape, Dim]:
        """The batch dims and L with the mask's broadcast into them."""
        dims = mask.shape.dims
        if not dims:  # a scalar or a dynamic rank: nothing checked
            return batch, length
        message = "Attention mask input shape not compatible with other inputs."
        if len(dims) < 2:
            raise ShapeError(message)
        length = _broadcast_merged(length, dims[-2], message)
        _broadcast_merged(keys, dims[-1], message)
        if len(dims) > 2:
            batch = _batch_merged(batch, dims[:-2], message)
        return batch, length

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        scale = "scale" if len(inputs) > 4 else "1/sqrt(E)"
        mask = (
            " + causal mask (-inf after each query's position)"
            if self.causal
            else ""
            if len(inputs) < 4
            else " + attention_mask (boolean: false is -inf)"
        )
        return Explanation(f"softmax(query @ keyᵀ * {scale}{mask}) @ value", [])


def _element_type(inputs: Sequence[TensorInfo], causal: bool) -> ElementType:
    """The output's type: the one query, key, value, a float mask and the scale share (a
    causal layer's mask is not read: any type passes)."""
    mask = inputs[3].type if len(inputs) > 3 and not causal else None
    if mask is not None and not (mask.is_float or mask.is_boolean or mask.is_dynamic):
        raise ShapeError(
            "The element type of attention_mask must be either floating-point or boolean."
        )
    element = inputs[0].type
    for position, info in enumerate(inputs[1:], start=1):
        if position == 3 and (mask is None or mask.is_boolean):
            continue
        if info.type.is_dynamic:
            continue
        if element.is_dynamic:
            element = info.type
        elif element != info.type:
            raise ShapeError(MIXED)
    if not (element.is_float or element.is_dynamic):
        raise ShapeError("The element type of the input tensor must be a floating-point.")
    return element


def _check_scale(shape: Shape) -> None:
    if not one_element(shape):
        raise ShapeError("Scale input must be scalar or have 1 element.")
