"""Which Convolutions the plan marks as run on int8 operands by the CPU
(irpool/cpu/quantized_convolutions.py): data from a FakeQuantize of 255 or 256 levels
(or a MaxPool of one), filters an i8 or u8 Const -> Convert -> Multiply by a scale, as
`nncf.quantize` writes them; only those may take Winograd F(4x4, 3x3)."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import numpy as np
import pytest

import irpool
from irpool.cpu import int8_pairs, quantized_convolutions
from irpool.cpu.int8_pairs import SaturatedPairs, SaturatedRows, halved_filters
from irpool.execute import plan
from irpool.ops.convolution import Convolution1
from irpool.ops.fake_quantize import FakeQuantize1
from irpool.ops.mat_mul import MatMul1
from irpool.ops.pooling_geometry import Window
from tests import ir

DATA, FILTERS = (1, 16, 6, 6), (16, 16, 3, 3)


def _model(tmp_path: Path, source: str, stored: str, levels: int = 256) -> Path:
    """x -> `source` ("fq", "fq+maxpool" or "x" itself) -> Convolution 3x3 (pads 1) whose
    filters are Const `stored` (i8, u8 or f32) -> Convert to f32 -> Multiply by a scale."""
    blob = np.array([0.0, 3.0, 0.0, 3.0], np.float32).tobytes()
    count = int(np.prod(FILTERS))
    values = np.arange(count) % 7 - 3
    filters = values.astype({"i8": np.int8, "u8": np.uint8, "f32": np.float32}[stored])
    layers = [ir.parameter(0, "x", DATA), *(
        ir.typed_const(10 + i, f"r{i}", "f32", (), 4 * i, 4) for i in range(4)
    )]  # fmt: skip
    layers.append(ir.typed_const(20, "stored", stored, FILTERS, len(blob), filters.nbytes))
    scale_offset = len(blob) + filters.nbytes
    layers.append(ir.typed_const(21, "scale", "f32", (16, 1, 1, 1), scale_offset, 64))
    blob += filters.tobytes() + np.full(16, 0.01, np.float32).tobytes()
    edges = []
    data_ref = (0, 0)
    if source.startswith("fq"):
        fq_inputs = [ir.port(0, DATA), *(ir.port(i, []) for i in range(1, 5))]
        attributes = ir.data([("levels", str(levels))])
        layers.append(
            ir.layer(1, "fq", "FakeQuantize", "opset1", attributes, fq_inputs, [ir.port(5, DATA)])
        )
        edges += [ir.edge(0, 0, 1, 0), *(ir.edge(10 + i, 0, 1, i + 1) for i in range(4))]
        data_ref = (1, 5)
    if source.endswith("maxpool"):
        attributes = ir.data(
            [("strides", "1,1"), ("kernel", "1,1"), ("pads_begin", "0,0"), ("pads_end", "0,0")]
        )
        layers.append(
            ir.layer(
                2, "pool", "MaxPool", "opset1", attributes, [ir.port(0, DATA)], [ir.port(1, DATA)]
            )
        )
        edges.append(ir.edge(*data_ref, 2, 0))
        data_ref = (2, 1)
    convert_to = ir.data([("destination_type", "f32")])
    convert = ir.layer(
        22, "convert", "Convert", "opset1", convert_to, [ir.typed_port(0, stored, FILTERS)],
        [ir.port(1, FILTERS)],
    )  # fmt: skip
    scaled = ir.layer(
        23, "scaled", "Multiply", "opset1", "", [ir.port(0, FILTERS), ir.port(1, (16, 1, 1, 1))],
        [ir.port(2, FILTERS)],
    )  # fmt: skip
    window = [("strides", "1,1"), ("dilations", "1,1"), ("pads_begin", "1,1"), ("pads_end", "1,1")]
    conv_inputs = [ir.port(0, DATA), ir.port(1, FILTERS)]
    conv = ir.layer(
        3, "conv", "Convolution", "opset1", ir.data(window), conv_inputs, [ir.port(2, DATA)]
    )
    layers += [convert, scaled, conv, ir.result(4, "out", DATA)]
    edges += [ir.edge(20, 0, 22, 0), ir.edge(22, 1, 23, 0), ir.edge(21, 0, 23, 1)]
    edges += [ir.edge(*data_ref, 3, 0), ir.edge(23, 2, 3, 1), ir.edge(3, 2, 4, 0)]
    return ir.write(tmp_path, ir.net(layers, edges), blob)


@pytest.mark.parametrize(
    ("source", "stored", "levels", "int8"),
    [
        ("fq", "i8", 256, True),  # as nncf.quantize writes it
        ("fq", "u8", 255, True),
        ("fq+maxpool", "i8", 256, True),  # the low-precision pass moves across a MaxPool
        ("x", "i8", 256, False),  # data not quantized: the CPU computes in f32
        ("fq", "f32", 256, False),  # f32 filters
        ("fq", "i8", 16, False),  # not 8-bit data
    ],
)
def test_int8_convolutions_are_marked(
    tmp_path: Path, source: str, stored: str, levels: int, int8: bool
) -> None:
    model = irpool.load(_model(tmp_path, source, stored, levels))
    runner_input = plan.RunnerInput(
        model.graph, model.checked, model.document.ir_version, model.weights.read
    )
    (conv,) = [s.op for s in plan.plan_execution(runner_input).steps if s.layer.name == "conv"]
    assert isinstance(conv, Convolution1) and conv.int8_on_cpu is int8


@pytest.mark.parametrize(
    ("source", "stored", "vnni", "saturates"),
    [
        ("fq", "i8", False, True),  # a Skylake-SP Xeon (irpool/cpu/int8_pairs.py)
        ("fq+maxpool", "i8", False, True),
        ("fq", "u8", False, False),  # u8 codes: not measured without VNNI
        ("fq", "i8", True, False),  # VNNI sums exactly
    ],
)
def test_saturating_int8_convolutions_are_marked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, stored: str, vnni: bool,
    saturates: bool,
) -> None:  # fmt: skip
    monkeypatch.setattr(quantized_convolutions, "without_vnni", lambda: not vnni)
    model = irpool.load(_model(tmp_path, source, stored))
    runner_input = plan.RunnerInput(
        model.graph, model.checked, model.document.ir_version, model.weights.read
    )
    (conv,) = [s.op for s in plan.plan_execution(runner_input).steps if s.layer.name == "conv"]
    assert isinstance(conv, Convolution1)
    assert (conv.int8_saturation is not None) is saturates


@pytest.mark.parametrize(
    ("codes", "level", "change"),
    [
        ([127, 127], 255, 32767 - 64770),  # one pair saturated
        ([-128, -128], 255, -32768 + 65280),
        ([127, -128], 255, 0),
        ([127, 127, 127], 255, 32767 - 64770),  # the third pairs with zero: 32385 fits
        ([127, 127, 127, 127], 129, 0),  # 32766 fits
        ([127, 127, 127, 127], 130, 2 * (32767 - 33020)),
    ],
)
def test_saturated_pairs(codes: list[int], level: int, change: int) -> None:
    """A 3x3 layer (pads 1) on a 1x1 input of one level: only the centre tap is real."""
    weights = np.zeros((1, len(codes), 3, 3), np.int32)
    weights[0, :, 1, 1] = codes
    pairs = SaturatedPairs(-1.0, 0.5, 256, weights, np.array([0.25]))
    x = np.full((1, len(codes), 1, 1), -1 + 0.5 * level, np.float32)
    window = Window(size=1, out=1, kernel=3, stride=1, dilation=1, pad_begin=1)
    assert pairs(x, (window, window)).tolist() == [[[[0.25 * change]]]]


def _saturated_by_hand(level: np.ndarray, codes: np.ndarray, stride: int, pad: int) -> np.ndarray:
    """Each output's pairs of a 2-D convolution summed saturated less summed exactly, element
    by element ([N, O, out, out]); `codes` has an even number of channels."""
    padded = np.pad(level, [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    kernel = codes.shape[2]
    out = (padded.shape[2] - kernel) // stride + 1
    change = np.zeros((level.shape[0], codes.shape[0], out, out), np.int64)
    for n, o, y, x, j, dy, dx in product(
        range(level.shape[0]), range(codes.shape[0]), range(out), range(out),
        range(0, codes.shape[1], 2), range(kernel), range(kernel),
    ):  # fmt: skip
        a, b = padded[n, j : j + 2, y * stride + dy, x * stride + dx]
        exact = int(a) * int(codes[o, j, dy, dx]) + int(b) * int(codes[o, j + 1, dy, dx])
        change[n, o, y, x] += min(max(exact, -32768), 32767) - exact
    return change


@pytest.mark.parametrize("high", [40, 160, 255])  # few candidates, some, most
@pytest.mark.parametrize("spread", [20, 127])  # codes mostly small, codes of any size
# (candidate, tap)s, or pairs everywhere, their changes summed at the end or block by block
@pytest.mark.parametrize("way", ["sparse", "dense", "dense summed by block"])
def test_saturated_pairs_equal_a_sum_by_hand(
    monkeypatch: pytest.MonkeyPatch, high: int, spread: int, way: str
) -> None:
    if way != "sparse":
        monkeypatch.setattr(int8_pairs, "_SPARSE_SHARE", -1.0)
        monkeypatch.setattr(int8_pairs, "_SMALL", -1)
    if way == "dense summed by block":
        monkeypatch.setattr(int8_pairs, "_HELD", 0)
    rng = np.random.default_rng(high * 1000 + spread)
    level = rng.integers(0, high, (2, 6, 7, 7))
    level.flat[rng.integers(0, level.size, 20)] = 255  # a few high levels among them
    codes = np.clip(rng.normal(0, spread, (5, 6, 3, 3)), -128, 127).astype(np.int32)
    codes[:, :, 1, 1] = 127  # every output can saturate at the centre tap
    pairs = SaturatedPairs(0.0, 1.0, 256, codes, np.ones(5))
    window = Window(size=7, out=4, kernel=3, stride=2, dilation=1, pad_begin=1)
    found = pairs(level.astype(np.float32), (window, window))
    assert found.tolist() == _saturated_by_hand(level, codes, 2, 1).astype(np.float32).tolist()


@pytest.mark.parametrize("step", [-1.0, 0.0])  # output_high below output_low, or equal
def test_saturated_pairs_of_a_reversed_or_empty_range(step: float) -> None:
    """With step 0 the level of data above low is the top one (x / 0 = inf) and of low 0."""
    rng = np.random.default_rng(5)
    level = rng.integers(0, 256, (1, 6, 7, 7))
    if step == 0:
        level = np.where(level > 128, 255, 0)
    codes = np.clip(rng.normal(0, 127, (5, 6, 3, 3)), -128, 127).astype(np.int8)
    pairs = SaturatedPairs(2.0, step, 256, codes, np.ones(5))
    x = (2.0 + level * (step or 1.0)).astype(np.float32)
    window = Window(size=7, out=4, kernel=3, stride=2, dilation=1, pad_begin=1)
    found = pairs(x, (window, window))
    expected = _saturated_by_hand(level, codes.astype(np.int32), 2, 1)
    assert found.tolist() == expected.astype(np.float32).tolist()


def test_halved_filters_round_half_to_even() -> None:
    values = np.array([1, 3, 5, -5, -1, 127, -128, 2], np.float32)
    assert halved_filters(values).tolist() == [0, 4, 4, -4, 0, 128, -128, 2]


ROWS, DEPTH, OUTPUTS = (2, 15), 15, 8


def _twin_matmuls(tmp_path: Path) -> Path:
    """x -> FakeQuantize -> two MatMuls (transposed B, written alike) by i8 codes and by their
    negation, each through Convert and Multiply by a scale, as NNCF writes q and k."""
    codes = (np.arange(OUTPUTS * DEPTH) % 11 - 5).astype(np.int8).reshape(OUTPUTS, DEPTH)
    blob = np.array([0.0, 3.0, 0.0, 3.0], np.float32).tobytes()
    layers = [ir.parameter(0, "x", ROWS), *(
        ir.typed_const(10 + i, f"r{i}", "f32", (), 4 * i, 4) for i in range(4)
    )]  # fmt: skip
    fq_inputs = [ir.port(0, ROWS), *(ir.port(i, []) for i in range(1, 5))]
    levels = ir.data([("levels", "256")])
    layers.append(
        ir.layer(1, "fq", "FakeQuantize", "opset1", levels, fq_inputs, [ir.port(5, ROWS)])
    )
    edges = [ir.edge(0, 0, 1, 0), *(ir.edge(10 + i, 0, 1, i + 1) for i in range(4))]
    layers.append(ir.typed_const(21, "scale", "f32", (OUTPUTS, 1), len(blob), 4 * OUTPUTS))
    blob += np.full(OUTPUTS, 0.01, np.float32).tobytes()
    shape = (OUTPUTS, DEPTH)
    transposed = ir.data([("transpose_a", "false"), ("transpose_b", "true")])
    for base, name, stored in ((30, "first", codes), (40, "second", -codes)):
        layers += [
            ir.typed_const(base, f"{name}_codes", "i8", shape, len(blob), stored.nbytes),
            ir.layer(base + 1, f"{name}_convert", "Convert", "opset1",
                     ir.data([("destination_type", "f32")]), [ir.typed_port(0, "i8", shape)],
                     [ir.port(1, shape)]),
            ir.layer(base + 2, f"{name}_scaled", "Multiply", "opset1", "",
                     [ir.port(0, shape), ir.port(1, (OUTPUTS, 1))], [ir.port(2, shape)]),
            ir.layer(base + 3, name, "MatMul", "opset1", transposed,
                     [ir.port(0, ROWS), ir.port(1, shape)], [ir.port(2, (2, OUTPUTS))]),
            ir.result(base + 4, f"{name}_out", (2, OUTPUTS)),
        ]  # fmt: skip
        blob += stored.tobytes()
        edges += [ir.edge(base, 0, base + 1, 0), ir.edge(base + 1, 1, base + 2, 0)]
        edges += [ir.edge(21, 0, base + 2, 1), ir.edge(1, 5, base + 3, 0)]
        edges += [ir.edge(base + 2, 2, base + 3, 1), ir.edge(base + 3, 2, base + 4, 0)]
    return ir.write(tmp_path, ir.net(layers, edges), blob)


def test_int8_matmuls_written_alike_take_their_own_pairs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Layers written alike share an op: each int8 MatMul's pairs must be of its own codes."""
    monkeypatch.setattr(quantized_convolutions, "without_vnni", lambda: True)
    model = irpool.load(_twin_matmuls(tmp_path))
    runner_input = plan.RunnerInput(
        model.graph, model.checked, model.document.ir_version, model.weights.read
    )
    ops = {s.layer.name: s.op for s in plan.plan_execution(runner_input).steps}
    first, second = ops["first"], ops["second"]
    assert isinstance(first, MatMul1) and isinstance(second, MatMul1)
    assert isinstance(first.int8_saturation, SaturatedRows)
    assert isinstance(second.int8_saturation, SaturatedRows)
    codes = first.int8_saturation.pairs.codes
    np.testing.assert_array_equal(codes, -second.int8_saturation.pairs.codes)
    assert np.any(codes)


def test_the_quantizer_before_each_residual_sum_is_not_rounded() -> None:
    """resnet18-int8 (tests/models/vision): the CPU fuses each residual Add into one int8
    Convolution with the FakeQuantize after it (its runtime model, measured 2026-12-07) and
    drops the rounding of that Convolution's own FakeQuantize; the Add's first operand where
    both are such (layer2.0, layer3.0, layer4.0: the 3x3 one, not the 1x1 downsample)."""
    path = Path(__file__).resolve().parents[1] / "models" / "vision" / "resnet18-int8" / "model.xml"
    model = irpool.load(path)
    runner_input = plan.RunnerInput(
        model.graph, model.checked, model.document.ir_version, model.weights.read
    )
    steps = plan.plan_execution(runner_input).steps
    unrounded = {s.layer.name for s in steps if isinstance(s.op, FakeQuantize1) and not s.op.rounds}
    products = (427887, 427901, 427915, 427936, 427950, 427971, 427985, 428006)
    assert unrounded == {f"Multiply_{n}/fq_output_0" for n in products}


def test_marking_a_quantizer_leaves_the_layers_that_share_its_op_alone() -> None:
    """Layers written alike share one op: resnet18-int8 with every FakeQuantize of 256 levels
    given one object still has exactly the eight unrounded, and the shared op unchanged."""
    path = Path(__file__).resolve().parents[1] / "models" / "vision" / "resnet18-int8" / "model.xml"
    model = irpool.load(path)
    shared = next(op for op in model.checked.ops.values() if isinstance(op, FakeQuantize1))
    for layer_id, op in model.checked.ops.items():
        if isinstance(op, FakeQuantize1) and op.levels == shared.levels:
            model.checked.ops[layer_id] = shared
    runner_input = plan.RunnerInput(
        model.graph, model.checked, model.document.ir_version, model.weights.read
    )
    steps = plan.plan_execution(runner_input).steps
    unrounded = [s for s in steps if isinstance(s.op, FakeQuantize1) and not s.op.rounds]
    assert len(unrounded) == 8
    assert shared.rounds and not shared.after_product


def test_levels_of_data_in_any_order_take_the_f64_formula() -> None:
    """A large input (levels in f32 first) laid out other than in C order (two images of a
    channels-first copy): each level is the f64 formula's, those the f32 pass puts on a half
    and fixes included (55.54 - -2.96 rounds to 58.5 in f32, is 58.5000009 in f64)."""
    low = float(np.float32(-2.96))
    pairs = SaturatedPairs(low, 1.0, 256, np.zeros((1, 8, 1, 1), np.int8), np.ones(1))
    rng = np.random.default_rng(3)
    data = rng.uniform(-5, 300, (8, 2, 40, 40)).astype(np.float32)
    data[:, :, ::3] = 55.54
    data = data.transpose(1, 0, 2, 3)
    expected = np.clip(np.rint((data.astype(np.float64) - low) / 1.0), 0, 255)
    assert not data.flags.c_contiguous and data.size >= 1 << 14
    assert pairs.level(data).tolist() == expected.tolist()


@pytest.mark.parametrize(
    ("high", "way"), [(0, "sparse"), (160, "sparse"), (255, "sparse"), (255, "dense")]
)  # no candidates, some, most
def test_saturated_pairs_added_in_place_are_the_array_added(
    monkeypatch: pytest.MonkeyPatch, high: int, way: str
) -> None:
    """`add_into` gives `result + pairs(x, windows)` bit for bit: the zero change by channel
    (-0 where the scale is negative) turns a -0 sum to +0 or keeps it, and a sum's change adds
    to whatever the result holds there (±0, NaN, inf); a result not in C order too."""
    if way == "dense":
        monkeypatch.setattr(int8_pairs, "_SPARSE_SHARE", -1.0)
        monkeypatch.setattr(int8_pairs, "_SMALL", -1)
    rng = np.random.default_rng(high)
    level = rng.integers(0, high + 1, (2, 6, 7, 7))
    level.flat[rng.integers(0, level.size, 20)] = high
    codes = np.clip(rng.normal(0, 127, (5, 6, 3, 3)), -128, 127).astype(np.int8)
    codes[:, :, 1, 1] = 127
    scales = np.array([0.5, -0.25, 1.0, -2.0, 0.0])
    pairs = SaturatedPairs(0.0, 1.0, 256, codes, scales)
    window = Window(size=7, out=4, kernel=3, stride=2, dilation=1, pad_begin=1)
    x = level.astype(np.float32)
    values = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1.5, -1e30], np.float32)
    for order in ("C", "F"):
        result = np.asarray(rng.choice(values, (2, 5, 4, 4)), np.float32, order=order)
        expected = (result + pairs(x, (window, window))).view(np.int32)
        pairs.add_into(result, x, (window, window))
        np.testing.assert_array_equal(result.view(np.int32), expected)
