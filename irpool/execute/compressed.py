"""The weights of a MatMul by compressed weights (irpool/cpu/compressed_weights.py), as a run
holds them: kept as the `.bin` holds them and decompressed per use, a block of rows at a time
into a reusable buffer (`keep`: memory follows the `.bin`), or decompressed once when the
model is planned (`decompress`: faster). Either way a product reads the same blocks, so both
give the same bits. IRPOOL_COMPRESSED_WEIGHTS chooses; unset or `auto`, the weights are
decompressed when their f32 size fits in memory with room to spare, else kept
(docs/compressed-weights.md#memory).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.engine.costs import CHUNK_BYTES
from irpool.execute.errors import ExecutionError
from irpool.execute.memory import affordable
from irpool.low_bit import BITS, unpack

if TYPE_CHECKING:
    from irpool.cpu.compressed_weights import Decompression
    from irpool.execute.fold import Candidate, Ref

MODES = ("auto", "keep", "decompress")


def mode_from_environment() -> str:
    """IRPOOL_COMPRESSED_WEIGHTS as it is now: auto (the default), keep or decompress."""
    text = os.environ.get("IRPOOL_COMPRESSED_WEIGHTS", "auto")
    if text not in MODES:
        raise ExecutionError(
            f"IRPOOL_COMPRESSED_WEIGHTS={text!r}: expected auto, keep (decompressed per use) "
            "or decompress (once, when the model is planned)"
        )
    return text


@dataclass(frozen=True, slots=True)
class CompressedWeights:
    """[rows, depth] weights: (quantized - zero_point) * scale in f32, one scale (and zero
    point) per `group` elements of a row."""

    element_type: str  # of the quantized Const: u8, i8, u4 or i4
    quantized: memoryview | NDArray[Any]  # packed bytes (u4, i4), or the u8/i8 values
    rows: int
    depth: int
    group: int
    zero_point: NDArray[np.float32] | None  # [rows, depth // group]
    scale: NDArray[np.float32]  # [rows, depth // group]
    decompressed: NDArray[np.float32] | None = None  # every row, when held so

    @property
    def block_rows(self) -> int:
        """The rows of one block: about CHUNK_BYTES of f32, fixed by the shape alone."""
        return max(1, min(self.rows, CHUNK_BYTES // (4 * self.depth)))

    @property
    def f32_bytes(self) -> int:
        return 4 * self.rows * self.depth

    def block(self, start: int, stop: int, out: NDArray[np.float32]) -> NDArray[np.float32]:
        """Rows [start, stop), decompressed into `out` ([stop - start, depth]) unless held."""
        if self.decompressed is not None:
            return self.decompressed[start:stop]
        count = (stop - start) * self.depth
        if isinstance(self.quantized, np.ndarray):
            values = self.quantized.reshape(self.rows, self.depth)[start:stop]
        else:
            bits = BITS[self.element_type]  # whole bytes per row (checked when planned)
            first, last = start * self.depth * bits // 8, stop * self.depth * bits // 8
            values = unpack(self.element_type, self.quantized[first:last], count)
        groups = out.reshape(stop - start, -1, self.group)
        groups[...] = values.reshape(groups.shape)
        if self.zero_point is not None:
            groups -= self.zero_point[start:stop, :, None]
        groups *= self.scale[start:stop, :, None]
        return out

    def rows_at(self, picks: NDArray[np.int64]) -> NDArray[np.float32]:
        """The rows `picks` names (each in range), decompressed into a new array."""
        if self.decompressed is not None:
            return self.decompressed[picks]
        out = np.empty((len(picks), self.depth), np.float32)
        for index, row in enumerate(picks.tolist()):
            self.block(row, row + 1, out[index : index + 1])
        return out

    def held(self) -> CompressedWeights:
        """These weights with every row decompressed once, block by block."""
        every = np.empty((self.rows, self.depth), np.float32)
        for start in range(0, self.rows, self.block_rows):
            stop = min(self.rows, start + self.block_rows)
            self.block(start, stop, every[start:stop])
        every.flags.writeable = False
        return replace(self, decompressed=every)


def packs_whole_rows(element_type: str, depth: int) -> bool:
    """Whether each row of `depth` elements starts on a byte (a 4-bit row of odd length
    does not: such weights are decompressed once instead)."""
    return depth * BITS.get(element_type, 8) % 8 == 0


def held_as_chosen(weights: list[CompressedWeights], mode: str) -> list[CompressedWeights]:
    """The weights as `mode` holds them; `auto` decompresses them when their f32 size fits
    in the memory available with room to spare."""
    total = sum(w.f32_bytes for w in weights)
    if mode == "decompress" or (mode == "auto" and affordable(2 * total)):
        return [w.held() for w in weights]
    return weights


def compressed_weights(
    found: Mapping[int, Decompression],
    candidates: Sequence[Candidate],
    constants: Mapping[Ref, NDArray[Any]],
    mode: str,
) -> dict[int, CompressedWeights]:
    """Per MatMul or Gather (layer id), its weights as the run holds them in `mode`, from the
    quantized Const's bytes (which nothing folded) and the folded zero point and scale; readers
    of one decompression share one object (held once)."""
    produced = {c.layer.id: c.produced[0] for c in candidates}
    kept: dict[Ref, CompressedWeights] = {}
    for parts in found.values():
        if parts.weights in kept:
            continue
        quantized = produced[parts.quantized[0]]
        rows, depth = produced[parts.weights[0]].shape.values()[-2:]
        if not packs_whole_rows(quantized.element_type, depth):
            continue
        groups = depth // parts.group
        points = None
        if parts.zero_point is not None:
            points = constants[parts.zero_point].astype(np.float32).reshape(rows, groups)
        data = quantized.packed if quantized.packed is not None else quantized.value
        if data is None:  # the weights are unavailable: validation says so
            continue
        scale = constants[parts.scale].astype(np.float32).reshape(rows, groups)
        kept[parts.weights] = CompressedWeights(
            quantized.element_type, data, rows, depth, parts.group, points, scale
        )
    held = dict(zip(kept, held_as_chosen(list(kept.values()), mode), strict=True))
    return {reader: held[parts.weights] for reader, parts in found.items() if parts.weights in held}
