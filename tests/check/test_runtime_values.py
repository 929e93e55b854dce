"""IR310: a constant-mode Pad whose pad_value is not constant when the CPU plugin compiles the
model (the CPU reads it only then). tests/differential/test_pad_value.py checks the same
classification against the CPU plugin itself."""

from __future__ import annotations

from pathlib import Path

import pytest

import irpool
from tests.ir import const, data, edge, layer, net, parameter, port, result, weights, write

DATA = (2, 3)


def _i64_parameter(layer_id: int, name: str, shape: tuple[int, ...]) -> str:
    return parameter(layer_id, name, shape, "i64").replace('precision="FP32"', 'precision="I64"')


def _pad_model(
    data_shape: tuple[int, ...],
    value_source: str,
    mode: str = "constant",
    pads_end: tuple[int, ...] | None = (0, 1),
) -> tuple[str, bytes]:
    """x (i64) padded by a pads_begin Const [0,0] and a pads_end Const (None: a Parameter),
    pad_value from `value_source`: "const" (an i64 scalar Const 7), "parameter", or
    "static shape" / "dynamic shape" (ShapeOf of a Parameter `y` of [5] or [?], squeezed)."""
    out = [-1 if d == -1 else d + e for d, e in zip(data_shape, pads_end or (0, 1), strict=True)]
    if pads_end is None:
        out = [-1, -1]
    layers = [
        _i64_parameter(0, "x", data_shape),
        const(1, "pads_begin", [0, 0]),
        const(2, "pads_end", pads_end or [0, 0], 16)
        if pads_end is not None
        else _i64_parameter(2, "pads_end", (2,)),
    ]
    values = [0, 0, *(pads_end or (0, 0))]
    if value_source == "const":
        scalar = data([("element_type", "i64"), ("shape", ""), ("offset", "32"), ("size", "8")])
        layers.append(layer(3, "fill", "Const", "opset1", scalar, (), [port(0, [], "I64")]))
        values.append(7)
        edges = [edge(3, 0, 4, 3)]
    elif value_source == "parameter":
        layers.append(_i64_parameter(3, "fill", ()))
        edges = [edge(3, 0, 4, 3)]
    else:
        y = [5] if value_source == "static shape" else [-1]
        layers += [
            parameter(5, "y", y),
            layer(
                6,
                "shape",
                "ShapeOf",
                "opset3",
                data([("output_type", "i64")]),
                [port(0, y)],
                [port(1, [1], "I64")],
            ),
            const(7, "axis", [0], 32),
            layer(
                3,
                "fill",
                "Squeeze",
                "opset1",
                "",
                [port(0, [1], "I64"), port(1, [1], "I64")],
                [port(2, [], "I64")],
            ),
        ]
        values.append(0)
        edges = [edge(5, 0, 6, 0), edge(6, 1, 3, 0), edge(7, 0, 3, 1), edge(3, 2, 4, 3)]
    pad_inputs = [
        port(0, data_shape, "I64"),
        port(1, [2], "I64"),
        port(2, [2], "I64"),
        port(3, [], "I64"),
    ]
    layers += [
        layer(
            4,
            "pad",
            "Pad",
            "opset12",
            data([("pad_mode", mode)]),
            pad_inputs,
            [port(4, out, "I64")],
        ),
        result(8, "out", out).replace('precision="FP32"', 'precision="I64"'),
    ]
    edges += [edge(0, 0, 4, 0), edge(1, 0, 4, 1), edge(2, 0, 4, 2), edge(4, 4, 8, 0)]
    return net(layers, edges), weights(values)


def _findings(tmp_path: Path, model: tuple[str, bytes]) -> list[str]:
    found = irpool.load(write(tmp_path, *model)).validate()
    assert all(d.code == "IR310" for d in found if d.severity.value == "error"), found
    return [d.message for d in found if d.code == "IR310"]


@pytest.mark.parametrize(
    ("source", "shape", "effect"),
    [
        ("parameter", DATA, "pads with 0 on every run"),
        ("parameter", (-1, 3), "pads with a stale value"),
        ("dynamic shape", DATA, "pads with 0 on every run"),
    ],
)
def test_a_run_time_value_with_constant_pads_is_reported(
    tmp_path: Path, source: str, shape: tuple[int, ...], effect: str
) -> None:
    (message,) = _findings(tmp_path, _pad_model(shape, source))
    assert effect in message
    assert '"fill"' in message


@pytest.mark.parametrize("source", ["const", "static shape"])
def test_a_value_constant_at_compile_time_is_not_reported(tmp_path: Path, source: str) -> None:
    assert _findings(tmp_path, _pad_model(DATA, source)) == []


def test_run_time_pads_make_the_cpu_read_the_value(tmp_path: Path) -> None:
    assert _findings(tmp_path, _pad_model(DATA, "parameter", pads_end=None)) == []


def test_pads_that_add_nothing_never_use_the_value(tmp_path: Path) -> None:
    assert _findings(tmp_path, _pad_model(DATA, "parameter", pads_end=(0, -1))) == []


def test_other_modes_never_read_the_value(tmp_path: Path) -> None:
    assert _findings(tmp_path, _pad_model(DATA, "parameter", mode="edge")) == []


def test_run_computes_what_the_file_says_when_suppressed(tmp_path: Path) -> None:
    text, bin_ = _pad_model(DATA, "parameter")
    text = text.replace("<net ", "<!-- irpool: ignore IR310 -->\n<net ", 1)
    model = irpool.load(write(tmp_path, text, bin_))
    out = model.run({"x": [[1, 2, 3], [4, 5, 6]], "fill": 7}, cast=True)
    assert out["out"].tolist() == [[1, 2, 3, 7], [4, 5, 6, 7]]
