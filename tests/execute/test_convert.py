"""Convert's kernel and folding against what OpenVINO's CPU plugin gave (tests/golden/
convert_cpu.json, written by tools/gen_convert_golden.py with the real runtime): every source
and destination type, on each type's edge cases, bit for bit, for a Parameter (the kernel), a
Const (OpenVINO's folding, then the plugin's constant) and a bare Const. The golden file was
recorded on an AVX512_BF16 host, so these tests convert as one (irpool.cpu.isa.bf16_isa)."""

from __future__ import annotations

import numpy as np
import pytest

from irpool.cpu.isa import AVX2, AVX512_CORE, AVX512_CORE_BF16
from irpool.cpu.numerics import constant_as_held
from irpool.element_types import element_type
from irpool.execute.kernels import convert as convert_kernel
from irpool.execute.kernels.convert import convert
from irpool.ops.convert_fold import fold
from tests.execute.convert_golden import CONSTANTS, FOLDED, PAIRS, TABLE, decoded


@pytest.fixture(autouse=True)
def avx512_bf16_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(convert_kernel, "bf16_isa", lambda: AVX512_CORE_BF16)


@pytest.mark.parametrize(("source", "destination"), PAIRS, ids=[f"{s}-{d}" for s, d in PAIRS])
def test_convert_matches_the_cpu_plugin(source: str, destination: str) -> None:
    row = TABLE[source]
    given = decoded(row["input"], source)
    expected = decoded(row[destination], destination)
    got = convert(given, destination)
    assert got.dtype == expected.dtype
    assert np.array_equal(got, expected, equal_nan=got.dtype.kind == "f"), (
        f"{source}->{destination}: input {given.tolist()}\n got {got.tolist()}\n"
        f"cpu {expected.tolist()}"
    )


@pytest.mark.parametrize(
    ("source", "value", "bf16_bits"),
    [
        ("f64", 3e9, 0x4F32),  # f32 0x4f32d05e: even, truncated (nearest even: 0x4f33)
        ("f64", 1.257302210933933e34, 0x781A),  # 0x781af976: even, truncated
        ("f64", -5.356693731611109e-29, 0x9088),  # 0x9087ceee: odd, rounded up
        ("f64", 1e300, 0x7F7F),  # beyond bf16's largest: clamped, not rounded to inf
        ("f64", float("inf"), 0x7F7F),
        ("u32", 2**32 - 1, 0x4F80),  # f32 0x4f800000 already
        ("u32", 853945013, 0x4E4C),  # 0x4e4b98ab: odd, rounded up
        ("i32", 1035104509, 0x4E76),  # 0x4e76c9c4: even, truncated
        ("u64", 2**64 - 1, 0x5F80),
    ],
)
def test_bf16_from_wide_sources_rounds_as_the_cpu(
    source: str, value: float, bf16_bits: int
) -> None:
    """Measured on the CPU: f64 and integer sources use ov::bfloat16's scalar rounding, which
    rounds half up after an odd value and truncates after an even one."""
    got = convert(np.array([value], dtype=element_type(source).dtype), "bf16")
    assert got.view(np.uint32)[0] >> 16 == bf16_bits


@pytest.mark.parametrize(
    ("f32_bits", "static", "dynamic"),
    [
        (0x3F80C000, 0x3F81, 0x3F80),  # nearest even / truncated after an even value
        (0x3F81C000, 0x3F82, 0x3F82),
        (0x00008001, 0x0000, 0x0000),  # a subnormal: zero / rounded as any value
        (0x00018001, 0x0000, 0x0002),
        (0x80018001, 0x8000, 0x8002),
        (0x7F7FFFFF, 0x7F80, 0x7F80),  # f32's largest overflows to inf on both paths
        (0x7F800001, 0x7FC0, 0x7F80),  # a signalling NaN: quieted / its bits, so inf
        (0x7FFFFFFF, 0x7FFF, 0x8000),
        (0xFF800000, 0xFF80, 0xFF80),
    ],
)
def test_bf16_from_f32_depends_on_whether_the_shape_is_static(
    f32_bits: int, static: int, dynamic: int
) -> None:
    """Measured: the CPU rounds f32 of a static shape with VCVTNEPS2BF16, of a dynamic shape
    with ov::bfloat16's scalar rule."""
    values = np.array([f32_bits], np.uint32).view(np.float32)
    for dynamic_kernel, expected in ((False, static), (True, dynamic)):
        got = convert(values, "bf16", dynamic_kernel).view(np.uint32)[0] >> 16
        assert got == expected, f"dynamic input {dynamic_kernel}: {got:#x}"


@pytest.mark.parametrize(
    ("f32_bits", "avx512_bf16", "avx512_core", "avx2"),
    [
        (0x3F808000, 0x3F80, 0x3F80, 0x3F80),  # a tie after an even value
        (0x3F818000, 0x3F82, 0x3F82, 0x3F82),  # a tie after an odd value
        (0x3F80FFFF, 0x3F81, 0x3F81, 0x3F80),  # above the tie: truncated after an even value
        (0xC30CCCCD, 0xC30D, 0xC30D, 0xC30C),  # -140.8: -141, -141, -140
        (0x7F7F8000, 0x7F80, 0x7F80, 0x7F80),  # overflows to inf
        (0x7F800001, 0x7FC0, 0x7FC0, 0x7F80),  # a signalling NaN: quieted / its bits, so inf
        (0x7FA00000, 0x7FE0, 0x7FE0, 0x7FA0),
        (0x7FFFFFFF, 0x7FFF, 0x7FFF, 0x8000),
        (0x00018000, 0x0000, 0x0002, 0x0002),  # subnormals: flushed only with AVX512_BF16
        (0x0000FFFF, 0x0000, 0x0001, 0x0000),
        (0x807FFFFF, 0x8000, 0x8080, 0x8080),
    ],
)
def test_bf16_from_static_f32_takes_the_hosts_rule(
    monkeypatch: pytest.MonkeyPatch, f32_bits: int, avx512_bf16: int, avx512_core: int, avx2: int
) -> None:
    """Measured with ONEDNN_MAX_CPU_ISA=AVX512_CORE, AVX512_CORE_VNNI (both as AVX512_CORE) and
    AVX2 (docs/ops/Convert.md#the-hosts-instruction-set)."""
    values = np.array([f32_bits], np.uint32).view(np.float32)
    for isa, expected in (
        (AVX512_CORE_BF16, avx512_bf16),
        (AVX512_CORE, avx512_core),
        (AVX2, avx2),
    ):
        monkeypatch.setattr(convert_kernel, "bf16_isa", lambda isa=isa: isa)
        got = convert(values, "bf16").view(np.uint32)[0] >> 16
        assert got == expected, f"{isa}: {got:#x}"


@pytest.mark.parametrize(
    ("value", "avx512", "avx2"),
    [
        (1e300, 0x7F7F, 0x7F80),  # saturated to bf16's largest / f32's largest, rounded to inf
        (float("-inf"), 0xFF7F, 0xFF80),
        (3.3895313892515355e38, 0x7F7F, 0x7F7F),  # bf16's largest
        (3.3961775292304e38, 0x7F7F, 0x7F80),  # f32 0x7f7f8000: a tie after an odd value
        (-140.8, 0xC30C, 0xC30C),
    ],
)
def test_bf16_from_f64_saturates_only_with_avx512(
    monkeypatch: pytest.MonkeyPatch, value: float, avx512: int, avx2: int
) -> None:
    """Measured with ONEDNN_MAX_CPU_ISA=AVX2: f64 is not saturated to bf16's range there."""
    for isa, expected in ((AVX512_CORE, avx512), (AVX2, avx2)):
        monkeypatch.setattr(convert_kernel, "bf16_isa", lambda isa=isa: isa)
        got = convert(np.array([value]), "bf16").view(np.uint32)[0] >> 16
        assert got == expected, f"{isa}: {got:#x}"


@pytest.mark.parametrize("isa", [AVX512_CORE_BF16, AVX512_CORE, AVX2])
def test_bf16_from_f16_quiets_nan_on_both_paths(monkeypatch: pytest.MonkeyPatch, isa: str) -> None:
    monkeypatch.setattr(convert_kernel, "bf16_isa", lambda: isa)
    signalling = np.array([0x7C01], np.uint16).view(np.float16)
    for dynamic_kernel in (False, True):
        assert convert(signalling, "bf16", dynamic_kernel).view(np.uint32)[0] >> 16 == 0x7FC0


def test_bf16_from_f64_carries_nan_bits_through_the_rounding() -> None:
    """Measured: f64 NaN 0x7fffffffffffffff (f32 0x7fffffff) converts to 0x8000, -0.0."""
    nans = np.array([0x7FF8000000000000, 0x7FFFFFFFFFFFFFFF], np.uint64).view(np.float64)
    got = convert(nans, "bf16").view(np.uint32) >> 16
    assert got.tolist() == [0x7FC0, 0x8000]


@pytest.mark.parametrize(("source", "destination"), PAIRS, ids=[f"{s}-{d}" for s, d in PAIRS])
def test_folding_then_the_plugins_constant_matches_the_cpu(source: str, destination: str) -> None:
    given = decoded(TABLE[source]["input"], source)
    expected = decoded(FOLDED[source][destination], destination)
    got = constant_as_held(fold(given, destination), destination)
    assert got.dtype == expected.dtype
    assert np.array_equal(got, expected, equal_nan=got.dtype.kind == "f"), (
        f"{source}->{destination}: input {given.tolist()}\n got {got.tolist()}\n"
        f"cpu {expected.tolist()}"
    )


@pytest.mark.parametrize("element_type", list(CONSTANTS))
def test_constants_are_held_as_the_cpu_holds_them(element_type: str) -> None:
    given = decoded(TABLE[element_type]["input"], element_type)
    expected = decoded(CONSTANTS[element_type], element_type)
    got = constant_as_held(given, element_type)
    assert np.array_equal(got, expected, equal_nan=got.dtype.kind == "f"), got.tolist()


def test_scalars_keep_their_rank() -> None:
    assert convert(np.array(True), "bf16").shape == ()
