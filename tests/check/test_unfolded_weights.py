"""Weights too large to fold (an f16 Const behind its decompression Convert, as `save_model`
writes every full-size model) have values irpool does not compute at check time, but they
reach no shape: what is computed from them and the data stays checked. Before, the unknown
spread to every later layer, so the full-size shufflenet's channel shuffle Reshape was
trusted (IR218) and `run` refused it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irpool
from irpool.ops.folding import FOLDED_SIZE
from tests import ir

WIDTH = FOLDED_SIZE + 1  # one element more than irpool folds


def _model(declared_width: int = WIDTH) -> str:
    dynamic = (-1, WIDTH)
    layers = [
        ir.layer(
            0,
            "x",
            "Parameter",
            "opset1",
            ir.data([("shape", f"?,{WIDTH}"), ("element_type", "f32")]),
            (),
            [ir.port(0, dynamic, names="x")],
        ),
        ir.layer(
            1,
            "w",
            "Const",
            "opset1",
            ir.data(
                [
                    ("element_type", "f16"),
                    ("shape", str(WIDTH)),
                    ("offset", "0"),
                    ("size", str(2 * WIDTH)),
                ]
            ),
            (),
            [ir.port(0, [WIDTH], "FP16")],
        ),
        ir.layer(
            2,
            "decompress",
            "Convert",
            "opset1",
            ir.data([("destination_type", "f32")]),
            [ir.port(0, [WIDTH], "FP16")],
            [ir.port(1, [WIDTH])],
        ),
        ir.layer(
            3,
            "add",
            "Add",
            "opset1",
            ir.data([("auto_broadcast", "numpy")]),
            [ir.port(0, dynamic), ir.port(1, [WIDTH])],
            [ir.port(2, dynamic)],
        ),
        ir.layer(
            4,
            "shape",
            "ShapeOf",
            "opset3",
            ir.data([("output_type", "i64")]),
            [ir.port(0, dynamic)],
            [ir.port(1, [2], "I64")],
        ),
        ir.layer(
            5,
            "view",
            "Reshape",
            "opset1",
            ir.data([("special_zero", "false")]),
            [ir.port(0, dynamic), ir.port(1, [2], "I64")],
            [ir.port(2, (-1, declared_width), names="y")],
        ),
        ir.result(6, "out", (-1, declared_width)),
    ]
    edges = [
        ir.edge(0, 0, 3, 0),
        ir.edge(1, 0, 2, 0),
        ir.edge(2, 1, 3, 1),
        ir.edge(3, 2, 4, 0),
        ir.edge(3, 2, 5, 0),
        ir.edge(4, 1, 5, 1),
        ir.edge(5, 2, 6, 0),
    ]
    return ir.net(layers, edges)


WEIGHTS = np.linspace(-2, 2, WIDTH).astype(np.float16)


def test_layers_after_unfolded_weights_are_checked_and_run(tmp_path: Path) -> None:
    model = irpool.load(ir.write(tmp_path, _model(), WEIGHTS.tobytes()))
    assert model.validate() == []  # no IR218: the Reshape is inferred, not trusted
    x = np.random.default_rng(0).standard_normal((3, WIDTH)).astype(np.float32)
    expected = x + WEIGHTS.astype(np.float32)
    np.testing.assert_array_equal(model.run({"x": x})["y"], expected)


def test_a_wrong_dim_after_unfolded_weights_is_an_error(tmp_path: Path) -> None:
    model = irpool.load(ir.write(tmp_path, _model(WIDTH - 1), WEIGHTS.tobytes()))
    findings = [(d.code, d.layer_name) for d in model.validate()]
    assert ("IR301", "view") in findings


@pytest.mark.parametrize("bin_text", [None, b""])
def test_a_dim_no_weight_value_reaches_is_checked_without_the_weights(
    tmp_path: Path, bin_text: bytes | None
) -> None:
    """With the `.bin` missing or empty the weights' values are unknown (#24), but the
    Reshape's dims come from the data's shape alone: the wrong one is still an error."""
    model = irpool.load(ir.write(tmp_path, _model(WIDTH - 1), bin_text))
    findings = {(d.code, d.layer_name) for d in model.validate()}
    assert ("IR301", "view") in findings
    assert {code for code, _ in findings} & {"IR401", "IR402"}
