"""How much memory the machine can give and a run will take, so it can refuse before
allocating."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from functools import cache, lru_cache
from math import prod
from pathlib import Path
from typing import TYPE_CHECKING

from irpool.element_types import ElementType
from irpool.execute.engine.costs import CHUNK_BYTES
from irpool.execute.errors import ExecutionError

if TYPE_CHECKING:
    from irpool.execute.plan import Ref, Step
    from irpool.shape import Shape

# What a pooling kernel holds besides its output: the block loop works through blocks of
# N x C planes of CHUNK_BYTES (several alive at once: the block in the compute dtype, pass
# buffers, phases, one set per thread), per-output geometry (divisor grids) in f64, and per
# spatial axis what grows with input x output length: two f64 [in, out] matrices (0/1 and
# scaled), a tap table and one Python box object (a range or tuple with its list slot) per
# output index.
BLOCK_ALLOWANCE = 16 * CHUNK_BYTES
GEOMETRY_BYTES_PER_OUTPUT = 8
BOX_OBJECT_BYTES = 128


# Reading the memory available costs more than a small run (tens of microseconds): a run
# whose peak is below 1/CHECK_SHARE of the machine's memory is not checked.
CHECK_SHARE = 16


@cache
def physical_memory() -> int:
    """Bytes of memory the machine has (MemTotal on Linux); it does not change, so read once.
    0 when unknown: every run is then checked."""
    return _memory("MemTotal", "SC_PHYS_PAGES", 0)


def affordable(needed: int) -> bool:
    """Whether `needed` bytes fit in the memory available now; asked only for a noticeable
    share of the machine's, as a run asks."""
    return needed * CHECK_SHARE <= physical_memory() or needed <= available_memory()


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


def tensor_bytes(shape: Sequence[int], element: ElementType) -> int:
    """The size of a NumPy array holding a tensor (in the type's `held_dtype`; types NumPy
    cannot hold are counted at 8 bytes an element, the widest)."""
    dtype = element.held_dtype
    return prod(shape) * (dtype.itemsize if dtype is not None else 8)


def working_bytes(input_shape: Sequence[int], output_shape: Sequence[int]) -> int:
    """An upper estimate of the memory a kernel needs besides its output, which depends on
    one input and one output plane, never on N x C (the driver processes blocks of planes).
    A run-time output size makes the per-axis geometry as large as the output or larger, so
    it is counted before anything is allocated."""
    return _working_bytes(tuple(input_shape), tuple(output_shape))


@lru_cache(maxsize=4096)  # a run asks it of every step it infers again, on the same shapes
def _working_bytes(input_shape: tuple[int, ...], output_shape: tuple[int, ...]) -> int:
    estimate = BLOCK_ALLOWANCE + prod(output_shape[2:]) * GEOMETRY_BYTES_PER_OUTPUT
    if len(input_shape) == len(output_shape):
        for size, out in zip(input_shape[2:], output_shape[2:], strict=True):
            taps = size // max(out, 1) + 2
            estimate += out * (2 * size * 8 + taps * 8 + BOX_OBJECT_BYTES)
    return estimate


def format_bytes(count: int) -> str:
    value = float(count)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024 or unit == "PiB":
            return f"{count} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def replay(
    steps: Sequence[Step],
    shapes: Mapping[Ref, Shape],
    types: dict[Ref, ElementType],
    available: int | None = None,
    keep: bool = False,
    live: int = 0,
) -> int:
    """The peak bytes a run adds: replay its allocations (each layer's outputs, the read ones
    freed after their last reader unless the run `keep`s every one, and the kernel's working
    memory while it computes). Inputs and constants are already in memory. Given the memory
    `available` now, refuse at the first layer that would exceed it, before anything is
    allocated. `live`: the bytes earlier steps hold when these begin."""
    held: dict[Ref, int] = {}
    peak = 0
    for step in steps:
        refs = [(step.layer.id, index) for index in range(len(step.outputs))]
        sizes = {ref: tensor_bytes(shapes[ref].values(), types[ref]) for ref in refs}
        output = sum(sizes.values())
        source = shapes[step.inputs[0]].values() if step.inputs else ()
        working = max((working_bytes(source, shapes[ref].values()) for ref in sizes), default=0)
        if available is not None and live + output + working > available:
            described = ", ".join(f"{shapes[ref]} ({types[ref].name})" for ref in sizes)
            raise ExecutionError(
                f"{step.layer.describe()}: its output {described} needs "
                f"{format_bytes(output)}, and computing it up to {format_bytes(working)} more, "
                f"with {format_bytes(live)} held for other layers; only "
                f"{format_bytes(available)} of memory is available"
            )
        peak = max(peak, live + output + working)
        for index in step.kept:  # an output nothing reads is dropped at once
            ref = (step.layer.id, index)
            held[ref] = sizes[ref]
            live += sizes[ref]
        for source in () if keep else step.frees:
            live -= held.pop(source, 0)
    return peak
