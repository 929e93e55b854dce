"""Live differential test: MatMul by weights in a decompression subgraph as NNCF writes them
(Const u8/i8/u4/i4 -> Convert f16 [-> Subtract zero point] -> Multiply scale f16 [-> Reshape]
-> Convert f32 -> MatMul transpose_b), irpool against the CPU plugin: decompressed in f32, the
activations quantized to int8 per 32 of K where the CPU does (docs/compressed-weights.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from irpool.cpu.isa import AVX2, cpu_isa
from irpool.low_bit import NF4_VALUES
from tests.differential.oracle_batch import CPU_CONFIG

ov = pytest.importorskip("openvino")
ops = pytest.importorskip("openvino.opset13")

pytestmark = pytest.mark.oracle

RANGES = {"u4": (0, 16), "i4": (-8, 8), "u8": (0, 256), "i8": (-128, 128), "nf4": (0, 16)}
# (weight type, group along K (0: one scale per row), zero point, K, readers): groups of 16
# are decompressed only; per row (K above 32, a shorter last group where K is not a multiple of
# 32) and groups of 32 or more also quantize the activations, except nf4's, which are never
# quantized. 4-bit rows of odd length (K = 45) do not start on a byte: irpool folds them to f32
# weights. The CPU gathers nf4 rows as f16-rounded values times the
# scale: not modelled, so nf4 is read by MatMuls only.
BOTH, MATMUL = ("MatMul", "Gather"), ("MatMul",)
CASES = [
    ("u4", 16, True, 128, BOTH), ("i4", 16, False, 64, BOTH), ("u4", 32, True, 128, BOTH),
    ("u4", 64, True, 128, BOTH), ("i4", 128, False, 256, BOTH), ("u8", 0, True, 128, BOTH),
    ("i8", 0, False, 64, BOTH), ("u4", 0, True, 96, BOTH), ("u8", 0, True, 40, BOTH),
    ("i8", 0, False, 100, BOTH), ("u8", 0, False, 24, BOTH), ("u4", 0, True, 45, BOTH),
    ("nf4", 16, False, 64, MATMUL), ("nf4", 32, False, 128, MATMUL), ("nf4", 0, False, 64, MATMUL),
]  # fmt: skip
READ = [(*case[:4], reader) for case in CASES for reader in case[4]]


def write_model(
    path: Path, weight_type: str, group: int, zero_point: bool, depth: int, gather: bool = False
) -> NDArray[np.float32]:
    """Writes the model (the weights read by a MatMul of x [2, 3, K], or by a Gather-8 of rows
    at `ids` [2, 3]); returns its weights [rows, K] decompressed in f32."""
    rng = np.random.default_rng(depth + group)
    rows, low_high = 48, RANGES[weight_type]
    shape = [rows, depth // group, group] if group else [rows, depth]
    scale_shape = [*shape[:-1], 1]
    element = getattr(ov.Type, weight_type)
    quantized = rng.integers(*low_high, shape)
    if weight_type == "nf4":  # the Const is written from its values; each element an index
        quantized = np.array(NF4_VALUES, np.float32)[quantized]
    weights = ops.convert(
        ov.op.Constant(element, ov.Shape(shape), quantized.ravel().tolist()), "f16"
    )
    points = np.zeros(scale_shape, np.int64)
    if zero_point:
        points = rng.integers(*low_high, scale_shape)
        zeros = ov.op.Constant(element, ov.Shape(scale_shape), points.ravel().tolist())
        weights = ops.subtract(weights, ops.convert(zeros, "f16"))
    scales = (rng.standard_normal(scale_shape) * 0.05).astype(np.float16)
    weights = ops.multiply(weights, ops.constant(scales))
    if group:
        weights = ops.reshape(weights, ops.constant(np.array([rows, depth])), False)
    weights = ops.convert(weights, "f32")
    if gather:
        x = ops.parameter([2, 3], np.int64, name="ids")
        read = ops.gather(weights, x, ops.constant(np.array(0)))
    else:
        x = ops.parameter([2, 3, depth], np.float32, name="x")
        read = ops.matmul(x, weights, False, True)
    ov.save_model(ov.Model([ops.result(read)], [x]), path, compress_to_fp16=False)
    decompressed = (quantized - points).astype(np.float32) * scales.astype(np.float32)
    return decompressed.reshape(rows, depth)


@pytest.mark.parametrize("mode", ["keep", "decompress"])
@pytest.mark.parametrize(("weight_type", "group", "zero_point", "depth", "reader"), READ)
def test_compressed_weights(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    weight_type: str,
    group: int,
    zero_point: bool,
    depth: int,
    reader: str,
    mode: str,
) -> None:
    """A MatMul within 1e-6 of sum |a * b| (the CPU's accumulation order is its own,
    docs/ops/MatMul.md); an embedding Gather of rows bit for bit (an index out of range reads
    past the weights on the CPU: not compared)."""
    monkeypatch.setenv("IRPOOL_COMPRESSED_WEIGHTS", mode)
    path = tmp_path / "model.xml"
    weights = write_model(path, weight_type, group, zero_point, depth, reader == "Gather")
    rng = np.random.default_rng(1)
    if reader == "Gather":
        name, x = "ids", np.array([[0, 5, -1], [47, -48, 3]], np.int64)
    else:
        name, x = "x", rng.standard_normal((2, 3, depth)).astype(np.float32)
    model = irpool.load(path)
    assert model.validate() == []
    (found,) = model.run({name: x}).values()
    expected = ov.Core().compile_model(path, "CPU", CPU_CONFIG)({name: x})[0]
    bound = 0 if reader == "Gather" else 1e-6 * (np.abs(x) @ np.abs(weights).T)
    if reader == "MatMul" and weight_type in ("u4", "i4") and depth % 2 and cpu_isa() == AVX2:
        # 4-bit rows of odd length: an AVX2 host's products are wrong, irpool's the product's
        assert not np.all(np.abs(found - expected) <= bound)
        expected = (x.astype(np.float64) @ weights.T.astype(np.float64)).astype(np.float32)
    assert np.all(np.abs(found - expected) <= bound)


def test_activations_near_a_rounding_tie_round_as_on_the_cpu(tmp_path: Path) -> None:
    """Activations half a step of their group's scale from a step, as float32 rounds that: the
    CPU multiplies each by the scale's reciprocal, so they round as the product does (a
    division would flip many of them, a whole step off)."""
    path = tmp_path / "model.xml"
    weights = write_model(path, "u4", 64, True, 128)
    rng = np.random.default_rng(2)
    groups = rng.standard_normal((6, 4, 32)).astype(np.float32)
    scale = np.abs(groups).max(axis=-1, keepdims=True) / np.float32(127)
    steps = rng.integers(-126, 126, groups.shape).astype(np.float32)
    halfway = ((steps + np.float32(0.5)) * scale).astype(np.float32)
    inside = np.abs(groups) < np.abs(groups).max(axis=-1, keepdims=True)  # keeps each maximum
    x = np.where(inside, halfway, groups).reshape(2, 3, 128)
    (found,) = irpool.load(path).run({"x": x}).values()
    expected = ov.Core().compile_model(path, "CPU", CPU_CONFIG)({"x": x})[0]
    assert np.all(np.abs(found - expected) <= 1e-6 * (np.abs(x) @ np.abs(weights).T))


@pytest.mark.parametrize("moves", [("Reshape",), ("Transpose", "Reshape")])
def test_int8_activations_of_a_fake_quantize_are_not_quantized_again(
    tmp_path: Path, moves: tuple[str, ...]
) -> None:
    """NNCF's INT8 MatMul (i8 weights -> Convert f32 -> Multiply by a scale per row) whose
    input a FakeQuantize gives through a Reshape, or the Transpose and Reshape that merge
    vit_b_16's attention heads: the CPU runs it on its int8 kernels, quantizing nothing per
    32, so the FakeQuantize after it is within a step of the CPU's on every element (quantized
    again per 32, 10% of vit_b_16's were a step off)."""
    rng = np.random.default_rng(4)
    heads, tokens, width, rows = 4, 40, 16, 48

    def quantizer(node: object, bound: float) -> object:
        low, high = ops.constant(np.float32(-bound)), ops.constant(np.float32(bound))
        return ops.fake_quantize(node, low, high, low, high, 256)

    x = ops.parameter([1, heads, tokens, width], np.float32, name="x")
    data = quantizer(x, 2.5)
    if "Transpose" in moves:
        data = ops.transpose(data, ops.constant(np.array([0, 2, 1, 3])))
    data = ops.reshape(data, ops.constant(np.array([tokens, heads * width])), False)
    codes = ops.constant(rng.integers(-127, 128, (rows, heads * width)).astype(np.int8))
    scales = ops.constant((rng.random((rows, 1)) * 0.01 + 0.002).astype(np.float32))
    weights = ops.multiply(ops.convert(codes, "f32"), scales)
    product = quantizer(ops.matmul(data, weights, False, True), 1.5)
    path = tmp_path / "model.xml"
    ov.save_model(ov.Model([ops.result(product)], [x]), path, compress_to_fp16=False)
    feed = rng.standard_normal((1, heads, tokens, width)).astype(np.float32)
    (found,) = irpool.load(path).run({"x": feed}).values()
    expected = ov.Core().compile_model(path, "CPU", CPU_CONFIG)({"x": feed})[0]
    steps_off = np.abs(found - expected) / np.float32(3 / 255)
    assert steps_off.max() <= 1.01
    assert (steps_off > 0.5).mean() <= 2e-3
