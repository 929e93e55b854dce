"""Runs of a Pad whose pads are shape arithmetic OpenVINO bounds at the corners
(docs/semantics.md §26): bounds that meet are the value the CPU plugin computes with, true or
not; a run whose output leaves the inferred dims is refused, as the CPU refuses it (or, on one
thread, returns garbage). The live comparison is tests/differential/test_shape_bounds.py."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

import irpool


def _port(port_id: int, precision: str, dims: int) -> str:
    return f'<port id="{port_id}" precision="{precision}">' + "<dim>-1</dim>" * dims + "</port>"


def padded_by_shape(tmp_path: Path, shape: str, divisor: int, window: bool) -> Path:
    """Pad(y [4], 0, pads) with pads = h % d, or (d - h % d) % d when `window`, for h the dim
    of x (`shape`). The pads are exactly 0 when `window` (the output dim 4), else 1..2."""
    padded_dim = 4 if window else -1
    padded_port = f'<port id="{{}}" precision="FP32"><dim>{padded_dim}</dim></port>'
    one = '<port id="0" precision="I64"><dim>1</dim></port>'
    const = '<layer id="{}" name="c{}" type="Const" version="opset1"><data element_type="i64" '
    const += 'shape="1" offset="{}" size="8"/><output>' + one + "</output></layer>"
    binary = '<layer id="{}" name="b{}" type="{}" version="opset1"><input>'
    binary += one.replace('id="0"', 'id="0"') + one.replace('id="0"', 'id="1"')
    binary += "</input><output>" + one.replace('id="0"', 'id="2"') + "</output></layer>"
    layers = [
        f'<layer id="0" name="x" type="Parameter" version="opset1"><data shape="{shape}" '
        f'element_type="f32"/><output>{_port(0, "FP32", 1)}</output></layer>',
        '<layer id="1" name="y" type="Parameter" version="opset1"><data shape="4" '
        'element_type="f32"/><output><port id="0" precision="FP32"><dim>4</dim></port>'
        "</output></layer>",
        '<layer id="2" name="s" type="ShapeOf" version="opset3"><data output_type="i64"/>'
        f"<input>{_port(0, 'FP32', 1)}</input><output>"
        + one.replace('id="0"', 'id="1"')
        + "</output></layer>",
        const.format(3, 3, 0),  # the divisor
        const.format(4, 4, 8),  # 0
        binary.format(5, 5, "FloorMod"),
        binary.format(6, 6, "Subtract"),
        binary.format(7, 7, "FloorMod"),
        '<layer id="8" name="pad" type="Pad" version="opset12"><data pad_mode="constant"/>'
        '<input><port id="0" precision="FP32"><dim>4</dim></port>'
        + one.replace('id="0"', 'id="1"')
        + one.replace('id="0"', 'id="2"')
        + f"</input><output>{padded_port.format(3)}</output></layer>",
        f'<layer id="9" name="out" type="Result" version="opset1"><input>{padded_port.format(0)}'
        "</input></layer>",
    ]
    edges = [(0, 0, 2, 0), (2, 1, 5, 0), (3, 0, 5, 1), (1, 0, 8, 0), (4, 0, 8, 1), (8, 3, 9, 0)]
    if window:
        edges += [(3, 0, 6, 0), (5, 2, 6, 1), (6, 2, 7, 0), (3, 0, 7, 1), (7, 2, 8, 2)]
    else:
        edges += [(5, 2, 8, 2)]
        layers = [
            layer for layer in layers if 'name="b6"' not in layer and 'name="b7"' not in layer
        ]
    edge_text = "".join(
        f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>'
        for a, b, c, d in edges
    )
    path = tmp_path / "padded_by_shape.xml"
    path.write_text(
        f'<?xml version="1.0"?><net name="m" version="11"><layers>{"".join(layers)}</layers>'
        f"<edges>{edge_text}</edges></net>"
    )
    path.with_suffix(".bin").write_bytes(struct.pack("<qq", divisor, 0))
    return path


Y = np.arange(1, 5, dtype=np.float32)


@pytest.mark.parametrize("h", [1, 5])
def test_bounds_that_meet_are_the_value_the_run_pads_by(tmp_path: Path, h: int) -> None:
    """(2 - h % 2) % 2 with h in 0..6 is bounded 0..0, so the CPU pads by 0 for odd h too."""
    model = irpool.load(padded_by_shape(tmp_path, "0..6", 2, window=True))
    assert model.validate() == []
    (out,) = model.run({"x": np.zeros(h, np.float32), "y": Y}).values()
    np.testing.assert_array_equal(out, Y)


def test_a_true_value_within_the_bounds_runs(tmp_path: Path) -> None:
    """h % 4 with h in 5..10 is bounded 1..2 (its corners); h = 6 pads by its true 2."""
    model = irpool.load(padded_by_shape(tmp_path, "5..10", 4, window=False))
    (out,) = model.run({"x": np.zeros(6, np.float32), "y": Y}).values()
    np.testing.assert_array_equal(out, [1, 2, 3, 4, 0, 0])


def test_a_run_outside_the_inferred_dims_is_refused(tmp_path: Path) -> None:
    """h = 7 pads by 3: 7 elements, outside the 5..6 inferred for the model."""
    model = irpool.load(padded_by_shape(tmp_path, "5..10", 4, window=False))
    with pytest.raises(irpool.IRError, match=r"gives \[7\], outside the \[5..6\] inferred"):
        model.run({"x": np.zeros(7, np.float32), "y": Y})
