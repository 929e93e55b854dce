"""How OpenVINO 2026.4's CPU plugin computes a FakeQuantize (docs/cpu.md, "Quantization";
measured in docs/ops/FakeQuantize.md).

A FakeQuantize the plugin runs on its own is one of two kernels, both in f32:
- the snippet (levels other than 2, no input_low above its input_high): the FakeQuantize
  decomposed as max(x, il) (NaN gives il), min(.., ih), `x * isc - il * isc` with
  isc = (levels - 1) / (ih - il), rounded half to even, then `r * osc + ol` fused
  (osc = (oh - ol) / (levels - 1));
- its FakeQuantize node (levels 2, some input_low above its input_high, or pdpd, where the
  node takes the shapes; other shapes run as element-wise ops with the snippet's arithmetic,
  or, with an input_low at or above its input_high, as OpenVINO's reference: the
  specification's formula in f32): min(x, ih) (NaN
  gives ih), max(.., il), `x * isc + ish` fused with ish = -il * (levels - 1) / (ih - il),
  rounded half to even, then `r * osc + ol` fused.
`levels` is an unsigned 64-bit count: 0 makes levels - 1 2**64 - 1 (so the output is the input
clamped, at f32's resolution).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from irpool.check.checked import CheckedLayers
from irpool.cpu.declare import refuses
from irpool.element_types import I8, I16, I32, I64, U16, U32, U64
from irpool.graph.graph import Graph, Layer
from irpool.ops.arithmetic import broadcast
from irpool.ops.base import LayerContext, ShapeError, TensorInfo
from irpool.ops.fake_quantize import RANGES, FakeQuantize1
from irpool.rules import (
    CPU_FAKE_QUANTIZE_DECOMPOSED_BROADCAST,
    CPU_FAKE_QUANTIZE_INTEGER_DATA,
    CPU_FAKE_QUANTIZE_STRIPPED_IDENTITY,
    Code,
)

F32 = np.float32
_LEVEL_SPAN = 2**64


def steps(levels: int) -> np.float32:
    """levels - 1 as the plugin computes it: in size_t, then in f32."""
    return F32((levels - 1) % _LEVEL_SPAN)


def fused_multiply_add(
    a: NDArray[np.float32], b: NDArray[np.float32], c: NDArray[np.float32]
) -> NDArray[np.float32]:
    """a * b + c rounded once to f32, as the plugin's FMA instructions (computed in f64: exact
    for the products of two f32 values; the sum is rounded twice only where f64 cannot hold
    it, which changes no result the measurements met)."""
    with np.errstate(all="ignore"):
        exact = np.multiply(a, b, dtype=np.float64)
        exact += c
        return exact.astype(F32)


Kernel = Literal["snippet", "node", "reference"]


def kernel_for_layer(
    levels: int, ranges: Sequence[NDArray[Any]], data_rank: int, auto_broadcast: str
) -> Kernel:
    """Which of its kernels the plugin runs a FakeQuantize on (docs/ops/FakeQuantize.md#values):
    the snippet (or the same arithmetic as element-wise ops) unless levels are 2, a range is
    crossed or the broadcast is pdpd; then its node where the node takes the shapes (data of
    rank 2 to 5, numpy or none, ranges per tensor or per channel of axis 1 or 2); else the
    element-wise ops, or OpenVINO's reference where some input_low is at or above its
    input_high (the decomposition refuses those). A pdpd layer of 15, 16, 255 or 256 levels
    is a numpy one (the low-precision pass rebuilds it)."""
    low, high = ranges[:2]
    if auto_broadcast == "pdpd" and levels in EIGHT_BIT_LEVELS:
        auto_broadcast = "numpy"  # its low-precision pass rewrites the layer so
    if levels != 2 and not np.any(low > high) and auto_broadcast in ("numpy", "none"):
        return "snippet"
    if _node_takes(ranges, data_rank, auto_broadcast):
        return "node"
    return "reference" if np.any(low >= high) else "snippet"


def _node_takes(ranges: Sequence[NDArray[Any]], data_rank: int, auto_broadcast: str) -> bool:
    if not 2 <= data_rank <= 5 or auto_broadcast not in ("numpy", "none"):
        return False
    for values in ranges:
        shape = (1,) * (data_rank - values.ndim) + values.shape
        wide = [axis for axis, dim in enumerate(shape) if dim > 1]
        if len(wide) > 1 or (wide and wide[0] not in (1, 2)):
            return False
    return True


def fake_quantized(
    x: NDArray[np.float32],
    ranges: tuple[NDArray[np.float32], ...],
    levels: int,
    kernel: Kernel = "snippet",
) -> NDArray[np.float32]:
    """FakeQuantize of f32 `x` by f32 `ranges` (input_low, input_high, output_low,
    output_high, each broadcast against `x`) as the plugin's `kernel` computes it."""
    low, high, out_low, out_high = ranges
    count = steps(levels)
    with np.errstate(all="ignore"):
        if kernel == "reference":
            level = np.rint((x - low) / (high - low) * count)
            inside = level / count * (out_high - out_low) + out_low
            above = np.where(x > np.maximum(low, high), out_high, inside)
            return np.where(x <= np.minimum(low, high), out_low, above).astype(F32)
        scale = count / (high - low)
        out_scale = (out_high - out_low) / count
        if kernel == "node":
            shift = (-low * count) / (high - low)
            level = np.rint(fused_multiply_add(np.fmax(np.fmin(x, high), low), scale, shift))
        else:
            level = np.fmax(x, low)
            np.fmin(level, high, out=level)
            np.multiply(level, scale, out=level)
            np.subtract(level, low * scale, out=level)
            np.rint(level, out=level)
    return fused_multiply_add(level, out_scale, out_low)


# The levels the plugin's FQStrippingTransformation removes, and how close its ranges must be.
STRIPPED_LEVELS = 65536
_STRIP_TOLERANCE = F32(1e-6)


def is_stripped(levels: int, ranges: Sequence[NDArray[Any] | None]) -> bool:
    """Whether the plugin removes this FakeQuantize (its output is then its input): 65536
    levels, and output ranges within 1e-6 of the input ones (element by element, in f32)."""
    if levels != STRIPPED_LEVELS or any(r is None for r in ranges):
        return False
    low, high, out_low, out_high = (np.asarray(r, F32) for r in ranges if r is not None)
    with np.errstate(all="ignore"):
        return bool(
            np.all(np.abs(low - out_low) < _STRIP_TOLERANCE)
            and np.all(np.abs(high - out_high) < _STRIP_TOLERANCE)
        )


# The levels that turn the plugin's low-precision pass on, the only ones it then takes on i8
# data, and the data it then refuses at any levels (docs/rules/IR628.md).
EIGHT_BIT_LEVELS = frozenset({15, 16, 255, 256})
WIDE_INTEGERS = frozenset({I16, U16, I32, U32, I64, U64})


def model_refusals(graph: Graph, checked: CheckedLayers) -> list[tuple[Layer, Code, str]]:
    """What the plugin refuses of FakeQuantize layers for where they sit in the model: one it
    strips between a Parameter and a Result (docs/rules/IR626.md), and, when its
    low-precision pass runs (some FakeQuantize has 15, 16, 255 or 256 levels), one on integer
    data that pass cannot take (docs/rules/IR628.md)."""
    returned = {
        source[0]
        for (reader, _), source in graph.producers.items()
        if graph.layers[reader].type == "Result"
    }
    layers = [
        (graph.layers[i], op) for i, op in checked.ops.items() if isinstance(op, FakeQuantize1)
    ]
    low_precision = any(op.levels in EIGHT_BIT_LEVELS for _, op in layers)
    found: list[tuple[Layer, Code, str]] = []
    for layer, op in layers:
        source = graph.producers.get((layer.id, 0))
        inputs = checked.inputs(graph, layer)
        ranges = [None if info is None else info.value for info in inputs[1:]]
        parameter = source is not None and graph.layers[source[0]].type == "Parameter"
        if parameter and layer.id in returned and is_stripped(op.levels, ranges):
            found.append((layer, CPU_FAKE_QUANTIZE_STRIPPED_IDENTITY, _STRIPPED))
        data = inputs[0]
        if (
            low_precision
            and data is not None
            and refused_under_low_precision(op.levels, data.element_type)
        ):
            found.append((layer, CPU_FAKE_QUANTIZE_INTEGER_DATA, _integer_data(op, data)))
    return found


def refused_under_low_precision(levels: int, element_type: str) -> bool:
    """Whether the low-precision pass refuses a FakeQuantize of these levels on this data."""
    if element_type == I8:
        return levels not in EIGHT_BIT_LEVELS and levels != 0
    return element_type in WIDE_INTEGERS


def _integer_data(op: FakeQuantize1, data: TensorInfo) -> str:
    held = data.element_type if data.element_type == I8 else I32
    return (
        f"a FakeQuantize of {op.levels} levels on {data.element_type} data in a model whose "
        "FakeQuantize layers turn the CPU plugin's low-precision pass on (15, 16, 255 or 256 "
        f'levels): it cannot compile it ("unexpected levels {op.levels} for precision {held}"); '
        "convert the data to f32 first"
    )


_STRIPPED = (
    "a FakeQuantize of 65536 levels whose output ranges equal its input ones, between a "
    'Parameter and a Result: the CPU plugin removes it and fails ("FQ stripping failed"); '
    "drop it (the CPU computes it as its input)"
)


@refuses(FakeQuantize1)
def _broadcast(op: FakeQuantize1, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    if op.auto_broadcast == "none" and op.levels in EIGHT_BIT_LEVELS and inputs[0].type.is_float:
        ctx.report(
            CPU_FAKE_QUANTIZE_DECOMPOSED_BROADCAST,
            f'auto_broadcast="none" with {op.levels} levels on {inputs[0].element_type} data: '
            'the CPU plugin decomposes the FakeQuantize and cannot compile it ("Argument '
            'shapes are inconsistent."); write "numpy"',
            "auto_broadcast",
        )
    if op.auto_broadcast != "pdpd":
        return
    for name, info in zip(RANGES, inputs[1:], strict=True):
        try:
            broadcast(inputs[0].shape, info.shape, "numpy")
        except ShapeError:
            ctx.report(
                CPU_FAKE_QUANTIZE_DECOMPOSED_BROADCAST,
                f"{name} {info.shape} aligns with data {inputs[0].shape} from axis 0 (pdpd), "
                "but the CPU plugin aligns it from the last axis and cannot compile it "
                '("Argument shapes are inconsistent."); give it the data\'s rank',
                "auto_broadcast",
            )
            return
