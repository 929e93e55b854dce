"""Run one op on arrays the way the runner does: infer its outputs, then call its kernel."""

from __future__ import annotations

from collections.abc import Sequence
from copy import copy
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.compilation import compiled_for_layer
from irpool.element_types import element_type
from irpool.execute.registry import OutputSpec, kernel_of
from irpool.graph.weights import WeightsProblem
from irpool.ops.base import LayerContext, Op, TensorInfo
from irpool.ops.convolution import ConvolutionBase
from irpool.ops.scaled_dot_product_attention import ScaledDotProductAttention13
from irpool.shape import Shape

ELEMENT_TYPES = {
    element_type(name).dtype: element_type(name)
    for name in (
        "f32",
        "f16",
        "f64",
        "i8",
        "i16",
        "i32",
        "i64",
        "u8",
        "u16",
        "u32",
        "u64",
        "boolean",
    )
}


def _no_weights(offset: int, size: int) -> WeightsProblem:
    raise AssertionError("an op run on arrays reads no weights")


def quiet_context(present: frozenset[str] = frozenset()) -> LayerContext:
    """A layer context that drops what the op reports and reads no weights."""
    return LayerContext(present, lambda report: None, _no_weights)


def compute(op: Op, arrays: Sequence[NDArray[Any]]) -> list[NDArray[Any] | None]:
    """The op's outputs for `arrays`, every output used."""
    infos = [TensorInfo(ELEMENT_TYPES[a.dtype], Shape.of(*a.shape), a) for a in arrays]
    ignore = quiet_context(frozenset(op.attrs))
    specs = [OutputSpec.of(info.element_type) for info in op.infer(infos, ignore)]
    kernel = kernel_of(op)
    assert kernel is not None, f"{op.label()} has no kernel"
    return kernel(op, arrays, specs)


def info(kind: str, values: Any) -> TensorInfo:
    """A known tensor of these values (an i64, i32 or f32 Const's)."""
    array = np.array(values, {"i64": np.int64, "i32": np.int32, "f32": np.float32}[kind])
    return TensorInfo(element_type(kind), Shape.of(*array.shape), array)


def convolution_op(kind: type[ConvolutionBase], rank: int, **attrs: Any) -> ConvolutionBase:
    """A (Group)Convolution of `rank` spatial axes: unit strides and dilations, no padding,
    unless `attrs` say otherwise."""
    lists = {"strides": (1,) * rank, "dilations": (1,) * rank}
    lists |= {"pads_begin": (0,) * rank, "pads_end": (0,) * rank}
    return kind({**lists, "auto_pad": "explicit", **attrs}).for_layer([])


def convolved(conv: ConvolutionBase, x: NDArray[Any], w: NDArray[Any]) -> NDArray[Any]:
    (result,) = compute(conv, [x, w])
    assert result is not None
    return result


def attention(
    *arrays: Any,
    causal: bool = False,
    constant_scale: bool = True,
    reads_cache: bool = False,
    cache_type: str | None = None,
) -> np.ndarray:
    """The kernel's output, the scale known when compiling (a constant) or not; `reads_cache`:
    the layer is fused with its KV cache (the CPU's attention node), held in `cache_type`."""
    infos = [TensorInfo(element_type("f32"), Shape.of(*a.shape)) for a in arrays]
    if len(arrays) > 4 and constant_scale:
        infos[4] = TensorInfo(infos[4].type, infos[4].shape, arrays[4])
    op = compiled_for_layer(ScaledDotProductAttention13({"causal": causal}), infos)
    if reads_cache:
        op = copy(op)
        op.reads_cache, op.cache_type = True, cache_type
    (result,) = compute(op, list(arrays))
    assert result is not None
    return result
