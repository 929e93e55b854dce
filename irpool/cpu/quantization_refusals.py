"""What OpenVINO 2026.4's CPU plugin strips and refuses of a FakeQuantize (docs/cpu.md,
"Quantization"; docs/rules/IR626.md to IR628.md), without NumPy at import: validation asks
it; the arithmetic is in irpool.cpu.quantization.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from numpy.typing import NDArray

# The levels the plugin's FQStrippingTransformation removes, and how close its ranges must be.
STRIPPED_LEVELS = 65536
_STRIP_TOLERANCE = 1e-6


def is_stripped(levels: int, ranges: Sequence[NDArray[Any] | None]) -> bool:
    """Whether the plugin removes this FakeQuantize (its output is then its input): 65536
    levels, and output ranges within 1e-6 of the input ones (element by element, in f32)."""
    if levels != STRIPPED_LEVELS or any(r is None for r in ranges):
        return False
    import numpy as np

    tolerance = np.float32(_STRIP_TOLERANCE)
    low, high, out_low, out_high = (np.asarray(r, np.float32) for r in ranges if r is not None)
    with np.errstate(all="ignore"):
        return bool(
            np.all(np.abs(low - out_low) < tolerance)
            and np.all(np.abs(high - out_high) < tolerance)
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
