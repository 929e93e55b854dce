"""Models and encodings the low-bit tests share (tests/execute/test_low_bit.py, the live
tests/differential/test_low_bit_convert.py): a Const of packed bytes -> Convert -> Result, and
values written as tests/golden/low_bit_cpu.json writes them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

import irpool
from tests import ir

DESTINATIONS = (
    "f32", "f16", "bf16", "f64", "i8", "u8", "i16", "u16", "i32", "i64", "u32", "u64", "boolean",
)  # fmt: skip


def convert_model(
    tmp_path: Path, element_type: str, destination: str, raw: bytes, count: int
) -> irpool.Model:
    """Const of `count` elements packed in `raw` -> Convert -> Result."""
    attributes = ir.data([("destination_type", destination)])
    layers = [
        ir.typed_const(0, "c", element_type, (count,), 0, len(raw)),
        ir.layer(
            1, "convert", "Convert", "opset1", attributes,
            [ir.typed_port(0, element_type, (count,))], [ir.typed_port(1, destination, (count,))],
        ),
        ir.result(2, "out", (count,), ir.precision(destination)),
    ]  # fmt: skip
    text = ir.net(layers, [ir.edge(0, 0, 1, 0), ir.edge(1, 1, 2, 0)])
    return irpool.load(ir.write(tmp_path, text, raw))


def as_golden(values: NDArray[Any], destination: str) -> list[Any]:
    """As the golden file writes values: floats as the hex of their bits (bf16 held as f32:
    its top half; OpenVINO hands bf16 bits over as f16), the rest as ints and booleans."""
    if destination == "bf16" and values.dtype.itemsize == 2:
        return [f"{int(b):04x}" for b in values.view(np.uint16)]
    if destination == "bf16":
        return [f"{int(b) >> 16:04x}" for b in values.astype(np.float32).view(np.uint32)]
    if values.dtype.kind == "f":
        width = values.dtype.itemsize
        bits = values.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[width])
        return [f"{int(b):0{2 * width}x}" for b in bits]
    return [bool(v) if values.dtype.kind == "b" else int(v) for v in values]
