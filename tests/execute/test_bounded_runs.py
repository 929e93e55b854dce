"""Runs of a Pad whose pads are shape arithmetic OpenVINO bounds at the corners
(docs/shape-values.md#bounds-of-floormod-and-subtract-the-corners): bounds that meet are the value
the CPU plugin computes with, true or
not; a run whose output leaves the inferred dims is refused, as the CPU refuses it (or, on one
thread, returns garbage). Each model here was run on the CPU plugin (OpenVINO 2026.4.1) with
the results the tests state; the live comparison is tests/differential/test_shape_bounds.py."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import irpool
from tests import ir

Y = np.arange(1, 5, dtype=np.float32)
PAD_VALUE = 0  # the .bin offset of the i64 0, the pads' begin


@dataclass(frozen=True)
class Layer:
    """A layer: its type and version, `<data>` attributes, its ports' dims (inputs first; -1
    dynamic, () a scalar) and which port ids hold f32 (the others i64)."""

    type: str
    version: str
    data: str
    inputs: tuple[tuple[int, ...], ...]
    outputs: tuple[tuple[int, ...], ...]
    floats: tuple[int, ...] = ()

    def text(self, layer_id: int) -> str:
        ports = [
            ir.port(port_id, dims, "FP32" if port_id in self.floats else "I64")
            for port_id, dims in enumerate((*self.inputs, *self.outputs))
        ]
        count = len(self.inputs)
        data = f"<data {self.data}/>" if self.data else ""
        return ir.layer(
            layer_id, f"l{layer_id}", self.type, self.version, data, ports[:count], ports[count:]
        )


def const(offset: int, shape: tuple[int, ...] = (1,)) -> Layer:
    text = ",".join(map(str, shape))
    attrs = f'element_type="i64" shape="{text}" offset="{offset}" size="8"'
    return Layer("Const", "opset1", attrs, (), (shape,))


def write(tmp_path: Path, layers: list[Layer], edges: list[tuple[int, int]], bin: bytes) -> Path:
    """The model; `edges` join layer a's last port to layer b's next free input port."""
    ports = {i: len(layer.inputs) for i, layer in enumerate(layers)}
    taken = dict.fromkeys(ports, 0)
    edge_text = []
    for a, b in edges:
        edge_text.append(ir.edge(a, ports[a] + len(layers[a].outputs) - 1, b, taken[b]))
        taken[b] += 1
    text = [layer.text(i) for i, layer in enumerate(layers)]
    path = tmp_path / "bounded.xml"
    path.write_text(ir.net(text, edge_text, name="m"))
    path.with_suffix(".bin").write_bytes(bin)
    return path


def padded_by_shape(tmp_path: Path, shape: str, divisor: int, window: bool) -> Path:
    """Pad(y [4], 0, pads) with pads = h % d, or (d - h % d) % d when `window`, for h the dim
    of x (`shape`). The pads are exactly 0 when `window` (the output dim 4), else 1..2."""
    out = 4 if window else -1
    binary = Layer("FloorMod", "opset1", "", ((1,), (1,)), ((1,),))
    layers = [
        Layer("Parameter", "opset1", f'shape="{shape}" element_type="f32"', (), ((-1,),), (0,)),
        Layer("Parameter", "opset1", 'shape="4" element_type="f32"', (), ((4,),), (0,)),
        Layer("ShapeOf", "opset3", 'output_type="i64"', ((-1,),), ((1,),), (0,)),
        const(8),  # the divisor
        const(PAD_VALUE),
        binary,
        Layer("Pad", "opset12", 'pad_mode="constant"', ((4,), (1,), (1,)), ((out,),), (0, 3)),
        Layer("Result", "opset1", "", ((out,),), (), (0,)),
    ]
    edges = [(0, 2), (2, 5), (3, 5), (1, 6), (4, 6)]
    if window:
        layers += [Layer("Subtract", "opset1", "", ((1,), (1,)), ((1,),)), binary]
        edges += [(3, 8), (5, 8), (8, 9), (3, 9), (9, 6), (6, 7)]
    else:
        edges += [(5, 6), (6, 7)]
    return write(tmp_path, layers, edges, struct.pack("<qq", 0, divisor))


@pytest.mark.parametrize("h", [1, 5])
def test_bounds_that_meet_are_the_value_the_run_pads_by(tmp_path: Path, h: int) -> None:
    """(2 - h % 2) % 2 with h in 0..6 is bounded 0..0, so the CPU pads by 0 for odd h too."""
    model = irpool.load(padded_by_shape(tmp_path, "0..6", 2, window=True))
    assert model.validate() == []
    (out,) = model.run({0: np.zeros(h, np.float32), 1: Y}).values()
    np.testing.assert_array_equal(out, Y)


def test_a_true_value_within_the_bounds_runs(tmp_path: Path) -> None:
    """h % 4 with h in 5..10 is bounded 1..2 (its corners); h = 6 pads by its true 2."""
    model = irpool.load(padded_by_shape(tmp_path, "5..10", 4, window=False))
    (out,) = model.run({0: np.zeros(6, np.float32), 1: Y}).values()
    np.testing.assert_array_equal(out, [1, 2, 3, 4, 0, 0])


def test_a_run_outside_the_inferred_dims_is_refused(tmp_path: Path) -> None:
    """h = 7 pads by 3: 7 elements, outside the 5..6 inferred for the model."""
    model = irpool.load(padded_by_shape(tmp_path, "5..10", 4, window=False))
    with pytest.raises(irpool.IRError, match=r"gives \[7\], outside the \[5..6\] inferred"):
        model.run({0: np.zeros(7, np.float32), 1: Y})


def test_a_scalar_value_known_from_bounds_is_folded(tmp_path: Path) -> None:
    """swin_t's scalar picks: Gather(ShapeOf [?,6], 1) is 6 though x is dynamic, and 6 // 2
    (a NumPy scalar when folded) converted to f32 is a factor a run reads: y * 3."""
    layers = [
        Layer("Parameter", "opset1", 'shape="?,6" element_type="f32"', (), ((-1, 6),), (0,)),
        Layer("Parameter", "opset1", 'shape="4" element_type="f32"', (), ((4,),), (0,)),
        Layer("ShapeOf", "opset3", 'output_type="i64"', ((-1, 6),), ((2,),), (0,)),
        const(8, ()),  # 1: the index
        const(PAD_VALUE, ()),  # the axis
        Layer("Gather", "opset8", 'batch_dims="0"', ((2,), (), ()), ((),)),
        const(16, ()),  # 2
        Layer("Divide", "opset1", 'm_pythondiv="true"', ((), ()), ((),)),
        Layer("Convert", "opset1", 'destination_type="f32"', ((),), ((),), (1,)),
        Layer("Multiply", "opset1", "", ((4,), ()), ((4,),), (0, 1, 2)),
        Layer("Result", "opset1", "", ((4,),), (), (0,)),
    ]
    edges = [(0, 2), (2, 5), (3, 5), (4, 5), (5, 7), (6, 7), (7, 8), (1, 9), (8, 9), (9, 10)]
    model = irpool.load(write(tmp_path, layers, edges, struct.pack("<qqq", 0, 1, 2)))
    assert model.validate() == []
    (out,) = model.run({0: np.zeros((2, 6), np.float32), 1: Y}).values()
    np.testing.assert_array_equal(out, Y * 3)
