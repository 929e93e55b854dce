"""irpool.cpu.isa: the instruction set the CPU plugin computes with, from the host's flags and
ONEDNN_MAX_CPU_ISA as oneDNN reads them (docs/cpu.md#instruction-sets)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from irpool.cpu import isa
from irpool.cpu.isa import (
    AVX2,
    AVX512_CORE,
    AVX512_CORE_BF16,
    AVX512_CORE_VNNI,
    OLDER,
    bf16_isa,
    capped_below_host,
    capped_isa,
    cpu_isa,
    host_cpu_isa,
    host_isa,
    instruction_set,
    int8_isa,
)

ZEN4_FLAGS = ["fma", "avx", "avx2", "avx512f", "avx512dq", "avx512cd", "avx512bw", "avx512vl"]


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (ZEN4_FLAGS, AVX512_CORE),  # a Skylake-SP Xeon likewise
        ([*ZEN4_FLAGS, "avx512_vnni"], AVX512_CORE_VNNI),  # Cascade Lake, Ice Lake
        ([*ZEN4_FLAGS, "avx512_vnni", "avx512_bf16"], AVX512_CORE_BF16),  # Zen4, Sapphire Rapids
        (["avx", "avx2", "fma"], AVX2),  # Zen2, Zen3
        (["avx2", "avx512f", "avx512cd"], AVX2),  # Knights Landing: no avx512bw, vl, dq
        (["sse4_1", "avx"], OLDER),
        ([], OLDER),
    ],
)
def test_host_isa(flags: list[str], expected: str) -> None:
    assert host_isa(frozenset(flags)) == expected


@pytest.mark.parametrize(
    ("host", "limit", "expected"),
    [
        (AVX512_CORE, None, AVX512_CORE),
        (AVX512_CORE, "", AVX512_CORE),
        (AVX512_CORE, "ALL", AVX512_CORE),
        (AVX512_CORE, "default", AVX512_CORE),
        (AVX512_CORE, "AVX2", AVX2),
        (AVX512_CORE, "avx2_vnni", AVX2),
        (AVX512_CORE, "AVX512_CORE_BF16", AVX512_CORE),
        (AVX512_CORE, "AVX10_1_512", AVX512_CORE),
        (AVX512_CORE_BF16, None, AVX512_CORE_BF16),
        (AVX512_CORE_BF16, "AVX512_CORE_AMX", AVX512_CORE_BF16),
        (AVX512_CORE_BF16, "avx512_core_bf16", AVX512_CORE_BF16),
        (AVX512_CORE_BF16, "AVX512_CORE_VNNI", AVX512_CORE_VNNI),
        (AVX512_CORE_VNNI, "AVX512_CORE_BF16", AVX512_CORE_VNNI),
        (AVX512_CORE_BF16, "AVX512_CORE", AVX512_CORE),
        (AVX512_CORE_VNNI, "AVX512_CORE", AVX512_CORE),
        (AVX512_CORE_BF16, "AVX2", AVX2),
        (AVX512_CORE, "SSE41", OLDER),
        (AVX512_CORE, "AVX", OLDER),
        (AVX2, "AVX512_CORE", AVX2),  # a cap never raises the host's set
        (OLDER, "AVX2", OLDER),
    ],
)
def test_capped_isa(host: str, limit: str | None, expected: str) -> None:
    assert capped_isa(host, limit) == expected


@pytest.fixture
def uncached() -> Iterator[None]:
    instruction_set.cache_clear()
    host_cpu_isa.cache_clear()
    yield
    instruction_set.cache_clear()
    host_cpu_isa.cache_clear()


@pytest.mark.usefixtures("uncached")
@pytest.mark.parametrize(
    ("variable", "value"), [("ONEDNN_MAX_CPU_ISA", "avx2"), ("DNNL_MAX_CPU_ISA", "AVX2")]
)
def test_cpu_isa_honours_the_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA", raising=False)
    monkeypatch.delenv("DNNL_MAX_CPU_ISA", raising=False)
    monkeypatch.setattr(
        isa, "_cpuinfo_flags", lambda: frozenset([*ZEN4_FLAGS, "avx512_vnni", "avx512_bf16"])
    )
    assert (cpu_isa(), bf16_isa(), int8_isa()) == (AVX512_CORE, AVX512_CORE_BF16, AVX512_CORE_VNNI)
    assert not capped_below_host()
    instruction_set.cache_clear()
    monkeypatch.setenv(variable, value)
    assert (cpu_isa(), bf16_isa(), int8_isa()) == (AVX2, AVX2, AVX2)
    assert capped_below_host()  # an AVX2 host emulated on an AVX-512 one
    assert host_cpu_isa() == AVX512_CORE  # as the MVN and RMS nodes pick their kernels
    monkeypatch.setattr(isa, "_cpuinfo_flags", lambda: frozenset(["fma", "avx", "avx2"]))
    host_cpu_isa.cache_clear()
    assert host_cpu_isa() == AVX2  # a Zen3's


@pytest.mark.usefixtures("uncached")
@pytest.mark.parametrize(
    ("value", "int8"), [("AVX512_CORE", AVX512_CORE), ("avx512_core_vnni", AVX512_CORE_VNNI)]
)
def test_a_xeon_without_avx512_bf16(monkeypatch: pytest.MonkeyPatch, value: str, int8: str) -> None:
    flags = frozenset([*ZEN4_FLAGS, "avx512_vnni", "avx512_bf16"])
    monkeypatch.setattr(isa, "_cpuinfo_flags", lambda: flags)
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", value)
    assert (cpu_isa(), bf16_isa(), int8_isa()) == (AVX512_CORE, AVX512_CORE, int8)


@pytest.mark.usefixtures("uncached")
def test_cpu_isa_without_cpuinfo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA", raising=False)
    monkeypatch.delenv("DNNL_MAX_CPU_ISA", raising=False)
    monkeypatch.setattr(isa, "CPUINFO", isa.Path("/nonexistent/cpuinfo"))
    assert cpu_isa() == OLDER
