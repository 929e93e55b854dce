"""The weights of a MatMul by compressed weights (irpool/cpu/compressed_weights.py), as a run
holds them: kept as the `.bin` holds them and decompressed per use, a block of rows at a time
into a reusable buffer (`keep`: memory follows the `.bin`), or unpacked once when the model is
planned (`decompress`: faster), as codes by group of 32 for a product that quantizes its
activations (4-bit ones three rows to an f64 word, `LANES`), else decompressed. Either way a
product computes the same values, so both give the same bits. IRPOOL_COMPRESSED_WEIGHTS
chooses; unset or `auto`, the weights are decompressed when their f32 size fits in memory with
room to spare, else kept (docs/compressed-weights.md#memory).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.compressed_weights import ACTIVATION_GROUP, quantizes_activations
from irpool.execute.engine.costs import CHUNK_BYTES
from irpool.execute.errors import ExecutionError
from irpool.execute.memory import affordable
from irpool.low_bit import BITS, unpack

if TYPE_CHECKING:
    from irpool.cpu.compressed_weights import Decompression
    from irpool.execute.fold import Candidate, Ref

MODES = ("auto", "keep", "decompress")
# Held 4-bit codes share an f64 word three rows at a time, c0 + c1 * 2**17 + c2 * 2**34: a
# group's sum of 32 int8 steps times such codes (|sum| <= 32 * 127 * 15 < 2**16) keeps a field
# of its own, every partial sum (below 2**51) is an exact integer in f64 in any order, and a
# product reads 8 bytes for three weights instead of 12 (docs/compressed-weights.md).
LANES, LANE_BITS = 3, 17
# MatMuls that read one input are joined into one product while its f64 products (a row of
# activations) stay within the L2 cache: a layer's q, k and v (258 KiB), not gate and up.
JOINED_PRODUCTS = 1 << 20


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
    # Or every row's codes (quantized - zero point) as [code_depth // 32, words, 32], when
    # held so: the layout a product that quantizes its activations per 32 reads. 8-bit codes
    # in f32, a row a word; 4-bit ones in f64, `LANES` rows a word (row w + lane * words).
    held_codes: NDArray[Any] | None = None
    # With them: the scales as [rows // group, lanes, words], in f64 (zero past the rows).
    held_scale_by_group: NDArray[np.float64] | None = None
    # Or these rows are rows of weights held with those of the other MatMuls that read the
    # same activations (a layer's q, k and v): one product computes them all.
    fused: JoinedRows | None = None

    @property
    def lanes(self) -> int:
        """The rows a word of the held codes holds (one when not so held)."""
        return 1 if self.held_codes is None else self.rows_per_word

    @property
    def rows_per_word(self) -> int:
        return LANES if BITS.get(self.element_type, 8) == 4 else 1

    @property
    def words(self) -> int:
        """The words of codes per group of 32: rows / lanes, rounded up."""
        return -(-self.rows // self.lanes)

    def scale_by_group(self, start: int, stop: int) -> NDArray[Any]:
        """Words [start, stop)'s scales as [depth // group, lanes, stop - start] (f64 when
        held)."""
        if self.held_scale_by_group is not None:
            return self.held_scale_by_group[:, :, start:stop]
        return self.scale[start:stop].T[:, None]

    @property
    def block_rows(self) -> int:
        """The rows of one block: about CHUNK_BYTES of f32, fixed by the shape alone."""
        return max(1, min(self.rows, CHUNK_BYTES // (4 * self.depth)))

    @property
    def f32_bytes(self) -> int:
        return 4 * self.rows * self.depth

    @property
    def quantizes_activations(self) -> bool:
        """Whether a product by these weights quantizes its activations per ACTIVATION_GROUP
        (irpool/cpu/compressed_weights.py): held so, they are held as codes by group."""
        return quantizes_activations(self.element_type, self.rows, self.depth, self.group)

    @property
    def code_depth(self) -> int:
        """K padded with zero codes to whole activation groups (a shorter last group of
        activations, one scale per row): the width of a row of codes by group."""
        return -(-self.depth // ACTIVATION_GROUP) * ACTIVATION_GROUP

    def block(self, start: int, stop: int, out: NDArray[np.float32]) -> NDArray[np.float32]:
        """Rows [start, stop), decompressed into `out` ([stop - start, depth]) unless held."""
        if self.decompressed is not None:
            return self.decompressed[start:stop]
        shape = (stop - start, -1, self.group)
        if self.held_codes is not None:
            out[...] = self._held_rows(np.arange(start, stop))
        else:
            self._unpacked(start, stop, out)
        np.multiply(out.reshape(shape), self.scale[start:stop, :, None], out=out.reshape(shape))
        return out

    def grouped_codes(
        self, start: int, stop: int, out: NDArray[np.float32], less_zero_point: bool = True
    ) -> NDArray[np.float32]:
        """Rows [start, stop)'s codes as [code_depth // 32, stop - start, 32]: unpacked into
        `out` ([stop - start, code_depth], zeros past K) and seen so (a view BLAS reads);
        the quantized values themselves when not `less_zero_point`."""
        self._unpacked(start, stop, out[:, : self.depth], less_zero_point)
        out[:, self.depth :] = 0
        return out.reshape(stop - start, -1, ACTIVATION_GROUP).transpose(1, 0, 2)

    def zero_point_by_group(self, start: int, stop: int) -> NDArray[np.float32]:
        """Rows [start, stop)'s zero points as [code_depth // 32, stop - start]: each group of
        32 along K takes that of the weights' group holding it."""
        assert self.zero_point is not None
        holding = np.arange(self.code_depth // ACTIVATION_GROUP) * ACTIVATION_GROUP // self.group
        return self.zero_point[start:stop, holding].T

    def _held_rows(self, picks: NDArray[np.int64]) -> NDArray[np.float32]:
        """The held codes of the rows `picks` names, as [len(picks), depth] in f32 (the zero
        codes past K dropped)."""
        assert self.held_codes is not None
        lane, word = np.divmod(picks, self.words)
        codes = self.held_codes[:, word].transpose(1, 0, 2).astype(np.float64)
        if self.lanes > 1:  # the fields from `lane` up, less those above it
            unit = np.exp2(LANE_BITS * lane)[:, None, None]
            codes = np.rint(codes / unit) - np.rint(codes / (unit * 2**LANE_BITS)) * 2**LANE_BITS
        return codes.reshape(len(picks), -1)[:, : self.depth].astype(np.float32)

    def _unpacked(
        self, start: int, stop: int, out: NDArray[np.float32], less_zero_point: bool = True
    ) -> NDArray[np.float32]:
        """Rows [start, stop) as quantized minus zero point (or as quantized), not scaled,
        into `out`."""
        count = (stop - start) * self.depth
        if isinstance(self.quantized, np.ndarray):
            values = self.quantized.reshape(self.rows, self.depth)[start:stop]
        else:
            bits = BITS[self.element_type]  # whole bytes per row (checked when planned)
            first, last = start * self.depth * bits // 8, stop * self.depth * bits // 8
            values = unpack(self.element_type, self.quantized[first:last], count)
        groups = out.reshape(stop - start, -1, self.group)
        groups[...] = values.reshape(groups.shape)
        if self.zero_point is not None and less_zero_point:
            groups -= self.zero_point[start:stop, :, None]
        return out

    def rows_at(self, picks: NDArray[np.int64]) -> NDArray[np.float32]:
        """The rows `picks` names (each in range), decompressed into a new array."""
        if self.decompressed is not None:
            return self.decompressed[picks]
        if self.held_codes is not None:
            codes = self._held_rows(picks).reshape(len(picks), -1, self.group)
            return (codes * self.scale[picks][:, :, None]).reshape(len(picks), self.depth)
        out = np.empty((len(picks), self.depth), np.float32)
        for index, row in enumerate(picks.tolist()):
            self.block(row, row + 1, out[index : index + 1])
        return out

    def held(self) -> CompressedWeights:
        """These weights unpacked once, block by block: as codes by group if a product by
        them quantizes its activations (`LANES` 4-bit rows a word), else decompressed."""
        if not self.quantizes_activations:
            return self.decompressed_once()
        lanes = self.rows_per_word
        words = -(-self.rows // lanes)
        word_type = np.float64 if lanes > 1 else np.float32
        grouped = np.zeros(
            (self.code_depth // ACTIVATION_GROUP, words, ACTIVATION_GROUP), word_type
        )
        buffer = np.empty((self.block_rows, self.code_depth), np.float32)
        for start in range(0, self.rows, self.block_rows):
            stop = min(self.rows, start + self.block_rows)
            codes = self.grouped_codes(start, stop, buffer[: stop - start])
            for lane in range(start // words, (stop - 1) // words + 1):  # the lanes it meets
                first, last = max(start, lane * words), min(stop, (lane + 1) * words)
                fields = grouped[:, first - lane * words : last - lane * words]
                fields += codes[:, first - start : last - start] * 2.0 ** (LANE_BITS * lane)
        grouped.flags.writeable = False
        by_group = np.zeros((self.scale.shape[1], lanes * words), np.float64)
        by_group[:, : self.rows] = self.scale.T
        held_scale = by_group.reshape(-1, lanes, words)
        return replace(self, held_codes=grouped, held_scale_by_group=held_scale)

    def decompressed_once(self) -> CompressedWeights:
        """These weights decompressed once, block by block, in place of any held codes (for
        a product that does not quantize its activations: else decompressed every run)."""
        every = np.empty((self.rows, self.depth), np.float32)
        for start in range(0, self.rows, self.block_rows):
            stop = min(self.rows, start + self.block_rows)
            self.block(start, stop, every[start:stop])
        every.flags.writeable = False
        return replace(self, decompressed=every, held_codes=None, held_scale_by_group=None)


def packs_whole_rows(element_type: str, depth: int) -> bool:
    """Whether each row of `depth` elements starts on a byte (a 4-bit row of odd length
    does not: such weights are decompressed once instead)."""
    return depth * BITS.get(element_type, 8) % 8 == 0


@dataclass(frozen=True, slots=True)
class JoinedRows:
    """Where a MatMul's weights lie in weights `joined` with those of the MatMuls that read
    its activations: rows [first, first + its rows) of `whole`, which `sharers` MatMuls read."""

    whole: CompressedWeights
    first: int
    sharers: int


def held_by_mode(weights: list[CompressedWeights], mode: str) -> bool:
    """Whether `mode` holds the weights unpacked: `decompress`, or `auto` when their f32
    size fits in the memory available with room to spare."""
    total = sum(w.f32_bytes for w in weights)
    return mode == "decompress" or (mode == "auto" and affordable(2 * total))


def joined(parts: Sequence[CompressedWeights]) -> CompressedWeights:
    """Weights of one type, depth and group (zero points alike) as one set of rows, in order."""
    first = parts[0]
    quantized: memoryview | NDArray[Any]
    if isinstance(first.quantized, np.ndarray):
        quantized = np.concatenate([np.asarray(w.quantized).reshape(w.rows, -1) for w in parts])
    else:
        quantized = memoryview(b"".join(bytes(w.quantized) for w in parts))
    points = None
    if first.zero_point is not None:
        points = np.concatenate([w.zero_point for w in parts if w.zero_point is not None])
    scale = np.concatenate([w.scale for w in parts])
    rows = sum(w.rows for w in parts)
    return CompressedWeights(
        first.element_type, quantized, rows, first.depth, first.group, points, scale
    )


def _sharing_activations(
    found: Mapping[int, Decompression],
    candidates: Sequence[Candidate],
    kept: Mapping[Ref, CompressedWeights],
) -> list[list[int]]:
    """The MatMuls (two or more, in layer order) that read the same activations, each the
    only reader of its weights, whose weights quantize them alike, and whose joined product
    holds at most `JOINED_PRODUCTS` bytes of f64 products a row of activations."""
    readers = Counter(parts.weights for parts in found.values())
    by_input: dict[tuple[Any, ...], list[int]] = {}
    for candidate in candidates:
        parts = found.get(candidate.layer.id)
        if parts is None or candidate.layer.type != "MatMul" or readers[parts.weights] != 1:
            continue
        weights = kept.get(parts.weights)
        if weights is None or not weights.quantizes_activations:
            continue
        kind = (weights.element_type, weights.depth, weights.group, weights.zero_point is None)
        key = (candidate.inputs[0], *kind, isinstance(weights.quantized, np.ndarray))
        by_input.setdefault(key, []).append(candidate.layer.id)
    joinable = []
    for ids in by_input.values():
        members = [kept[found[layer_id].weights] for layer_id in ids]
        products = 8 * sum(w.rows for w in members) * members[0].code_depth // ACTIVATION_GROUP
        if len(ids) > 1 and products <= JOINED_PRODUCTS:
            joinable.append(sorted(ids))
    return joinable


def compressed_weights(
    found: Mapping[int, Decompression],
    candidates: Sequence[Candidate],
    constants: Mapping[Ref, NDArray[Any]],
    mode: str,
) -> dict[int, CompressedWeights]:
    """Per MatMul or Gather (layer id), its weights as the run holds them in `mode`, from the
    quantized Const's bytes (which nothing folded; each row starting on a byte,
    `packs_whole_rows`) and the folded zero point and scale; readers of one decompression
    share one object (held once)."""
    produced = {c.layer.id: c.produced[0] for c in candidates}
    kept: dict[Ref, CompressedWeights] = {}
    for parts in found.values():
        if parts.weights in kept:
            continue
        quantized = produced[parts.quantized[0]]
        rows, depth = produced[parts.weights[0]].shape.values()[-2:]
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
    if not held_by_mode(list(kept.values()), mode):
        return {
            reader: kept[parts.weights] for reader, parts in found.items() if parts.weights in kept
        }
    by_reader: dict[int, CompressedWeights] = {}
    for readers in _sharing_activations(found, candidates, kept):
        members = [kept[found[reader].weights] for reader in readers]
        # held, the joined weights need their bytes no more (their codes replace them)
        whole, first = replace(joined(members).held(), quantized=memoryview(b"")), 0
        for reader, weights in zip(readers, members, strict=True):
            by_reader[reader] = replace(weights, fused=JoinedRows(whole, first, len(readers)))
            first += weights.rows
    fused = {found[reader].weights for reader in by_reader}
    held = {ref: weights.held() for ref, weights in kept.items() if ref not in fused}
    for reader, parts in found.items():
        if reader not in by_reader and parts.weights in held:
            by_reader[reader] = held[parts.weights]
    return by_reader
