"""Live differential test: the outputs of a MatMul by compressed weights whose activations the
CPU quantizes, bit for bit. Per group of 32 along K the CPU sums the int8 steps times the
weights' codes (quantized minus zero point) exactly, multiplies the sum by the group's
activation scale in f32 and adds that into the f32 total by one FMA with the weights' scale,
group after group (docs/compressed-weights.md#the-products-sums). The models are written with
the tests' IR builder: u8, u4 and i4 weights with and without zero points, one scale per row
(K a multiple of 32 or not: then the last group is shorter) or per 32, 64 or 128 of K, on
activations with ties, zeros and huge values. A group holding
inf or NaN is not modelled (the CPU's signs and its maximum's NaN are its kernel's own).
Weights grouped by 8, 16 or 48 (activations not quantized), K up to 1024: each output one f32
FMA chain over K, bit for bit (irpool/cpu/compressed_weights.py's `sums_in_one_chain`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from irpool.cpu.isa import AVX512_CORE, cpu_isa
from tests import ir
from tests.differential.oracle_batch import CPU_CONFIG

ov = pytest.importorskip("openvino")

pytestmark = pytest.mark.oracle

ROWS = 40
RANGES = {"u8": (0, 256), "u4": (0, 16), "i4": (-8, 8)}
# (weight type, group along K (0: one scale per row), zero point, K)
CASES = [
    ("u8", 0, True, 64), ("u8", 0, False, 96), ("u8", 32, True, 128), ("u4", 64, True, 128),
    ("u4", 128, False, 256), ("i4", 32, False, 64), ("i4", 64, False, 192), ("u4", 0, True, 160),
    ("u8", 0, True, 40), ("u4", 0, False, 72), ("i4", 0, False, 100), ("u8", 0, False, 200),
]  # fmt: skip
# (weight type, group along K, zero point, K): groups the CPU does not quantize activations by
CHAINED = [
    ("u4", 16, True, 64), ("u8", 16, False, 128), ("u4", 8, True, 256), ("u4", 48, False, 96),
    ("i4", 16, False, 1024), ("u4", 16, True, 48),
]  # fmt: skip


def packed(values: NDArray[np.int64], element_type: str) -> bytes:
    """The Const's bytes: u8 as is, 4-bit values two to a byte, the first in the low nibble."""
    flat = values.ravel().astype(np.uint8)
    if element_type == "u8":
        return flat.tobytes()
    flat &= 0xF
    return (flat[0::2] | (flat[1::2] << 4)).tobytes()


def write_model(
    directory: Path,
    element_type: str,
    group: int,
    zero_point: bool,
    depth: int,
    normalized: bool = False,
    swish: bool = False,
) -> Path:
    """x [2, 3, K] times weights [ROWS, K] as NNCF writes them (transpose_b): Const ->
    Convert f16 [-> Subtract zero point] -> Multiply f16 scale [-> Reshape] -> Convert f32;
    `normalized`: x through a LayerNorm first, as transformers' exporters write it (MVN-6 over
    the last axis, eps the f32 1e-5, inside the root); `swish`: the product through a Swish
    (an LLM's gate_proj and its SiLU)."""
    rng = np.random.default_rng(depth + group)
    group = group or depth
    grouped, one, flat = (ROWS, depth // group, group), (ROWS, depth // group, 1), (ROWS, depth)
    if group == depth:  # one scale per row: no group axis, no Reshape
        grouped, one = flat, (ROWS, 1)
    quantized = rng.integers(*RANGES[element_type], grouped)
    points = rng.integers(*RANGES[element_type], one)
    scales = (rng.standard_normal(one) * 0.05).astype(np.float16)
    blobs = [packed(quantized, element_type), packed(points, element_type), scales.tobytes()]
    blobs += [np.array(flat, np.int64).tobytes(), np.array([-1], np.int64).tobytes()]
    offsets = np.cumsum([0, *map(len, blobs)]).tolist()
    to_f16, to_f32 = (ir.data([("destination_type", t)]) for t in ("f16", "f32"))
    layers = [
        ir.parameter(0, "x", (2, 3, depth)),
        ir.typed_const(1, "q", element_type, grouped, offsets[0], len(blobs[0])),
        ir.typed_layer(2, "Convert", [(element_type, grouped)], ("f16", grouped), to_f16),
        ir.typed_const(5, "scale", "f16", one, offsets[2], len(blobs[2])),
        ir.typed_layer(6, "Multiply", [("f16", grouped), ("f16", one)], ("f16", grouped)),
        ir.typed_layer(9, "Convert", [("f16", flat)], ("f32", flat), to_f32),
        ir.typed_layer(
            10, "MatMul", [("f32", (2, 3, depth)), ("f32", flat)], ("f32", (2, 3, ROWS)),
            ir.data([("transpose_a", "false"), ("transpose_b", "true")]),
        ),
        ir.result(11, "y", (2, 3, ROWS)),
    ]  # fmt: skip
    edges = [ir.edge(1, 0, 2, 0), ir.edge(5, 0, 6, 1), ir.edge(9, 1, 10, 1)]
    if swish:
        product = (2, 3, ROWS)
        inputs, outputs = [ir.typed_port(0, "f32", product)], [ir.typed_port(1, "f32", product)]
        layers.append(ir.layer(15, "silu", "Swish", "opset4", "", inputs, outputs))
        edges += [ir.edge(10, 2, 15, 0), ir.edge(15, 1, 11, 0)]
    else:
        edges.append(ir.edge(10, 2, 11, 0))
    if normalized:
        x = (2, 3, depth)
        norm = [("eps", "9.9999997473787516e-06"), ("normalize_variance", "true")]
        layers += [
            ir.typed_const(13, "axes", "i64", (1,), offsets[4], len(blobs[4])),
            ir.layer(
                14, "norm", "MVN", "opset6", ir.data([*norm, ("eps_mode", "INSIDE_SQRT")]),
                [ir.typed_port(0, "f32", x), ir.typed_port(1, "i64", (1,))],
                [ir.typed_port(2, "f32", x)],
            ),
        ]  # fmt: skip
        edges += [ir.edge(0, 0, 14, 0), ir.edge(13, 0, 14, 1), ir.edge(14, 2, 10, 0)]
    else:
        edges.append(ir.edge(0, 0, 10, 0))
    if zero_point:
        layers += [
            ir.typed_const(3, "zp", element_type, one, offsets[1], len(blobs[1])),
            ir.typed_layer(4, "Convert", [(element_type, one)], ("f16", one), to_f16),
            ir.typed_layer(7, "Subtract", [("f16", grouped), ("f16", one)], ("f16", grouped)),
        ]
        edges += [
            ir.edge(3, 0, 4, 0),
            ir.edge(2, 1, 7, 0),
            ir.edge(4, 1, 7, 1),
            ir.edge(7, 2, 6, 0),
        ]
    else:
        edges.append(ir.edge(2, 1, 6, 0))
    if grouped != flat:
        layers += [
            ir.typed_const(8, "pattern", "i64", (2,), offsets[3], len(blobs[3])),
            ir.typed_layer(
                12, "Reshape", [("f16", grouped), ("i64", (2,))], ("f16", flat),
                ir.data([("special_zero", "false")]),
            ),
        ]  # fmt: skip
        edges += [ir.edge(6, 2, 12, 0), ir.edge(8, 0, 12, 1), ir.edge(12, 2, 9, 0)]
    else:
        edges.append(ir.edge(6, 2, 9, 0))
    return ir.write(directory, ir.net(layers, edges), b"".join(blobs))


def activations(kind: str, depth: int) -> NDArray[np.float32]:
    """x [2, 3, K]: `random` normal values; `ties` half a step from a step as f32 rounds
    that (each group's maximum kept); `zeros` whole groups and single elements of zero;
    `huge` values near 1e30 in some groups; `nonfinite` an inf, a -inf and a NaN in groups
    of rows 0, 2 and 4. A K not a multiple of 32 is made so padded with zeros (each group's
    maximum stays inside K), then cut."""
    rng = np.random.default_rng(depth)
    x = rng.standard_normal((2, 3, depth)).astype(np.float32)
    x = np.pad(x, ((0, 0), (0, 0), (0, -depth % 32)))
    groups = x.reshape(6, -1, 32)
    if kind == "ties":
        scale = np.abs(groups).max(axis=-1, keepdims=True) / np.float32(127)
        steps = rng.integers(-126, 126, groups.shape).astype(np.float32)
        halfway = ((steps + np.float32(0.5)) * scale).astype(np.float32)
        inside = np.abs(groups) < np.abs(groups).max(axis=-1, keepdims=True)
        groups[...] = np.where(inside, halfway, groups)
    elif kind == "zeros":
        groups[0, 0] = 0
        groups[1] = 0
        groups[2, :, ::3] = 0
    elif kind == "huge":
        groups[0, 0] *= np.float32(1e30)
        groups[3, -1] *= np.float32(3e36)
    elif kind == "nonfinite":
        groups[0, 0, 5] = np.inf
        groups[2, -1, 0] = -np.inf
        groups[4, 0, 31] = np.nan
    return np.ascontiguousarray(x[..., :depth])


@pytest.mark.parametrize("kind", ["random", "ties", "zeros", "huge"])
@pytest.mark.parametrize(("element_type", "group", "zero_point", "depth"), CASES)
def test_products_sum_as_on_the_cpu(
    tmp_path: Path, element_type: str, group: int, zero_point: bool, depth: int, kind: str
) -> None:
    path = write_model(tmp_path, element_type, group, zero_point, depth)
    model = irpool.load(path)
    assert model.validate() == []
    x = activations(kind, depth)
    (found,) = model.run({"x": x}).values()
    expected = ov.Core().compile_model(path, "CPU", CPU_CONFIG)({"x": x})[0]
    np.testing.assert_array_equal(found, expected)


@pytest.mark.parametrize("kind", ["random", "zeros", "huge"])
@pytest.mark.parametrize(("element_type", "group", "zero_point", "depth"), CHAINED)
def test_grouped_products_chain_as_on_the_cpu(
    tmp_path: Path, element_type: str, group: int, zero_point: bool, depth: int, kind: str
) -> None:
    path = write_model(tmp_path, element_type, group, zero_point, depth)
    x = activations(kind, depth)
    (found,) = irpool.load(path).run({"x": x}).values()
    expected = ov.Core().compile_model(path, "CPU", CPU_CONFIG)({"x": x})[0]
    np.testing.assert_array_equal(found, expected)


@pytest.mark.parametrize(
    ("element_type", "group", "zero_point"), [("i4", 32, False), ("u8", 0, True)]
)
def test_a_layer_norm_then_products_as_on_the_cpu(
    tmp_path: Path, element_type: str, group: int, zero_point: bool
) -> None:
    """A GPT-2 block's LayerNorm into its c_fc (`int4 --sym`: i4 in groups of 32; int8: u8
    per row): the MVN's last bits decide the activations' int8 scales and steps, so the
    products equal the CPU's only where the MVN sums as its kernel does
    (docs/ops/MVN.md#values)."""
    path = write_model(tmp_path, element_type, group, zero_point, 96, normalized=True)
    rng = np.random.default_rng(96)
    for offset in (0, 3, -20):
        x = (rng.standard_normal((2, 3, 96)) * 2 + offset).astype(np.float32)
        (found,) = irpool.load(path).run({"x": x}).values()
        expected = ov.Core().compile_model(path, "CPU", CPU_CONFIG)({"x": x})[0]
        np.testing.assert_array_equal(found, expected)


@pytest.mark.parametrize(
    ("element_type", "group", "zero_point", "depth"), [CHAINED[0], CHAINED[2], CHAINED[4]]
)
def test_a_swish_after_a_chained_product_as_on_the_cpu(
    tmp_path: Path, element_type: str, group: int, zero_point: bool, depth: int
) -> None:
    """A Swish reading a product summed as one FMA chain (an int4 LLM's gate_proj in groups of
    16): the product is the CPU's to the bit, so the Swish takes the CPU's polynomial exp,
    not NumPy's (irpool/cpu/product_activations.py)."""
    path = write_model(tmp_path, element_type, group, zero_point, depth, swish=True)
    x = activations("random", depth) * np.float32(4)
    (found,) = irpool.load(path).run({"x": x}).values()
    expected = ov.Core().compile_model(path, "CPU", CPU_CONFIG)({"x": x})[0]
    np.testing.assert_array_equal(found, expected)


def test_a_nonfinite_group_leaves_the_other_rows_exact(tmp_path: Path) -> None:
    """A group holding inf or NaN is not modelled: the CPU gives +-inf or NaN on every output
    of a row whose group holds an inf (signs that are not those of its steps times the codes)
    and drops or keeps a NaN as its maximum's order has it; irpool gives NaN on those rows.
    The rows without one stay bit for bit. An AVX2 host quantizes no activations: its FMA
    chains carry inf and NaN as IEEE arithmetic does, and every output is its bits."""
    path = write_model(tmp_path, "u4", 64, True, 128)
    x = activations("nonfinite", 128)
    (found,) = irpool.load(path).run({"x": x}).values()
    expected = ov.Core().compile_model(path, "CPU", CPU_CONFIG)({"x": x})[0]
    if cpu_isa() != AVX512_CORE:
        np.testing.assert_array_equal(found, expected)
        return
    found, expected = found.reshape(6, ROWS), expected.reshape(6, ROWS)
    np.testing.assert_array_equal(found[[1, 3, 5]], expected[[1, 3, 5]])
    assert not np.isfinite(expected[[0, 2]]).any()
    assert np.isnan(found[[0, 2, 4]]).all()
