"""Live differential test: FakeQuantize-1 against OpenVINO, alone and in NNCF-style INT8 chains.

Configuration #n (rebuilt alone with `random_config(n)`) is a "FakeQuantize" of one input (f32
mostly, f16, i8, u8, and i32 for IR628; dims static or dynamic) by four f32 Consts: scalars,
per-channel [1,C,1,1] or [C,1,1], or [1]; levels 0 to 2**20 (2, 3, 16, 255, 256, 65535 and
65536 often); auto_broadcast numpy mostly, pdpd and none too (the CPU refuses most of these:
IR627); output ranges equal to the input ones a fifth of the time (65536 levels: stripped,
IR626 between a Parameter and a Result), crossed (input_low above input_high) or empty ranges
sometimes. It leaves out what the CPU's own FakeQuantize node refuses and no rule reports
yet: levels below 2 where that node runs, ranges per channel of an axis above 1 there (i32
data always runs there), and a crossed range on 8-bit data; and 255 levels with ranges along
axis 2, where the CPU's values leave the formula (docs/ops/FakeQuantize.md#known-differences).

Shapes (every configuration): `read_model` is the oracle; where it accepts and the CPU plugin
cannot compile, irpool must report the IR6xx rule. Run (accepted, compiled, static): batches
on the CPU plugin (f32 inference precision) on inputs that hold NaN, ±inf, huge values and,
for half the elements, the midpoints between two levels; the outputs must agree within the
bound docs/ops/FakeQuantize.md#values states: NaN where the CPU has NaN, the same level, and
values within 2·2⁻²³·max(|output_low|, |output_high|) (an integer output, rounded from that,
within 1).

The chains (docs/ops/FakeQuantize.md#int8-models-as-nncf-writes-them): Parameter ->
FakeQuantize -> Convolution or MatMul whose weights are an i8 (or u8 with a zero point) Const
-> Convert -> (Subtract) -> Multiply -> Add bias -> (ReLU) -> FakeQuantize -> Result, as NNCF
writes them; irpool must give the CPU's level at the last FakeQuantize within one step on
every element, and off by a step on at most 1 element in 10,000.

IRPOOL_TEST_SCALE scales the number of configurations (default 300; 30 chains).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from irpool.cpu.quantization import kernel_for_layer
from irpool.cpu.quantization_refusals import EIGHT_BIT_LEVELS
from tests import ir
from tests.differential.harness import (
    CPU_CONFIG,
    NUMPY,
    PER_OP,
    const,
    declared,
    parameter,
    random_dim,
)
from tests.differential.harness import write as write_ir
from tests.differential.single_input import (
    Outcome,
    assert_covers,
    assert_shapes_agree,
    compile_verdicts,
    has_static_shape,
    run_differences,
    runnable,
)
from tests.scale import examples

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-fake-quantize-1"
TYPES = ("f32", "f32", "f32", "f32", "f16", "i8", "u8", "i32")
LEVELS = (2, 3, 16, 255, 256, 256, 65535, 65536, 0, 1, 1000, 2**20)
BATCH_SIZE = 40
CHAINS = examples(30)
F32 = np.float32


@dataclass(frozen=True)
class Config:
    index: int
    element_type: str
    shape: str
    levels: int
    mode: str
    range_shape: tuple[int, ...]
    ranges: tuple[tuple[float, ...], ...]  # input_low, input_high, output_low, output_high

    def describe(self) -> str:
        return (
            f"#{self.index} FakeQuantize levels {self.levels} {self.mode} ranges "
            f"{list(self.range_shape)} {self.ranges} on {self.element_type}[{self.shape}]"
        )

    def arrays(self) -> list[NDArray[np.float32]]:
        return [np.array(values, F32).reshape(self.range_shape) for values in self.ranges]


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    channels = rng.choice((1, 2, 3))
    dims = [str(rng.choice((1, 2))), str(channels)] + [
        str(rng.randint(1, 5)) for _ in range(rng.choice((0, 1, 2, 2)))
    ]
    if rng.random() < 0.1:
        dims[rng.choice([0, *range(2, len(dims))])] = random_dim(rng)  # channels kept
    per_channel = (1, channels, 1, 1)[: len(dims)]
    shapes = [(1, ()), (1, (1,)), (channels, per_channel)]
    if len(dims) >= 3 and dims[-2] == str(channels):  # a range that grows the shape: not run
        shapes.append((channels, (channels, 1)))
    count, range_shape = rng.choice(shapes)
    mode = rng.choice(("numpy",) * 8 + ("pdpd", "none"))
    if mode == "none":
        range_shape, count = tuple(int(d) if d.isdigit() else 1 for d in dims), 0
        count = int(np.prod(range_shape))
    scale = rng.choice((1.0, 1.0, 10.0, 0.01, 1000.0))
    low = [rng.uniform(-2, 1) * scale for _ in range(count)]
    high = [lo + rng.uniform(0.01, 3) * scale for lo in low]
    if rng.random() < 0.1:
        high = [lo - rng.uniform(0, 1) * scale for lo in low]  # crossed (or empty)
    out_low = [rng.uniform(-3, 1) * scale for _ in range(count)]
    out_high = [rng.uniform(-1, 3) * scale for _ in range(count)]
    if rng.random() < 0.2:
        out_low, out_high = list(low), list(high)
    ranges = tuple(
        tuple(float(F32(v)) for v in values) for values in (low, high, out_low, out_high)
    )
    element, levels = rng.choice(TYPES), rng.choice(LEVELS)
    # What the CPU's own FakeQuantize node (levels 2, crossed ranges, integer data) refuses
    # and no rule reports yet (docs/ops/FakeQuantize.md#what-the-cpu-plugin-refuses).
    node = levels == 2 or any(h < lo for lo, h in zip(low, high, strict=True))
    if levels < 2 and (node or NUMPY[element](0).dtype.kind in "iu"):
        levels = 3
    if node and range_shape == (channels, 1):
        range_shape = (1, channels, 1, 1)[: len(dims)]
    if node and element in ("i8", "u8") and high[0] < low[0]:
        element = "f32"
    if levels == 255 and range_shape == (channels, 1):  # a known difference
        levels = 256
    if element == "i32":  # the node runs it, which refuses ranges of axis 2: per tensor
        mode, range_shape, ranges = "numpy", (1,), tuple(values[:1] for values in ranges)
    return Config(index, element, ",".join(dims), levels, mode, range_shape, ranges)


def render_layers(
    config: Config, output: tuple[str, list[str] | None], base: int, offset: int
) -> tuple[str, str, bytes]:
    """Ids 2 * base + (Parameter 0, input_low 1, FakeQuantize 2, Result 3, the other ranges
    4-6): `write` gives 4 per configuration, a FakeQuantize needs 7."""
    n, first = config.index, 2 * base
    shape = ",".join(str(d) for d in config.range_shape)
    dims = [str(d) for d in config.range_shape]
    range_ids = (first + 1, first + 4, first + 5, first + 6)
    layers, blob = [parameter(first, f"in{n}", config.element_type, config.shape)], b""
    for layer_id, array in zip(range_ids, config.arrays(), strict=True):
        data = array.astype("<f4").tobytes()
        layers.append(const(layer_id, f"r{layer_id}", "f32", shape, offset + len(blob), len(data)))
        blob += data
    out_type, out_dims = output
    attributes = ir.data([("levels", str(config.levels)), ("auto_broadcast", config.mode)])
    inputs = [ir.typed_port(0, config.element_type, declared(config.shape))]
    inputs += [ir.typed_port(i, "f32", dims) for i in range(1, 5)]
    out = ir.typed_port(5, out_type, out_dims, f"out{n}")
    op = ir.layer(first + 2, f"op{n}", "FakeQuantize", "opset1", attributes, inputs, [out])
    layers.append(op)
    layers.append(ir.result(first + 3, f"out{n}", out_dims, ir.precision(out_type)))
    ends = [(first, 0, first + 2, 0), (first + 2, 5, first + 3, 0)]
    ends += [(layer_id, 0, first + 2, port) for port, layer_id in enumerate(range_ids, 1)]
    return "".join(layers), "".join(ir.edge(*e) for e in ends), blob


def write(directory: Path, name: str, configs: list[tuple[Config, tuple[str, Any]]]) -> Path:
    return write_ir(directory, name, configs, render_layers)


def level_input(config: Config) -> NDArray[Any]:
    """Random values around the input range, NaN, ±inf and huge ones, and for half the
    elements the midpoint between two levels (where the rounding shows)."""
    shape = tuple(int(d) for d in config.shape.split(",") if d)
    rng = np.random.default_rng(config.index)
    low, high = (
        pdpd(a, shape) if aligned_from_axis_0(config, len(shape)) else np.broadcast_to(a, shape)
        for a in config.arrays()[:2]
    )
    width = high.astype(np.float64) - low
    span = max((config.levels - 1) % 2**64, 1)
    k = rng.integers(0, max(min(span, 2**31 - 1), 1), shape)
    midpoints = low + (k + 0.5) * width / span
    spread = low + rng.uniform(-0.3, 1.3, shape) * width
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 3e38, -3e38])
    specials = specials[rng.integers(0, len(specials), shape)]
    x = np.where(rng.random(shape) < 0.5, midpoints, spread)
    x = np.where(rng.random(shape) < 0.1, specials, x)
    dtype = np.dtype(NUMPY[config.element_type])
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.clip(np.nan_to_num(np.rint(x)), info.min, info.max).astype(dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        return x.astype(dtype)


def aligned_from_axis_0(config: Config, rank: int) -> bool:
    """Whether the CPU aligns the ranges from axis 0: pdpd on its reference only (elsewhere
    it aligns them numpy's way, docs/ops/FakeQuantize.md#values)."""
    kernel = kernel_for_layer(config.levels, config.arrays(), rank, config.mode)
    return config.mode == "pdpd" and kernel == "reference"


def pdpd(array: NDArray[Any], shape: tuple[int, ...]) -> NDArray[Any]:
    return np.broadcast_to(array.reshape(array.shape + (1,) * (len(shape) - array.ndim)), shape)


# The low-precision pass's levels turn it on for the whole model: batched apart.
outcomes = compile_verdicts(
    random_config,
    PER_OP,
    write,
    set(TYPES),
    ids_each=8,
    kind=lambda c: c.levels in EIGHT_BIT_LEVELS,
)


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        config = outcome.config
        ran = outcome.accepted and has_static_shape(config)
        counts["per-channel runs"] += ran and int(np.prod(config.range_shape)) > 1
        counts["crossed runs"] += ran and any(
            h < lo for lo, h in zip(config.ranges[0], config.ranges[1], strict=True)
        )
        counts["levels 2 runs"] += ran and config.levels == 2
        counts["refused by the CPU"] += not outcome.accepted and not outcome.problems
    minimum = {"accepted": PER_OP // 2, "runs": PER_OP // 2, "per-channel runs": PER_OP // 10}
    minimum |= {"crossed runs": PER_OP // 50, "levels 2 runs": PER_OP // 30}
    minimum |= {"refused by the CPU": PER_OP // 30}
    assert_covers(outcomes, counts, minimum)


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def agrees(config: Config, ours: NDArray[Any], theirs: NDArray[Any], x: NDArray[Any]) -> bool:
    """NaN where the CPU has NaN; elsewhere within 2·2⁻²³·max(|ol|, |oh|) (the same level),
    an integer output within 1 of the CPU's (the value it rounds differs by that)."""
    if ours.shape != theirs.shape or ours.dtype != theirs.dtype:
        return False
    if ours.dtype.kind in "iu":
        return bool(np.all(np.abs(ours.astype(np.int64) - theirs.astype(np.int64)) <= 1))
    nan = np.isnan(theirs.astype(F32))
    if not np.array_equal(nan, np.isnan(ours.astype(F32))):
        return False
    out_low, out_high = config.arrays()[2:]
    largest = np.maximum(np.abs(out_low), np.abs(out_high)).astype(np.float64)
    if aligned_from_axis_0(config, ours.ndim):
        largest = pdpd(largest, ours.shape)
    bound = 2 * 2.0**-23 * np.broadcast_to(largest, ours.shape)
    if ours.dtype == np.float16:  # rounded to f16 after: within one f16 step of the value
        bound = np.maximum(bound, np.abs(theirs.astype(np.float64)) * 2.0**-10)
    diff = np.abs(ours.astype(np.float64) - theirs.astype(np.float64))
    return bool(np.all((diff <= bound) | nan | (ours == theirs)))


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    """In batches; i8 and i32 data alone (beside another FakeQuantize of 256 levels, the CPU
    refuses most of them: IR628)."""
    core = ov.Core()
    configs = runnable(outcomes, set(TYPES))
    batched = [c for c in configs if c.element_type not in ("i8", "i32")]
    alone = [c for c in configs if c.element_type in ("i8", "i32")]
    messages = [
        run_differences(core, tmp_path, chosen, write, level_input, agrees, size)
        for chosen, size in ((batched, BATCH_SIZE), (alone, 1))
    ]
    assert not any(messages), "\n".join(messages)


DYNAMIC_LEVELS = (3, 16, 255, 256, 1000)


@pytest.mark.parametrize("levels", DYNAMIC_LEVELS)
@pytest.mark.parametrize("per_channel", [False, True])
def test_a_dynamic_data_shape_runs_as_openvino(
    levels: int, per_channel: bool, tmp_path: Path
) -> None:
    """A FakeQuantize whose data the model declares [?, 3, ?, ?]: the CPU runs its node (NaN
    gives output_high), not the snippet (docs/ops/FakeQuantize.md#values); the same bound as
    the static layers (`agrees`)."""
    rng = np.random.default_rng(levels + per_channel)
    count, range_shape = (3, (1, 3, 1, 1)) if per_channel else (1, ())
    low = [float(F32(v)) for v in rng.uniform(-4, 1, count)]
    high = [float(F32(lo + w)) for lo, w in zip(low, rng.uniform(0.5, 5, count), strict=True)]
    out_low, out_high = ([float(F32(v)) for v in rng.uniform(-3, 3, count)] for _ in range(2))
    ranges = (tuple(low), tuple(high), tuple(out_low), tuple(out_high))
    config = Config(levels, "f32", "2,3,5,7", levels, "numpy", range_shape, ranges)
    x = ov.opset1.parameter(ov.PartialShape([-1, 3, -1, -1]), ov.Type.f32, name="x")
    constants = [ov.opset1.constant(array) for array in config.arrays()]
    quantized = ov.opset1.fake_quantize(x, *constants, levels)
    ov.save_model(ov.Model([quantized], [x]), tmp_path / "m.xml")
    data = level_input(config)
    compiled = ov.Core().compile_model(tmp_path / "m.xml", "CPU", CPU_CONFIG)
    theirs = compiled({"x": data})[compiled.outputs[0]]
    (ours,) = irpool.load(tmp_path / "m.xml").run({"x": data}).values()
    assert agrees(config, ours, theirs, data)


# NNCF-style INT8 chains


@dataclass(frozen=True)
class Chain:
    index: int
    product: str  # "Convolution" or "MatMul"
    channels: tuple[int, int]
    kernel: int
    signed_input: bool  # an input range around 0 (the CPU quantizes to u8 with a shift)
    zero_point: bool  # u8 weights with a Subtract, as NNCF writes asymmetric weights
    relu: bool

    def describe(self) -> str:
        return (
            f"chain #{self.index}: FakeQuantize -> {self.product} {self.channels} "
            f"kernel {self.kernel}, {'signed' if self.signed_input else 'unsigned'} input, "
            f"{'u8 weights with a zero point' if self.zero_point else 'i8 weights'}"
            f"{', ReLU' if self.relu else ''} -> FakeQuantize"
        )


def random_chain(index: int) -> Chain:
    rng = random.Random(f"{SEED}-chain-{index}")
    product = rng.choice(("Convolution", "Convolution", "MatMul"))
    return Chain(
        index,
        product,
        (rng.choice((3, 8, 16, 64)), rng.choice((4, 16, 32))),
        rng.choice((1, 3, 3, 5)),
        rng.random() < 0.5,
        # A MatMul of u8 weights with a zero point is weight-only compression, which the CPU
        # runs on activations it quantizes itself (docs/ops/FakeQuantize.md#known-differences).
        product == "Convolution" and rng.random() < 0.3,
        rng.random() < 0.7,
    )


def chain_model(chain: Chain) -> tuple[Any, NDArray[np.float32], float]:
    """The chain as NNCF writes it, an input for it and its last FakeQuantize's step."""
    o1 = ov.opset1
    rng = np.random.default_rng(chain.index)
    c_in, c_out = chain.channels
    shape = [1, c_in, 12, 12] if chain.product == "Convolution" else [1, 10, c_in]
    x = o1.parameter(shape, ov.Type.f32, name="x")
    low, high = (-2.0, 2.0 * 127 / 128) if chain.signed_input else (0.0, 3.0)
    source = o1.fake_quantize(x, *(o1.constant(F32(v)) for v in (low, high, low, high)), 256)
    fan_in = c_in * chain.kernel**2 if chain.product == "Convolution" else c_in
    w_shape: tuple[int, ...] = (c_out, c_in)
    if chain.product == "Convolution":
        w_shape = (c_out, c_in, chain.kernel, chain.kernel)
    per_channel = (c_out,) + (1,) * (len(w_shape) - 1)
    scale = rng.uniform(0.5, 2, per_channel) / 127 / np.sqrt(fan_in)
    if chain.zero_point:
        stored = rng.integers(0, 256, w_shape).astype(np.uint8)
        weights = o1.convert(o1.constant(stored), ov.Type.f32)
        zero = rng.integers(100, 156, per_channel).astype(np.uint8)
        weights = o1.subtract(weights, o1.convert(o1.constant(zero), ov.Type.f32))
    else:
        stored = rng.integers(-127, 128, w_shape).astype(np.int8)
        weights = o1.convert(o1.constant(stored), ov.Type.f32)
    weights = o1.multiply(weights, o1.constant(scale.astype(F32)))
    if chain.product == "Convolution":
        pad = [chain.kernel // 2] * 2
        y = o1.convolution(source, weights, [1, 1], pad, pad, [1, 1])
        bias_shape: tuple[int, ...] = (1, c_out, 1, 1)
    else:
        y = o1.matmul(source, weights, False, True)
        bias_shape = (1, 1, c_out)
    y = o1.add(y, o1.constant(rng.normal(0, 0.1, bias_shape).astype(F32)))
    if chain.relu:
        y = o1.relu(y)
    top = F32(1.5)
    bottom = F32(0) if chain.relu else -top
    out = o1.fake_quantize(y, *(o1.constant(v) for v in (bottom, top, bottom, top)), 256)
    data = rng.normal(0.5, 1, shape).astype(F32)
    return ov.Model([out], [x]), data, float((top - bottom) / 255)


def test_int8_chains_within_one_step(tmp_path: Path) -> None:
    core = ov.Core()
    failing, off, total = [], 0, 0
    for index in range(CHAINS):
        chain = random_chain(index)
        model, data, step = chain_model(chain)
        path = tmp_path / f"chain{index}.xml"
        ov.save_model(model, path, compress_to_fp16=False)
        theirs = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)(data)[0]
        (ours,) = irpool.load(path).run({"x": data}).values()
        steps = np.rint(np.abs(ours.astype(np.float64) - theirs) / step)
        off, total = off + int(np.count_nonzero(steps)), total + steps.size
        if steps.max() > 1:
            failing.append(f"{chain.describe()}: {int(steps.max())} steps off")
    assert not failing, "\n".join(failing)
    assert off * 10_000 <= total, f"{off} of {total} elements a step off"


def quantized(node: Any, low: float, high: float) -> Any:
    o1 = ov.opset1
    ranges = (o1.constant(F32(v)) for v in (low, high, low, high))
    return o1.fake_quantize(node, *ranges, 256)


def int8_linear(node: Any, rng: np.random.Generator, c_in: int, c_out: int) -> Any:
    """MatMul by i8 weights through Convert and Multiply by a per-row scale, plus a bias."""
    o1 = ov.opset1
    stored = o1.constant(rng.integers(-127, 128, (c_out, c_in)).astype(np.int8))
    scale = (rng.uniform(0.5, 2, (c_out, 1)) / 127 / np.sqrt(c_in)).astype(F32)
    weights = o1.multiply(o1.convert(stored, ov.Type.f32), o1.constant(scale))
    bias = o1.constant(rng.normal(0, 0.05, (1, 1, c_out)).astype(F32))
    return o1.add(o1.matmul(node, weights, False, True), bias)


def attention_block(index: int) -> tuple[list[tuple[Any, float]], NDArray[np.float32]]:
    """An attention block as `nncf.quantize` writes vit_b_16's without `model_type`: the input
    quantized, q, k and v by int8 MatMuls, q and k quantized, the attention quantized, an
    int8 output projection quantized, the residual Add quantized. The models cut after the
    attention's FakeQuantize and after the last one (reading a layer as an extra output would
    change the CPU's fusions), each with its output step, and an input."""
    o1, o13 = ov.opset1, ov.opset13
    rng = np.random.default_rng(index)
    tokens, heads, head = 10 + index, 2, 16
    width = heads * head
    x = o1.parameter([1, tokens, width], ov.Type.f32, name="x")
    source = quantized(x, -3.0, 3.0 * 127 / 128)

    def split(node: Any) -> Any:
        shape = o1.constant(np.array([1, tokens, heads, head], np.int64))
        return o1.transpose(o1.reshape(node, shape, False), o1.constant(np.array([0, 2, 1, 3])))

    q, k, v = (int8_linear(source, rng, width, width) for _ in range(3))
    attention = o13.scaled_dot_product_attention(
        split(quantized(q, -2.0, 2.0)), split(quantized(k, -2.5, 2.5)), split(v), causal=False
    )
    attention = quantized(attention, -1.0, 1.0)
    merged = o1.reshape(
        o1.transpose(attention, o1.constant(np.array([0, 2, 1, 3]))),
        o1.constant(np.array([1, tokens, width], np.int64)),
        False,
    )
    projected = quantized(int8_linear(merged, rng, width, width), -1.5, 1.5)
    out = quantized(o1.add(projected, source), -4.0, 4.0)
    cuts = [(ov.Model([attention], [x]), 2 / 255), (ov.Model([out], [x]), 8 / 255)]
    return cuts, rng.normal(0, 1, (1, tokens, width)).astype(F32)


def test_int8_attention_blocks_within_one_step(tmp_path: Path) -> None:
    """Each FakeQuantize of the block within one step of the CPU, at most 1 element in 1,000 a
    step off at its end (docs/ops/FakeQuantize.md#the-bound-on-a-whole-nncf-model)."""
    core = ov.Core()
    off, total = 0, 0
    for index in range(max(3, CHAINS // 5)):
        cuts, data = attention_block(index)
        for cut, (model, step) in enumerate(cuts):
            path = tmp_path / f"block{index}-{cut}.xml"
            ov.save_model(model, path, compress_to_fp16=False)
            theirs = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)(data)[0]
            (ours,) = irpool.load(path).run({"x": data}).values()
            steps = np.rint(np.abs(ours.astype(np.float64) - theirs) / step)
            assert steps.max() <= 1, f"block #{index} cut {cut}: {int(steps.max())} steps off"
            off, total = off + int(np.count_nonzero(steps)), total + steps.size
    assert off * 1_000 <= total, f"{off} of {total} elements a step off"


# A FakeQuantize fused into the Convolution before it


@pytest.mark.parametrize("after", ["Result", "int8 Convolution"])
@pytest.mark.parametrize("between", ["", "Add", "Add ReLU"])
def test_a_fake_quantize_after_a_convolution_takes_its_level(
    after: str, between: str, tmp_path: Path
) -> None:
    """Parameter -> Convolution (1x1, weight 1: x exactly) -> between -> FakeQuantize (256
    levels) -> after; on ties of the level's two forms, NaN, ±inf and huge values the level
    (read back from the output) must be the CPU's on every element."""
    o1 = ov.opset1
    rng = np.random.default_rng(len(after) + len(between))
    for trial in range(6):
        step = F32(rng.uniform(0.001, 0.05))
        low = F32(-int(rng.integers(1, 255)) * step) if trial % 2 else F32(-rng.uniform(0, 3))
        if "ReLU" in between:
            low = F32(rng.uniform(0, 0.3))
        high = F32(low + 255 * step) if trial % 2 else F32(low + rng.uniform(0.05, 3))
        scale = F32(255) / (high - low)
        ties = (np.arange(-2, 258, dtype=F32) + F32(0.5)) / scale + low
        x = np.concatenate(
            [
                ties,
                np.nextafter(ties, F32(np.inf)),
                np.nextafter(ties, F32(-np.inf)),
                rng.uniform(low - 0.5, high + 0.5, 500),
                [np.nan, np.inf, -np.inf, 3e38, -3e38, 0, low, high],
            ]
        ).astype(F32)
        size = x.size
        source = o1.parameter([1, 1, size, 1], ov.Type.f32, name="x")
        one = o1.constant(np.ones((1, 1, 1, 1), F32))
        y = o1.convolution(source, one, [1, 1], [0, 0], [0, 0], [1, 1])
        if between:
            y = o1.add(y, o1.constant(np.zeros((1, 1, 1, 1), F32)))
        if "ReLU" in between:
            y = o1.relu(y)
        bounds = (low, high, low, high)
        y = o1.fake_quantize(y, *(o1.constant(np.array(v, F32)) for v in bounds), 256)
        if after != "Result":
            weights = o1.convert(o1.constant(np.ones((1, 1, 1, 1), np.int8)), ov.Type.f32)
            weights = o1.multiply(weights, one)
            y = o1.convolution(y, weights, [1, 1], [0, 0], [0, 0], [1, 1])
        path = tmp_path / f"after{trial}.xml"
        ov.save_model(ov.Model([y], [source]), path, compress_to_fp16=False)
        data = x.reshape(1, 1, size, 1)
        theirs = ov.Core().compile_model(path, "CPU", CPU_CONFIG)(data)[0]
        (ours,) = irpool.load(path).run({"x": data}).values()
        out_step = np.float64((high - low) / F32(255))
        levels = [np.rint((out.astype(np.float64) - low) / out_step) for out in (ours, theirs)]
        off = np.flatnonzero(levels[0] != levels[1])
        assert off.size == 0, (
            f"trial {trial}: x {x[off][:5]} levels {levels[0].ravel()[off][:5]}, "
            f"CPU {levels[1].ravel()[off][:5]}"
        )
