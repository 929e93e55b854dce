"""FakeQuantize-1's kernel on hand-checked inputs: the CPU plugin's outputs (measured on
OpenVINO 2026.4.1, docs/ops/FakeQuantize.md); the live comparison over many configurations is
tests/differential/test_fake_quantize.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irpool
from irpool.cpu.quantization import Kernel, fake_quantized, kernel_for_layer, steps
from irpool.cpu.quantization_refusals import is_stripped
from irpool.ops.fake_quantize import FakeQuantize1
from tests import ir
from tests.execute.running import compute

NAN, INF = float("nan"), float("inf")


def _run(x: list[float], ranges: tuple[float, ...], levels: int) -> np.ndarray:
    arrays = [np.array([x], np.float32), *(np.array(r, np.float32) for r in ranges)]
    (result,) = compute(FakeQuantize1({"levels": levels, "auto_broadcast": "numpy"}), arrays)
    assert result is not None
    return result[0]


@pytest.mark.parametrize(
    ("x", "ranges", "levels", "cpu"),
    [  # the CPU's outputs
        (  # half to even; the ends; NaN gives output_low; ±inf the ends
            [0.5, 1.5, 2.5, 3.5, -0.5, 254.5, 0, 255, -1, 256, NAN, INF, -INF, 1e30],
            (0, 255, 0, 255),
            256,
            [0, 2, 2, 4, 0, 254, 0, 255, 0, 255, 0, 255, 0, 255],
        ),
        ([0.5, 1.5, 2.5, NAN], (0, 255, -128, 127), 256, [-128, -126, -126, -128]),
        ([-0.5, -1.5, -2.5, 0.5], (-128, 127, -128, 127), 256, [0, -2, -2, 0]),
        ([-2, NAN, 0.25, 2], (-1, 1, -1, 1), 2, [-1, 1, 1, 1]),  # its node: NaN gives oh
        ([-2, -1, 0, 1, 3, NAN], (2, 0, 0, 10), 3, [0, 0, 0, 0, 0, 0]),  # crossed: ol
        ([-2, 0, 2], (1, 1, -2, 3), 3, [NAN, NAN, NAN]),  # il = ih
        ([-2, 0, 2], (-1, 1, -2, 3), 1, [NAN, NAN, NAN]),  # one level
        (  # levels 0: 2**64 levels, the data clamped
            [-INF, -2, -0.5, 0.25, 0.5, 2, NAN, 1e-40],
            (-1, 1, -1, 1),
            0,
            [-1, -1, -0.5, 0.25, 0.5, 1, -1, 0],
        ),
        ([-2, -0.5, 0, 0.5, 2], (-1, 1, -2, 3), 3, [-2, -2, 0.5, 3, 3]),
    ],
)
def test_cpu_values(
    x: list[float], ranges: tuple[float, ...], levels: int, cpu: list[float]
) -> None:
    np.testing.assert_array_equal(_run(x, ranges, levels), np.array(cpu, np.float32))


def test_a_stripped_fake_quantize_is_its_input() -> None:
    """65536 levels with output ranges equal to the input ones: the CPU removes it."""
    x = [-5.0, 0.3, 7.0, NAN]
    np.testing.assert_array_equal(_run(x, (-1, 1, -1, 1), 65536), np.array(x, np.float32))
    assert _run([7.0], (-1, 1, -1, 1), 65535).tolist() == [1.0]  # not stripped


@pytest.mark.parametrize(
    ("levels", "ranges", "stripped"),
    [
        (65536, (-1, 1, -1, 1), True),
        (65536, (-1, 1, -1 - 0.9e-6, 1), True),
        (65536, (-1, 1, -1 - 1.1e-6, 1), False),
        (65535, (-1, 1, -1, 1), False),
        (256, (-1, 1, -1, 1), False),
    ],
)
def test_stripping(levels: int, ranges: tuple[float, ...], stripped: bool) -> None:
    assert is_stripped(levels, [np.array(r, np.float32) for r in ranges]) is stripped


def test_the_kernel_is_chosen_per_layer() -> None:
    low = np.array([0, 2], np.float32).reshape(1, 2, 1, 1)
    high = np.array([1, 1], np.float32).reshape(1, 2, 1, 1)
    crossed, plain = [low, high, low, high], [low, high + 2, low, high]
    assert kernel_for_layer(256, crossed, 4, "numpy") == "node"  # one crossed channel
    assert kernel_for_layer(256, plain, 4, "numpy") == "snippet"
    assert kernel_for_layer(256, plain, 4, "numpy", dynamic_data=True) == "node"
    assert kernel_for_layer(2, plain, 4, "numpy") == "node"
    assert kernel_for_layer(2, crossed, 4, "pdpd") == "reference"  # the node takes no pdpd
    assert kernel_for_layer(256, plain, 4, "pdpd") == "snippet"  # decomposed alike
    assert kernel_for_layer(2, crossed, 6, "numpy") == "reference"  # nor rank 6
    full = [np.zeros((1, 2, 3, 1), np.float32), np.ones((1, 2, 3, 1), np.float32)] * 2
    assert kernel_for_layer(2, full, 4, "numpy") == "snippet"  # two axes: element-wise ops
    assert steps(0) == np.float32(2.0**64) and steps(256) == 255


def test_the_reference_is_the_specification() -> None:
    """pdpd with a crossed range: below both bounds ol, above both oh, between them the
    formula with the bounds as given (measured)."""
    x = np.array([-0.6, -0.4, 0.0, 0.3], np.float32)
    ranges = tuple(np.array(v, np.float32) for v in (0.25, -0.5, -1.0, 1.0))
    y = fake_quantized(x, ranges, 3, "reference")
    np.testing.assert_array_equal(y, np.array([-1, 1, 0, 1], np.float32))


def test_per_channel_ranges_and_pdpd() -> None:
    x = np.linspace(-2, 2, 24, dtype=np.float32).reshape(1, 2, 3, 4)
    low = np.array([-1, 0], np.float32).reshape(1, 2, 1, 1)
    high = np.array([1, 2], np.float32).reshape(1, 2, 1, 1)
    per_channel = [x, low, high, low, high]
    (numpy,) = compute(FakeQuantize1({"levels": 5, "auto_broadcast": "numpy"}), per_channel)
    (pdpd,) = compute(FakeQuantize1({"levels": 5, "auto_broadcast": "pdpd"}), per_channel)
    expected = fake_quantized(x, (low, high, low, high), 5)
    np.testing.assert_array_equal(numpy, expected)
    np.testing.assert_array_equal(pdpd, expected)
    assert set(np.unique(numpy[0, 1])) <= {0, 0.5, 1, 1.5, 2}


def test_pdpd_ranges_are_aligned_from_the_last_axis() -> None:
    """The CPU aligns [2,1] ranges on [2,2,2,2] data with axis 2, not axis 0 (measured)."""
    x = np.linspace(-2, 2, 16, dtype=np.float32).reshape(2, 2, 2, 2)
    low, high = np.array([[-1], [0]], np.float32), np.array([[1], [2]], np.float32)
    op = FakeQuantize1({"levels": 3, "auto_broadcast": "pdpd"})
    (result,) = compute(op, [x, low, high, low, high])
    expected = fake_quantized(x, (low, high, low, high), 3)
    np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize(
    ("dtype", "x", "ranges", "cpu"),
    [  # computed in f32, stored as the CPU stores the type (rounded, saturated)
        (np.float16, [-3, -1, 0, 0.3, 1, 3, 100, NAN], (-2, 2, -2, 2), [-2, -1, 0, 0, 1, 2, 2, -2]),
        (np.int8, [-3, -1, 0, 1, 3, 100, -128, 127], (-2, 2, -2, 2), [-2, -1, 0, 1, 2, 2, -2, 2]),
        (np.int8, [-3, -1, 0, 1, 3, 100, -128, 127], (-2, 2, -200, 200),
         [-128, -100, 0, 100, 127, 127, -128, 127]),
        (np.uint8, [0, 1, 2, 3, 4, 100, 255, 7], (1, 5, 0.5, 300),
         [0, 0, 75, 150, 225, 255, 255, 255]),
    ],
)  # fmt: skip
def test_other_types_are_computed_in_f32(
    dtype: type[np.generic], x: list[float], ranges: tuple[float, ...], cpu: list[float]
) -> None:
    arrays = [np.array([x], dtype), *(np.array(v, np.float32) for v in ranges)]
    (result,) = compute(FakeQuantize1({"levels": 5, "auto_broadcast": "numpy"}), arrays)
    assert result is not None and result.dtype == dtype
    np.testing.assert_array_equal(result, np.array([cpu], dtype))


def _random_snippet_layer(
    rng: np.random.Generator, per_channel: bool
) -> tuple[tuple[np.ndarray, ...], int]:
    shape = (1, 3, 1, 1) if per_channel else ()
    levels = int(rng.choice([256, 255, 16, 3, 257, 65536, 2**20]))
    low = (rng.standard_normal(shape) * rng.choice([1e-3, 1, 30, 1e4])).astype(np.float32)
    if rng.integers(4) == 0:  # after a ReLU (-0 too: the node's ish is then +0)
        low = np.zeros(shape, np.float32) * np.float32(rng.choice([1, -1]))
    high = low + (np.abs(rng.standard_normal(shape)) * rng.choice([1e-3, 1, 30])).astype(np.float32)
    if rng.integers(5) == 0:  # NNCF's signed output range: -128 and 127 steps of a scale
        step = (np.abs(rng.standard_normal(shape)) * rng.choice([1e-6, 1e-2, 1])).astype(np.float32)
        return (low, high, -128 * step, 127 * step), levels
    out_low = [low, np.zeros(shape), np.negative(np.zeros(shape)), rng.standard_normal(shape)]
    chosen = out_low[rng.integers(len(out_low))].astype(np.float32)
    out_high = chosen + np.abs(rng.standard_normal(shape)).astype(np.float32)
    return (low, high, chosen, out_high), levels


@pytest.mark.parametrize(
    ("kernel", "rounds"),
    [("snippet", True), ("node", True), ("post_op", True), ("post_op", False)],
)
def test_the_snippet_in_place_is_the_formula_bit_for_bit(kernel: Kernel, rounds: bool) -> None:
    """The snippet's (and the node's, and a post-op's, rounded or not) passes over one buffer
    (irpool.cpu.quantization_snippet) give `fake_quantized`'s bits on NaN, ±inf, ±0, the ends
    and the midpoints between levels, in each of its output forms; the ranges it leaves to
    `fake_quantized` (too many levels, an output_low of -0) are among the configurations."""
    from irpool.cpu.quantization_snippet import quantize_into, snippet_steps

    rng = np.random.default_rng(7)
    forms: set[str | None] = set()
    subtracts: set[bool] = set()
    fma: set[bool] = set()
    for trial in range(400):
        ranges, levels = _random_snippet_layer(rng, per_channel=trial % 3 == 0)
        low, high = ranges[:2]
        x = (rng.standard_normal((2, 3, 4, 5)) * (np.abs(high).max() + 1) * 1.3).astype(np.float32)
        edges = [NAN, INF, -INF, -0.0, 0.0, low.flat[0], high.flat[0], 1e30, 1e-45, -1e-45]
        x.flat[: len(edges)] = edges
        width = float(high.flat[0]) - float(low.flat[0])
        midpoints = (rng.integers(0, levels - 1, 30) + 0.5) * width / (levels - 1) + low.flat[0]
        x.flat[len(edges) : len(edges) + 30] = midpoints
        layer = snippet_steps(ranges, levels, kernel, rounds)
        forms.add(None if layer is None else layer.form)
        if layer is None:
            continue
        subtracts.add(layer.subtracts)
        fma.add(layer.fma)
        expected = fake_quantized(x, ranges, levels, kernel, rounds).view(np.int32)
        np.testing.assert_array_equal(quantize_into(x, x.copy(), layer).view(np.int32), expected)
        np.testing.assert_array_equal(quantize_into(x, x, layer).view(np.int32), expected)
    every = {"product", "shifted", "split", "wide"} if rounds else {"wide"}
    assert forms == every | {None}
    assert subtracts == {True, False}
    assert fma == ({False} if kernel == "snippet" else {True, False})  # il ±0: the f32 product


def _quantizer_layers(layer_id: int, shape: tuple[int, ...]) -> tuple[list[str], str]:
    """A FakeQuantize of 256 levels on data of `shape` (its port 0) and its four scalar f32
    range Consts (ids 10 to 13, the weights' first 16 bytes)."""
    consts = [ir.typed_const(10 + i, f"r{i}", "f32", (), 4 * i, 4) for i in range(4)]
    fq_inputs = [ir.port(0, shape), *(ir.port(i, []) for i in range(1, 5))]
    fake_quantize = ir.layer(
        layer_id, "fq", "FakeQuantize", "opset1", ir.data([("levels", "256")]), fq_inputs,
        [ir.port(5, shape)],
    )  # fmt: skip
    return consts, fake_quantize


def _clamp_then_quantize(
    tmp_path: Path,
    clamp: tuple[float, float] | None,
    ranges: tuple[float, float, float, float],
    clamp_returned: bool,
) -> tuple[irpool.Model, tuple[np.ndarray, ...]]:
    """x -> ReLU (`clamp` None) or Clamp -> FakeQuantize (256 levels, scalar f32 ranges) ->
    Result; the ReLU's or Clamp's output returned too where asked."""
    shape = (1, 3, 4, 5)
    consts, fake_quantize = _quantizer_layers(2, shape)
    kind, bounds = "ReLU", ""
    if clamp is not None:
        kind, bounds = "Clamp", ir.data([("min", str(clamp[0])), ("max", str(clamp[1]))])
    first = ir.layer(1, "clamp", kind, "opset1", bounds, [ir.port(0, shape)], [ir.port(1, shape)])
    layers = [
        ir.parameter(0, "x", shape),
        first,
        *consts,
        fake_quantize,
        ir.result(3, "out", shape),
    ]
    edges = [ir.edge(0, 0, 1, 0), ir.edge(1, 1, 2, 0)]
    edges += [ir.edge(10 + i, 0, 2, i + 1) for i in range(4)] + [ir.edge(2, 5, 3, 0)]
    if clamp_returned:
        layers.append(ir.result(4, "clamp_out", shape))
        edges.append(ir.edge(1, 1, 4, 0))
    arrays = tuple(np.array(v, np.float32) for v in ranges)
    path = ir.write(tmp_path, ir.net(layers, edges), b"".join(a.tobytes() for a in arrays))
    return irpool.load(path), arrays


@pytest.mark.parametrize(
    ("clamp", "ranges", "clamp_returned", "skipped"),
    [
        (None, (0.0, 3.0, 0.0, 3.0), False, True),  # as NNCF writes it after a ReLU
        (None, (0.5, 3.0, -1.0, 2.0), False, True),
        (None, (-1.0, 3.0, -1.0, 3.0), False, False),  # below 0: the ReLU's zeros show
        (None, (0.0, 3.0, -0.0, 3.0), False, False),  # output_low -0: a zero's sign shows
        (None, (0.0, 3.0, 0.0, 3.0), True, False),  # the ReLU's output is returned
        ((0.0, 6.0), (0.0, 6.0, 0.0, 6.0), False, True),  # ReLU6, as in mobilenet_v2
        ((0.0, 6.0), (0.0, 6.5, 0.0, 6.5), False, False),  # above the Clamp's max
        ((-1.0, 6.0), (-0.5, 2.0, -3.0, 1.0), False, True),
    ],
)
def test_a_clamp_before_a_quantizer_within_its_bounds_is_skipped(
    tmp_path: Path,
    clamp: tuple[float, float] | None,
    ranges: tuple[float, float, float, float],
    clamp_returned: bool,
    skipped: bool,
) -> None:
    """The run skips it only where that gives the same bits (irpool.cpu.quantization_clamps)."""
    model, arrays = _clamp_then_quantize(tmp_path, clamp, ranges, clamp_returned)
    x = (np.random.default_rng(3).standard_normal((1, 3, 4, 5)) * 4).astype(np.float32)
    x.flat[:8] = [NAN, INF, -INF, -0.0, 0.0, -1e-30, ranges[0], ranges[1]]
    low, high = (np.float32(0), np.float32(INF)) if clamp is None else np.float32(clamp)
    clamped = np.where(x > low, x, low)  # the CPU's comparisons: NaN gives the lower bound
    clamped = np.where(clamped < high, clamped, high) + np.float32(0)
    expected = fake_quantized(clamped, arrays, 256)
    got = model.run({"x": x.copy()})["out"]
    np.testing.assert_array_equal(got.view(np.int32), expected.view(np.int32))
    types = [step.layer.type for step in model.execution_plan().steps]
    assert ("ReLU" not in types and "Clamp" not in types) == skipped


@pytest.mark.parametrize(
    ("declared", "cpu"),
    [  # NaN, +inf, -inf under ranges (-3.8, 3.77), as the CPU gives them
        ((1, 1, 1, 3), [-3.8003416, 3.7706513, -3.8003416]),  # static: the snippet
        ((-1, 1, 1, 3), [3.7706513, 3.7706513, -3.8003416]),  # dynamic: its node
        ((1, 1, 1, -1), [3.7706513, 3.7706513, -3.8003416]),
    ],
)
def test_a_dynamic_data_shape_takes_the_node(
    tmp_path: Path, declared: tuple[int, ...], cpu: list[float]
) -> None:
    """The CPU tokenizes a FakeQuantize into a snippet only where the model declares its
    data's shape static; on its node a NaN gives output_high (measured)."""
    ranges = (-3.8003416, 3.7706513, -3.8003416, 3.7706513)
    consts, fake_quantize = _quantizer_layers(1, declared)
    layers = [ir.parameter(0, "x", declared), *consts, fake_quantize, ir.result(2, "out", declared)]
    edges = [ir.edge(0, 0, 1, 0), *(ir.edge(10 + i, 0, 1, i + 1) for i in range(4))]
    edges.append(ir.edge(1, 5, 2, 0))
    weights = np.array(ranges, np.float32).tobytes()
    model = irpool.load(ir.write(tmp_path, ir.net(layers, edges), weights))
    (out,) = model.run({"x": np.array([[[[NAN, INF, -INF]]]], np.float32)}).values()
    np.testing.assert_array_equal(out.ravel(), np.array(cpu, np.float32))


@pytest.mark.parametrize(
    ("after_product", "cpu"),
    [  # the CPU's outputs: Parameter -> FakeQuantize, and Convolution (1x1, weight 1) -> it
        (False, [-0.28431373834609985, -0.26862746477127075]),
        (True, [-0.2921568751335144, -0.2764706015586853]),
    ],
)
def test_a_fake_quantize_after_a_convolution_takes_the_node_level(
    after_product: bool, cpu: list[float]
) -> None:
    """Fused into the Convolution before it, x * isc + ish rounds once (the node's fma), so
    these ties of the snippet's two roundings take the other level; NaN still gives il."""
    ranges = (-0.3, 1.7, -0.3, 1.7)
    op = FakeQuantize1({"levels": 256, "auto_broadcast": "numpy"})
    op.after_product = after_product
    x = np.array([[-0.28823530673980713, -0.272549033164978, NAN, INF, -INF, 3e38]], np.float32)
    (result,) = compute(op, [x, *(np.array(r, np.float32) for r in ranges)])
    assert result is not None
    expected = np.array([*cpu, -0.3, 1.7, -0.3, 1.7], np.float32)
    np.testing.assert_array_equal(result[0], expected)
    plain = [np.array(r, np.float32) for r in ranges]
    kernel = kernel_for_layer(256, plain, 2, "numpy", after_product=after_product)
    assert kernel == ("post_op" if after_product else "snippet")
