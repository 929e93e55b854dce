"""The instruction set OpenVINO's CPU plugin computes with on this host
(docs/cpu.md#instruction-sets).

oneDNN, and the plugin's kernels through it, pick a path by the host's instruction set: AVX-512
("avx512_core": avx512f, avx512bw, avx512vl and avx512dq), else AVX2, else an older one. bf16
conversions use AVX512_BF16's instructions where the host also has the avx512_bf16 flag
("avx512_core_bf16": AMD Zen4 and later, Intel Cooper Lake, Sapphire Rapids and later; Intel
Skylake-SP, Cascade Lake and Ice Lake Xeons lack it). int8 products sum u8 x i8 exactly with
AVX512_VNNI ("avx512_core_vnni": also Cascade Lake and Ice Lake); without it (Skylake-SP) in
16-bit pairs, which saturate. The environment variable
ONEDNN_MAX_CPU_ISA (or DNNL_MAX_CPU_ISA), read case-insensitively as oneDNN reads it, caps that
choice, so `ONEDNN_MAX_CPU_ISA=AVX2` makes an AVX-512 host compute as an AVX2 one, and
`AVX512_CORE_VNNI` as an AVX-512 one without AVX512_BF16 and `AVX512_CORE` as one without
AVX512_VNNI either. Read once a process, as oneDNN reads it.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

AVX512_CORE_BF16 = "avx512_core_bf16"
AVX512_CORE_VNNI = "avx512_core_vnni"
AVX512_CORE = "avx512_core"
AVX2 = "avx2"
OLDER = "older"
_RANKED = (OLDER, AVX2, AVX512_CORE, AVX512_CORE_VNNI, AVX512_CORE_BF16)
_AVX512_CORE_FLAGS = frozenset({"avx512f", "avx512bw", "avx512vl", "avx512dq"})
CPUINFO = Path("/proc/cpuinfo")


def host_isa(flags: frozenset[str]) -> str:
    """The instruction set of a CPU with these /proc/cpuinfo flags."""
    if flags >= _AVX512_CORE_FLAGS:
        if "avx512_bf16" in flags:
            return AVX512_CORE_BF16
        return AVX512_CORE_VNNI if "avx512_vnni" in flags else AVX512_CORE
    return AVX2 if "avx2" in flags else OLDER


def capped_isa(isa: str, limit: str | None) -> str:
    """`isa` capped by a ONEDNN_MAX_CPU_ISA value (None, empty, "all" or "default": no cap)."""
    name = (limit or "").strip().lower()
    if name == "avx512_core":  # oneDNN ranks it below avx512_core_vnni, below avx512_core_bf16
        cap = AVX512_CORE
    elif name == "avx512_core_vnni":
        cap = AVX512_CORE_VNNI
    elif name.startswith(("avx512", "avx10")) or name in ("", "all", "default"):
        cap = AVX512_CORE_BF16  # avx512_core_bf16, _fp16, _amx, _amx_fp16, avx10_*
    elif name.startswith("avx2"):
        cap = AVX2
    else:  # sse41, avx
        cap = OLDER
    return min(isa, cap, key=_RANKED.index)


def _cpuinfo_flags() -> frozenset[str]:
    try:
        text = CPUINFO.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return frozenset(value.split())
    return frozenset()


@cache
def instruction_set() -> str:
    """The instruction set oneDNN computes with on this host: AVX512_CORE_BF16,
    AVX512_CORE_VNNI, AVX512_CORE, AVX2 or OLDER."""
    limit = os.environ.get("ONEDNN_MAX_CPU_ISA", os.environ.get("DNNL_MAX_CPU_ISA"))
    return capped_isa(host_isa(_cpuinfo_flags()), limit)


def bf16_isa() -> str:
    """The instruction set the CPU plugin converts to bf16 with on this host: AVX512_CORE_BF16,
    AVX512_CORE, AVX2 or OLDER (AVX512_VNNI changes no bf16 conversion)."""
    isa = instruction_set()
    return AVX512_CORE if isa == AVX512_CORE_VNNI else isa


def int8_isa() -> str:
    """The instruction set the CPU plugin's int8 products use on this host: AVX512_CORE_VNNI,
    AVX512_CORE, AVX2 or OLDER (AVX512_BF16 changes no int8 product)."""
    return min(instruction_set(), AVX512_CORE_VNNI, key=_RANKED.index)


def cpu_isa() -> str:
    """The instruction set the CPU plugin's f32 kernels use on this host: AVX512_CORE, AVX2 or
    OLDER (AVX512_BF16 changes no f32 kernel)."""
    return min(instruction_set(), AVX512_CORE, key=_RANKED.index)


@cache
def host_cpu_isa() -> str:
    """The instruction set of this host's f32 kernels without ONEDNN_MAX_CPU_ISA's cap, for the
    plugin nodes that pick their kernel so (MVN, RMS, Reduce, TopK and the attention node's
    intrinsics: docs/cpu.md#instruction-sets). Read once a process."""
    return min(host_isa(_cpuinfo_flags()), AVX512_CORE, key=_RANKED.index)


def capped_below_host() -> bool:
    """Whether ONEDNN_MAX_CPU_ISA makes this host compute as an older one (an emulation, which
    some plugin nodes ignore: docs/cpu.md#instruction-sets)."""
    return instruction_set() != host_isa(_cpuinfo_flags())
