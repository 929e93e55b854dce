"""How much memory the machine can give and a run will take, so it can refuse before
allocating."""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import cache
from math import prod
from pathlib import Path

from irpool.ops.base import numpy_dtype

# What a pooling kernel holds besides its output: the driver works through blocks of N x C
# planes of at most 8 MiB (a few alive at once), and per-output geometry (divisor grids,
# per-axis matrices) in f64.
BLOCK_ALLOWANCE = 64 << 20
GEOMETRY_BYTES_PER_OUTPUT = 8


# Reading the memory available costs more than a small run (tens of microseconds): a run
# whose peak is below 1/CHECK_SHARE of the machine's memory is not checked.
CHECK_SHARE = 16


@cache
def physical_memory() -> int:
    """Bytes of memory the machine has (MemTotal on Linux); it does not change, so read once.
    0 when unknown: every run is then checked."""
    return _memory("MemTotal", "SC_PHYS_PAGES", 0)


def available_memory() -> int:
    """Bytes available for new allocations (MemAvailable on Linux, free pages elsewhere);
    unknown: as much as can be asked, so nothing is refused."""
    return _memory("MemAvailable", "SC_AVPHYS_PAGES", 1 << 62)


def _memory(meminfo_field: str, sysconf_pages: str, unknown: int) -> int:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith(f"{meminfo_field}:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf(sysconf_pages) * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return unknown


def tensor_bytes(shape: Sequence[int], element_type: str) -> int:
    """The size of a NumPy array holding a tensor (bf16 is held as f32; unknown types are
    counted at 8 bytes an element, the widest)."""
    dtype = numpy_dtype("f32" if element_type == "bf16" else element_type)
    return prod(shape) * (dtype.itemsize if dtype is not None else 8)


def working_bytes(output_shape: Sequence[int]) -> int:
    """An upper estimate of the memory a kernel needs besides its output, which depends on
    one output plane, never on N x C (the driver processes blocks of planes)."""
    return BLOCK_ALLOWANCE + prod(output_shape[2:]) * GEOMETRY_BYTES_PER_OUTPUT


def format_bytes(count: int) -> str:
    value = float(count)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024 or unit == "PiB":
            return f"{count} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")
