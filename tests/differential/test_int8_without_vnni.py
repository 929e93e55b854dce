"""Live differential test: int8 Convolutions and MatMuls as the CPU computes them with and
without AVX512_VNNI, and on AVX2 (irpool/cpu/int8_pairs.py), each instruction set in a
process of its own with ONEDNN_MAX_CPU_ISA set (tests/differential/capped.py). An i8
Convolution (s8 data, whose filters the CPU halves without VNNI), NNCF's FakeQuantize ->
Convolution or MatMul by i8 codes (whose u8 x i8 pairs saturate without VNNI) on large levels
and codes, and an i8 MatMul by i8 weights (pairs of the data shifted by 128). Levels, codes
and scales are whole numbers, so every sum is exact in f32: irpool's outputs must equal the
CPU's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from irpool.cpu.isa import AVX2, AVX512_CORE, AVX512_CORE_VNNI
from tests.differential.capped import host_can_take, run_capped

ov = pytest.importorskip("openvino")

pytestmark = pytest.mark.oracle

o1 = ov.opset1
ISAS = [AVX512_CORE_VNNI, AVX512_CORE, AVX2]
CHANNELS = 5  # odd: the last channel's partner in a pair is the kernel's zero padding


def _i8_convolution(grouped: bool) -> tuple[Any, NDArray[Any]]:
    """i8 [2, 5, 7, 6] by i8 filters 3x3 (pads 1): a Convolution to 4 channels, or a depthwise
    GroupConvolution; values small enough that the i8 output rarely saturates."""
    rng = np.random.default_rng(1 + grouped)
    x = o1.parameter([2, CHANNELS, 7, 6], ov.Type.i8, name="x")
    shape = (CHANNELS, 1, 1, 3, 3) if grouped else (4, CHANNELS, 3, 3)
    filters = o1.constant(rng.integers(-5, 6, shape).astype(np.int8))
    window = ([1, 1], [1, 1], [1, 1], [1, 1])
    product = o1.group_convolution if grouped else o1.convolution
    model = ov.Model([product(x, filters, *window)], [x])
    return model, rng.integers(-20, 21, (2, CHANNELS, 7, 6)).astype(np.int8)


def _quantized(product: str, signed: bool) -> tuple[Any, NDArray[Any]]:
    """FakeQuantize (256 levels of step 1, from 0 or -128) -> Convolution 3x3 (pads 1) or
    MatMul (transposed B) by i8 codes through Convert and Multiply by 1, as NNCF writes them;
    a third of the levels the top one and a third of the codes ±127."""
    rng = np.random.default_rng(3 + signed)
    shape = [2, CHANNELS, 6, 6] if product == "Convolution" else [2, 7, 3 * CHANNELS]
    low = -128.0 if signed else 0.0
    x = o1.parameter(shape, ov.Type.f32, name="x")
    bounds = (np.float32(low), np.float32(low + 255))
    data = o1.fake_quantize(x, *(o1.constant(b) for b in bounds * 2), 256)
    w_shape = (8, CHANNELS, 3, 3) if product == "Convolution" else (8, 3 * CHANNELS)
    codes = rng.integers(-128, 128, w_shape)
    codes = np.where(rng.random(w_shape) < 1 / 3, rng.choice([-127, 127], w_shape), codes)
    ones = np.ones((8,) + (1,) * (len(w_shape) - 1), np.float32)
    weights = o1.convert(o1.constant(codes.astype(np.int8)), ov.Type.f32)
    weights = o1.multiply(weights, o1.constant(ones))
    if product == "Convolution":
        y = o1.convolution(data, weights, [1, 1], [1, 1], [1, 1], [1, 1])
    else:
        y = o1.matmul(data, weights, False, True)
    levels = rng.integers(0, 256, shape)
    levels = np.where(rng.random(shape) < 1 / 3, 255, levels)
    return ov.Model([y], [x]), (levels + low).astype(np.float32)


def _i8_matmul() -> tuple[Any, NDArray[Any]]:
    """i8 [2, 7, 15] by i8 weights [8, 15] (transposed B): the CPU shifts the data by 128;
    weights in fours a, b, -a, -b of large codes on data mostly 127, whose exact sums are
    small (the i8 output rarely saturates) but whose pairs saturate."""
    rng = np.random.default_rng(7)
    large = rng.choice([-1, 1], (8, 3, 2)) * rng.integers(100, 128, (8, 3, 2))
    codes = np.concatenate([large, -large], axis=2).reshape(8, 12)
    codes = np.concatenate([codes, rng.integers(-5, 6, (8, 3))], axis=1).astype(np.int8)
    x = o1.parameter([2, 7, 3 * CHANNELS], ov.Type.i8, name="x")
    model = ov.Model([o1.matmul(x, o1.constant(codes), False, True)], [x])
    data = np.where(rng.random((2, 7, 15)) < 2 / 3, 127, rng.integers(-128, 128, (2, 7, 15)))
    return model, data.astype(np.int8)


CASES = {
    "i8 Convolution": lambda: _i8_convolution(False),
    "i8 depthwise GroupConvolution": lambda: _i8_convolution(True),
    "FakeQuantize u8 -> Convolution": lambda: _quantized("Convolution", False),
    "FakeQuantize around 0 -> Convolution": lambda: _quantized("Convolution", True),
    "FakeQuantize u8 -> MatMul": lambda: _quantized("MatMul", False),
    "FakeQuantize around 0 -> MatMul": lambda: _quantized("MatMul", True),
    "i8 MatMul": _i8_matmul,
}


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("case", list(CASES))
def test_int8_products_take_the_instruction_sets_sums(tmp_path: Path, case: str, isa: str) -> None:
    if not host_can_take(isa):
        pytest.skip(f"the plugin's {isa} kernels need an {isa} host")
    model, x = CASES[case]()
    path = tmp_path / "model.xml"
    ov.save_model(model, path, compress_to_fp16=False)
    expected, found = run_capped(isa, path, {"x": x})
    assert found.dtype == expected.dtype
    differ = np.flatnonzero(found != expected)
    assert differ.size == 0, (
        f"{differ.size} of {found.size} differ: irpool {found.ravel()[differ][:6]}, "
        f"CPU {expected.ravel()[differ][:6]}"
    )
