"""A step may compute an element-wise result into its input's array (irpool/execute/run.py):
only when nothing else can see that array again (not the caller's input, not a returned
tensor, not read later, no view of it alive), and never in a run that keeps its tensors."""

from __future__ import annotations

import tracemalloc
from collections.abc import Sequence
from pathlib import Path

import numpy as np

import irpool
from tests import ir

SHAPE = (2, 4, 1, 64)
SQUEEZED = (2, 4, 64)
CLAMP = ir.data([("min", "0"), ("max", "6")])


def _unary(layer_id: int, name: str, type_: str, shape: Sequence[int] = SHAPE) -> str:
    version, attributes = ("opset1", CLAMP) if type_ == "Clamp" else ("opset1", "")
    if type_ == "Squeeze":
        return ir.layer(
            layer_id, name, type_, version, "", [ir.port(0, SHAPE)], [ir.port(1, SQUEEZED)]
        )
    return ir.layer(
        layer_id, name, type_, version, attributes, [ir.port(0, shape)], [ir.port(1, shape)]
    )


def _model(tmp_path: Path, layers: list[str], edges: list[str]) -> irpool.Model:
    return irpool.load(ir.write(tmp_path, ir.net(layers, edges)))


def _input() -> np.ndarray:
    return (np.random.default_rng(0).standard_normal(SHAPE) * 8).astype(np.float32)


def _clamp(x: np.ndarray) -> np.ndarray:
    return np.minimum(np.maximum(x, np.float32(0)), np.float32(6)) + np.float32(0)


def test_the_caller_s_input_and_a_returned_tensor_are_never_overwritten(tmp_path: Path) -> None:
    # input -> relu (returned) -> clamp (returned): the ReLU is read last by the Clamp, but
    # returned; the input is read last by the ReLU, but the caller's.
    model = _model(
        tmp_path,
        [
            ir.parameter(0, "input", SHAPE),
            _unary(1, "relu", "ReLU"),
            _unary(2, "clamp", "Clamp"),
            ir.result(3, "relu_out", SHAPE),
            ir.result(4, "clamp_out", SHAPE),
        ],
        [ir.edge(0, 0, 1, 0), ir.edge(1, 1, 2, 0), ir.edge(1, 1, 3, 0), ir.edge(2, 1, 4, 0)],
    )
    x = _input()
    kept = x.copy()
    outputs = model.run({0: x})
    np.testing.assert_array_equal(x, kept)
    np.testing.assert_array_equal(outputs["relu_out"], np.maximum(kept, 0))
    np.testing.assert_array_equal(outputs["clamp_out"], _clamp(kept))


def test_a_view_is_not_overwritten_while_its_base_is_read_later(tmp_path: Path) -> None:
    # relu -> squeeze (a view of the ReLU's array) -> clamp -> unsqueeze; add(relu, that):
    # the Clamp reads the view last, but the Add reads the ReLU's values after it.
    axes = ir.const(4, "axes", [2])
    add = ir.layer(
        6, "add", "Add", "opset1", ir.data([("auto_broadcast", "numpy")]),
        [ir.port(0, SHAPE), ir.port(1, SHAPE)], [ir.port(2, SHAPE)],
    )  # fmt: skip
    model = irpool.load(
        ir.write(
            tmp_path,
            ir.net(
                [
                    ir.parameter(0, "input", SHAPE),
                    _unary(1, "relu", "ReLU"),
                    _unary(2, "squeeze", "Squeeze"),
                    ir.layer(
                        3,
                        "clamp",
                        "Clamp",
                        "opset1",
                        CLAMP,
                        [ir.port(0, SQUEEZED)],
                        [ir.port(1, SQUEEZED)],
                    ),
                    axes,
                    ir.layer(
                        5,
                        "unsqueeze",
                        "Unsqueeze",
                        "opset1",
                        "",
                        [ir.port(0, SQUEEZED), ir.port(1, [1], "I64")],
                        [ir.port(2, SHAPE)],
                    ),
                    add,
                    ir.result(7, "output", SHAPE),
                ],
                [
                    ir.edge(0, 0, 1, 0),
                    ir.edge(1, 1, 2, 0),
                    ir.edge(2, 1, 3, 0),
                    ir.edge(3, 1, 5, 0),
                    ir.edge(4, 0, 5, 1),
                    ir.edge(1, 1, 6, 0),
                    ir.edge(5, 2, 6, 1),
                    ir.edge(6, 2, 7, 0),
                ],
            ),
            ir.weights([2]),
        )
    )
    x = _input() - np.float32(4)
    relu = np.maximum(x, 0)
    np.testing.assert_array_equal(model.run({0: x})["output"], relu + _clamp(relu))


def test_a_tensor_is_not_overwritten_while_a_view_of_it_is_read_later(tmp_path: Path) -> None:
    # relu -> squeeze (a view); relu -> clamp, its last reader; add(the view, squeezed clamp).
    add = ir.layer(
        5, "add", "Add", "opset1", ir.data([("auto_broadcast", "numpy")]),
        [ir.port(0, SQUEEZED), ir.port(1, SQUEEZED)], [ir.port(2, SQUEEZED)],
    )  # fmt: skip
    layers = [
        ir.parameter(0, "input", SHAPE),
        _unary(1, "relu", "ReLU"),
        _unary(2, "view", "Squeeze"),
        _unary(3, "clamp", "Clamp"),
        _unary(4, "squeezed", "Squeeze"),
        add,
        ir.result(6, "output", SQUEEZED),
    ]
    edges = [ir.edge(0, 0, 1, 0), ir.edge(1, 1, 2, 0), ir.edge(1, 1, 3, 0), ir.edge(3, 1, 4, 0)]
    edges += [ir.edge(2, 1, 5, 0), ir.edge(4, 1, 5, 1), ir.edge(5, 2, 6, 0)]
    model = _model(tmp_path, layers, edges)
    x = _input() - np.float32(4)
    relu = np.maximum(x, 0)
    expected = (relu + _clamp(relu)).reshape(SQUEEZED)
    np.testing.assert_array_equal(model.run({0: x})["output"], expected)


def test_a_chain_of_element_wise_layers_holds_one_tensor(tmp_path: Path) -> None:
    shape = (1, 16, 128, 128)  # 1 MiB a tensor
    chain = ["ReLU", "Clamp", "ReLU", "Clamp"]
    layers = [ir.parameter(0, "input", shape)]
    layers += [_unary(i + 1, f"layer{i}", kind, shape) for i, kind in enumerate(chain)]
    layers.append(ir.result(len(chain) + 1, "output", shape))
    edges = [ir.edge(0, 0, 1, 0)] + [ir.edge(i, 1, i + 1, 0) for i in range(1, len(chain) + 1)]
    model = _model(tmp_path, layers, edges)
    x = (np.random.default_rng(1).standard_normal(shape) * 8).astype(np.float32)
    model.run({0: x})  # planned
    tracemalloc.start()
    try:
        plain = model.run({0: x})
        _, plain_peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        kept, tensors = model.run({0: x}, intermediates=True)
        _, kept_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    tensor = x.nbytes
    assert plain_peak < 1.5 * tensor  # computed in one array
    assert kept_peak >= len(chain) * tensor  # each kept, none overwritten
    np.testing.assert_array_equal(plain["output"], kept["output"])
    np.testing.assert_array_equal(tensors["layer0:0"], np.maximum(x, 0))
