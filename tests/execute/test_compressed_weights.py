"""A MatMul by weights in a decompression subgraph (u4 Const -> Convert f16 -> Subtract zero
point -> Multiply scale -> Reshape -> Convert f32 -> MatMul transpose_b), run as the CPU runs
it (decompressed in f32, the activations quantized to int8 per 32 of K) in both ways of
holding the weights: kept compressed and decompressed per use, or decompressed once. Both
give the same bits, whatever IRPOOL_THREADS is (docs/compressed-weights.md)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from irpool.execute import plan
from irpool.execute.compressed import CompressedWeights, JoinedRows, joined
from irpool.execute.kernels.mat_mul import product_by_quantized
from irpool.ops.mat_mul import MatMul1
from irpool.ops.scaled_dot_product_attention import ScaledDotProductAttention13
from tests import ir

pytestmark = pytest.mark.usefixtures("vnni_host")  # the products of a VNNI host

ROWS, GROUPS, GROUP = 40, 4, 32
IDS, GATHER = 14, 15  # the Gather's indices and layer (its Result is the next id)
DEPTH = GROUPS * GROUP
RNG = np.random.default_rng(5)
QUANTIZED = RNG.integers(0, 16, (ROWS, GROUPS, GROUP))
POINTS = RNG.integers(0, 16, (ROWS, GROUPS, 1))
SCALES = (RNG.standard_normal((ROWS, GROUPS, 1)) * 0.05).astype(np.float16)


def nibbles(values: NDArray[np.int64]) -> bytes:
    """u4 values packed as OpenVINO packs them: the first in the low nibble."""
    flat = values.ravel().astype(np.uint8)
    return (flat[0::2] | (flat[1::2] << 4)).tobytes()


def write(directory: Path, reader: str = "MatMul") -> Path:
    """The weights read by a MatMul of x [3, K] (transpose_b), or by a Gather-8 of rows at
    the indices `ids` [5] (axis 0), or by both (a tied embedding and lm_head)."""
    weights, points = nibbles(QUANTIZED), nibbles(POINTS)
    scales = SCALES.tobytes()
    pattern = np.array([ROWS, DEPTH], np.int64).tobytes()
    offsets = np.cumsum([0, len(weights), len(points), len(scales), len(pattern)])
    grouped, one, flat = (ROWS, GROUPS, GROUP), (ROWS, GROUPS, 1), (ROWS, DEPTH)
    to_f16, to_f32 = (ir.data([("destination_type", t)]) for t in ("f16", "f32"))
    transposed = ir.data([("transpose_a", "false"), ("transpose_b", "true")])
    layers = [
        ir.typed_const(1, "q", "u4", grouped, int(offsets[0]), len(weights)),
        ir.typed_layer(2, "Convert", [("u4", grouped)], ("f16", grouped), to_f16),
        ir.typed_const(3, "zp", "u4", one, int(offsets[1]), len(points)),
        ir.typed_layer(4, "Convert", [("u4", one)], ("f16", one), to_f16),
        ir.typed_layer(5, "Subtract", [("f16", grouped), ("f16", one)], ("f16", grouped)),
        ir.typed_const(6, "scale", "f16", one, int(offsets[2]), len(scales)),
        ir.typed_layer(7, "Multiply", [("f16", grouped), ("f16", one)], ("f16", grouped)),
        ir.typed_const(8, "pattern", "i64", (2,), int(offsets[3]), 16),
        ir.typed_layer(
            9, "Reshape", [("f16", grouped), ("i64", (2,))], ("f16", flat),
            ir.data([("special_zero", "false")]),
        ),
        ir.typed_layer(10, "Convert", [("f16", flat)], ("f32", flat), to_f32),
    ]  # fmt: skip
    if reader in ("MatMul", "both"):
        layers += [
            ir.parameter(0, "x", (3, DEPTH)),
            ir.typed_layer(11, "MatMul", [("f32", (3, DEPTH)), ("f32", flat)], ("f32", (3, ROWS)),
                  transposed),
            ir.result(12, "y", (3, ROWS)),
        ]  # fmt: skip
    if reader in ("Gather", "both"):
        inputs = [("f32", flat), ("i64", (5,)), ("i64", ())]
        gathered = ir.layer(
            GATHER,
            f"l{GATHER}",
            "Gather",
            "opset8",
            ir.data([("batch_dims", "0")]),
            [ir.typed_port(i, t, s) for i, (t, s) in enumerate(inputs)],
            [ir.typed_port(3, "f32", (5, DEPTH))],
        )
        layers += [
            ir.parameter(IDS, "ids", (5,), "i64"),
            ir.typed_const(13, "axis", "i64", (), int(offsets[4]), 8),
            gathered,
            ir.result(GATHER + 1, "rows", (5, DEPTH)),
        ]  # fmt: skip
    edges = [
        ir.edge(1, 0, 2, 0), ir.edge(3, 0, 4, 0), ir.edge(2, 1, 5, 0), ir.edge(4, 1, 5, 1),
        ir.edge(5, 2, 7, 0), ir.edge(6, 0, 7, 1), ir.edge(7, 2, 9, 0), ir.edge(8, 0, 9, 1),
        ir.edge(9, 2, 10, 0),
    ]  # fmt: skip
    if reader in ("MatMul", "both"):
        edges += [ir.edge(0, 0, 11, 0), ir.edge(10, 1, 11, 1), ir.edge(11, 2, 12, 0)]
    if reader in ("Gather", "both"):
        edges += [
            ir.edge(10, 1, GATHER, 0), ir.edge(IDS, 0, GATHER, 1), ir.edge(13, 0, GATHER, 2),
            ir.edge(GATHER, 3, GATHER + 1, 0),
        ]  # fmt: skip
    axis = np.array(0, np.int64).tobytes()
    return ir.write(directory, ir.net(layers, edges), weights + points + scales + pattern + axis)


X = RNG.standard_normal((3, DEPTH)).astype(np.float32)
CODES = (QUANTIZED - POINTS).reshape(ROWS, DEPTH)
WEIGHTS = ((QUANTIZED - POINTS).astype(np.float32) * SCALES.astype(np.float32)).reshape(ROWS, DEPTH)


def cpu_product(
    x: NDArray[np.float32], codes: NDArray[Any], scales: NDArray[np.float32], group: int
) -> NDArray[np.float32]:
    """x @ weights.T as the CPU sums it, output by output in plain NumPy: per 32 of K, the
    int8 steps times the codes (quantized minus zero point), times the activation scale in
    f32, added with one rounding times the weights' scale (of `group` elements) into the f32
    total (docs/compressed-weights.md#the-products-sums)."""
    groups = x.reshape(len(x), -1, 32)
    activation_scales = np.abs(groups).max(axis=-1) / np.float32(127)
    steps = np.round(groups * (np.float32(1) / activation_scales[:, :, None]))
    by_32 = codes.reshape(len(codes), -1, 32)
    total = np.zeros((len(x), len(codes)), np.float32)
    for index in range(by_32.shape[1]):
        sums = (steps[:, index] @ by_32[:, index].T).astype(np.float32)
        product = (sums * activation_scales[:, index : index + 1]).astype(np.float64)
        weight_scale = scales[:, index * 32 // group].astype(np.float64)
        total = (product * weight_scale + total).astype(np.float32)
    return total


def run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, threads: str
) -> NDArray[np.float32]:
    monkeypatch.setenv("IRPOOL_COMPRESSED_WEIGHTS", mode)
    monkeypatch.setenv("IRPOOL_THREADS", threads)
    directory = tmp_path / f"{mode}{threads}"
    directory.mkdir()
    model = irpool.load(write(directory))
    assert model.validate() == []
    (output,) = model.run({"x": X}).values()
    return output


@pytest.mark.parametrize("mode", ["keep", "decompress", "auto"])
def test_as_the_cpu_runs_it_in_each_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    found = run(tmp_path, monkeypatch, mode, "1")
    np.testing.assert_array_equal(found, cpu_product(X, CODES, SCALES[:, :, 0], GROUP))


def test_both_modes_and_thread_counts_give_the_same_bits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = [run(tmp_path, monkeypatch, m, t) for m in ("keep", "decompress") for t in ("1", "2")]
    assert all(np.array_equal(f, found[0]) for f in found[1:])


def test_a_bad_mode_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(irpool.ExecutionError, match="IRPOOL_COMPRESSED_WEIGHTS='fast'"):
        run(tmp_path, monkeypatch, "fast", "1")


@pytest.mark.parametrize("mode", ["keep", "decompress"])
def test_a_gather_of_rows_decompresses_the_rows_it_picks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """Gather-8: a negative index counts from the end, one out of range gives zeros."""
    monkeypatch.setenv("IRPOOL_COMPRESSED_WEIGHTS", mode)
    model = irpool.load(write(tmp_path, "Gather"))
    assert model.validate() == []
    ids = np.array([3, -1, ROWS, 0, 3], np.int64)
    (found,) = model.run({"ids": ids}).values()
    expected = np.stack(
        [WEIGHTS[3], WEIGHTS[-1], np.zeros(DEPTH, np.float32), WEIGHTS[0], WEIGHTS[3]]
    )
    assert np.array_equal(found, expected)


@pytest.mark.parametrize("mode", ["keep", "decompress"])
def test_a_gather_and_a_matmul_share_one_held_copy_of_their_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """A tied embedding and lm_head read one decompression: neither folds it to f32 weights;
    both hold one copy, as `mode` says."""
    monkeypatch.setenv("IRPOOL_COMPRESSED_WEIGHTS", mode)
    model = irpool.load(write(tmp_path, "both"))
    assert model.validate() == []
    ids = np.array([3, -1, 0, 7, 3], np.int64)
    found = model.run({"x": X, "ids": ids})
    assert np.array_equal(found["rows"], WEIGHTS[ids])
    np.testing.assert_array_equal(found["y"], cpu_product(X, CODES, SCALES[:, :, 0], GROUP))
    plan = model.execution_plan()
    assert all(value.size < WEIGHTS.size for value in plan.constants.values())
    held = {id(step.op.compressed_weights) for step in plan.steps if step.layer.id in (11, GATHER)}
    assert len(held) == 1


@pytest.mark.parametrize("threads", ["1", "2"])
def test_a_product_cut_into_spans_sums_each_output_as_the_cpu(
    monkeypatch: pytest.MonkeyPatch, threads: str
) -> None:
    """Enough activation rows that the f64 products take several spans of weight rows: held
    or kept, on any thread count, each output is the CPU's chain: per group of 32, the steps
    times the codes, times the activation scale in f32, added by one rounding with the
    weights' scale into the f32 total."""
    monkeypatch.setenv("IRPOOL_THREADS", threads)
    rows, depth, group, count = 300, 64, 64, 4096
    rng = np.random.default_rng(7)
    quantized = rng.integers(0, 256, (rows, depth)).astype(np.uint8)
    points = rng.integers(0, 256, (rows, 1)).astype(np.float32)
    scales = (rng.standard_normal((rows, 1)) * 0.05).astype(np.float16).astype(np.float32)
    weights = CompressedWeights("u8", quantized, rows, depth, group, points, scales)
    x = rng.standard_normal((count, depth)).astype(np.float32)
    expected = cpu_product(x, quantized - points, scales, group)
    for held in (weights, weights.held()):
        np.testing.assert_array_equal(product_by_quantized(x, 32, held), expected)


@pytest.mark.parametrize("depth", [40, 100])
def test_one_scale_per_row_quantizes_a_shorter_last_group(depth: int) -> None:
    """K not a multiple of 32, one scale per row: the CPU quantizes the activations per 32,
    the last group shorter, and sums them as if K were padded with zeros (x and codes);
    held or kept, the weights read back as decompressed, by rows and by blocks."""
    rows, count, padding = 24, 5, -depth % 32
    rng = np.random.default_rng(depth)
    quantized = rng.integers(0, 256, (rows, depth)).astype(np.uint8)
    points = rng.integers(0, 256, (rows, 1)).astype(np.float32)
    scales = (rng.standard_normal((rows, 1)) * 0.05).astype(np.float16).astype(np.float32)
    weights = CompressedWeights("u8", quantized, rows, depth, depth, points, scales)
    x = rng.standard_normal((count, depth)).astype(np.float32)
    codes = np.pad(quantized - points, ((0, 0), (0, padding)))
    expected = cpu_product(np.pad(x, ((0, 0), (0, padding))), codes, scales, depth + padding)
    decompressed = (quantized - points) * scales
    for held in (weights, weights.held()):
        np.testing.assert_array_equal(product_by_quantized(x, 32, held), expected)
        np.testing.assert_array_equal(held.rows_at(np.array([3, 0, 23])), decompressed[[3, 0, 23]])
        block = held.block(2, 9, np.empty((7, depth), np.float32))
        np.testing.assert_array_equal(block, decompressed[2:9])


@pytest.mark.parametrize(
    ("element_type", "rows", "group", "zero_point"),
    [("u4", 7, 64, True), ("u4", 300, 64, True), ("i4", 2, 32, False), ("i4", 40, 64, True)],
)
def test_four_bit_codes_held_three_rows_a_word_sum_exactly_at_their_extremes(
    element_type: str, rows: int, group: int, zero_point: bool
) -> None:
    """4-bit codes held three rows to an f64 word: every code and step at its extreme, of
    either sign (group sums up to 32 * 127 * 15), still sums each row's group apart and
    exactly, for row counts not a multiple of three and products cut into several spans."""
    depth, count = 64, 4096
    rng = np.random.default_rng(11)
    low, high = (0, 15) if element_type == "u4" else (-8, 7)
    quantized = rng.choice([low, high], (rows, depth))
    quantized[: rows // 2] = rng.choice([low, high], (rows // 2, 1))  # whole rows at one end
    points = np.zeros((rows, depth // group), np.float32)
    if zero_point:
        points[...] = rng.choice([low, high], points.shape)
    scales = (rng.standard_normal((rows, depth // group)) * 0.05).astype(np.float16)
    signs = rng.choice([-1.0, 1.0], (count, depth)).astype(np.float32)
    signs[:2] = [[1.0], [-1.0]]  # every step 127 or every step -127
    x = np.where(rng.random((count, 1)) < 0.5, signs, rng.standard_normal((count, depth)))
    packed = memoryview(nibbles(quantized & 15))
    weights = CompressedWeights(
        element_type, packed, rows, depth, group, points if zero_point else None,
        scales.astype(np.float32),
    )  # fmt: skip
    codes = quantized - points.repeat(group, axis=1)
    held = weights.held()
    assert held.held_codes is not None and held.held_codes.dtype == np.float64
    expected = cpu_product(x.astype(np.float32), codes, scales.astype(np.float32), group)
    for way in (weights, held):
        np.testing.assert_array_equal(product_by_quantized(x.astype(np.float32), 32, way), expected)
        for row in range(4):  # one row of activations (a decode step's): summed otherwise
            one = product_by_quantized(x[row : row + 1].astype(np.float32), 32, way)
            np.testing.assert_array_equal(one, expected[row : row + 1])
    picks = np.array([0, rows - 1, rows // 3, rows // 2])
    decompressed = codes.astype(np.float32) * scales.astype(np.float32).repeat(group, axis=1)
    assert np.array_equal(held.rows_at(picks), decompressed[picks])


def test_products_reading_one_input_share_its_steps_only_while_it_keeps_its_bits() -> None:
    """Consecutive products by other weights of one input (a layer's q, k and v) reuse its
    activation steps; an input changed in place gets its own."""
    rng = np.random.default_rng(5)
    depth, group = 128, 64
    parts = []
    for rows in (6, 9):
        quantized = rng.integers(0, 16, (rows, depth))
        points = rng.integers(0, 16, (rows, depth // group)).astype(np.float32)
        scales = (rng.standard_normal((rows, depth // group)) * 0.05).astype(np.float32)
        weights = CompressedWeights("u4", memoryview(nibbles(quantized)), rows, depth, group,
                                    points, scales)  # fmt: skip
        codes = quantized - points.repeat(group, axis=1)
        parts.append((weights.held(), codes, scales))
    x = rng.standard_normal((1, depth)).astype(np.float32)
    for values in (x, x * 2, -x, x):  # the last: changed in place, back to the first bits
        x[...] = values
        for weights, codes, scales in parts:
            expected = cpu_product(x, codes, scales, group)
            np.testing.assert_array_equal(product_by_quantized(x, 32, weights), expected)


def test_weights_joined_for_one_input_give_each_matmul_its_own_rows() -> None:
    """Weights of the MatMuls that read one input, joined (a layer's q, k and v): each
    MatMul, in any order, gets its rows of the product computed once for all of them, as
    the CPU computes them; an input changed in place gets a new product."""
    rng = np.random.default_rng(6)
    depth, group = 128, 64
    parts, expected_parts = [], []
    for rows in (7, 2, 2):
        quantized = rng.integers(0, 16, (rows, depth))
        points = rng.integers(0, 16, (rows, depth // group)).astype(np.float32)
        scales = (rng.standard_normal((rows, depth // group)) * 0.05).astype(np.float32)
        parts.append(CompressedWeights("u4", memoryview(nibbles(quantized)), rows, depth, group,
                                       points, scales))  # fmt: skip
        expected_parts.append((quantized - points.repeat(group, axis=1), scales))
    whole, first, members = joined(parts).held(), 0, []
    for weights in parts:
        members.append(replace(weights, fused=JoinedRows(whole, first, len(parts))))
        first += weights.rows
    x = rng.standard_normal((1, depth)).astype(np.float32)
    for values, order in ((x, [0, 1, 2]), (x * 3, [2, 0, 1]), (-x, [1, 1, 2, 0])):
        x[...] = values
        for index in order:
            codes, scales = expected_parts[index]
            got = product_by_quantized(x, 32, members[index])
            np.testing.assert_array_equal(got, cpu_product(x, codes, scales, group))


def test_codes_held_for_a_product_that_does_not_quantize_are_decompressed_once() -> None:
    """A product whose activations come quantized (an int8 model's fc after a FakeQuantize)
    does not quantize them: weights held as codes are decompressed once for it, to the
    values `keep` decompresses on every run."""
    weights = CompressedWeights(
        "u4",
        memoryview(nibbles(QUANTIZED)),
        ROWS,
        DEPTH,
        GROUP,
        POINTS.reshape(ROWS, GROUPS).astype(np.float32),
        SCALES.reshape(ROWS, GROUPS).astype(np.float32),
    )
    held = weights.held()
    once = held.decompressed_once()
    assert held.held_codes is not None and once.held_codes is None
    assert once.decompressed is not None
    every_run = weights.block(0, ROWS, np.empty((ROWS, DEPTH), np.float32))
    assert np.array_equal(once.decompressed.view(np.int32), every_run.view(np.int32))


@pytest.mark.parametrize(("projection", "marked"), [(256, True), (0, False)])
def test_an_attention_that_a_quantizing_product_reads_is_marked(
    tmp_path: Path, projection: int, marked: bool
) -> None:
    """An attention whose output a MatMul that quantizes its activations reads (through a
    Transpose and a Reshape: an LLM's o_proj) is emulated to a larger budget; one read by
    nothing but its Result is not."""
    xml, data = ir.cached_attention_model(2, 2, 128, "f32", projection=projection)
    model = irpool.load(ir.write(tmp_path, xml, data))
    runner_input = plan.RunnerInput(
        model.graph, model.checked, model.document.ir_version, model.weights.read
    )
    steps = plan.plan_execution(runner_input).steps
    (attention,) = [s.op for s in steps if isinstance(s.op, ScaledDotProductAttention13)]
    assert attention.read_by_quantization is marked
    products = [s.op for s in steps if isinstance(s.op, MatMul1)]
    assert [p.activation_group for p in products] == ([32] if projection else [])
