"""The depthwise path of Convolution and GroupConvolution (irpool/execute/kernels/
convolution.py: one input channel per group): per block of planes, the zero-padded input
laid out by stride phases, the planes one after another, so that each tap's shifted view is
one unit-stride run across the planes; those runs copied as rows and multiplied by each
plane's taps (a small matrix product per plane). Where the taps form a full grid of row
offsets by last-axis shifts (stride 1), only the last-axis shifts are copied and each row
offset's product is added shifted by that offset (kernels/depthwise.py `Grid`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from math import prod
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.engine.blocks import for_each_block
from irpool.execute.engine.costs import CHUNK_BYTES
from irpool.execute.engine.phases import CAST_OK
from irpool.execute.engine.scratch import Scratch, Slot
from irpool.ops.pooling_geometry import Window

if TYPE_CHECKING:
    from irpool.execute.kernels.convolution import Geometry

FLOAT = np.dtype(np.float32)


def depthwise(
    x: NDArray[np.float32],
    weights: NDArray[Any],
    g: Geometry,
    reusable: bool = False,
    finite: bool = True,
) -> NDArray[Any]:
    """Per block of planes (image, group): the block zero-padded and split into its stride
    phases, each phase holding the block's planes one after another, so that every source (a
    tap's phase and last-axis shift) is one flat, unit-stride run across the planes; the runs
    are the rows of a [source, position] matrix, each plane's part multiplied by the plane's
    [O/G * row offset, source] weights, and a grid's row offsets added, each at its offset
    (`Grid`: a 3x3 stride-1 layer copies two runs, not nine; 0.50-0.84 of the time of one copy
    per tap on mobilenet_v2's stride-1 layers, measured, docs/ops/GroupConvolution.md).
    Positions are flat (a plane's positions past its last output read the next plane,
    computed and dropped); the outputs are then picked out. `reusable`: the outputs may go
    into x's array; `finite`: the weights are all finite (else each tap is a source: a grid
    adds, past a plane's last row, the next plane's products over its zero padding, NaN by an
    inf weight). One product per plane reads less memory than a multiply and an add per tap
    (measured: equal on 112x112 planes, half the time on 960 planes of 7x7); one copy per
    source across the planes instead of one per plane and source: 5-7% less time on 192-960
    planes of 7x7 to 28x28 (measured)."""
    layout = g.layout
    assert layout is not None
    n, planes = x.shape[0], x.shape[0] * g.groups
    source = x.reshape(planes, *x.shape[2:])
    shape = (n, g.groups * g.group_out, *g.out)
    # Each block copies its planes into its phases before it writes their outputs.
    out = x if reusable and x.shape == shape else np.empty(shape, FLOAT)
    target = out.reshape(planes, g.group_out, *g.out)
    plane, grid = layout.plane, layout.grid if finite else Grid.apart(layout.taps)
    sources, rows = len(grid.sources), len(grid.rows)
    # [G, O/G * row offset, source]: tap r * sources + s is row offset r's source s.
    grid_weights = weights.reshape(g.groups, g.group_out * rows, sources)
    # The sources' rows and the phases' in one buffer: a phase that a source reads unshifted
    # is laid out as that source's row, a copy fewer (a 3x3 layer's: stride 1 one of 3,
    # stride 2 four of 9); the other sources are copied from the phases' rows.
    phase_rows, shifted = _phase_rows(grid.sources, len(layout.copies))

    def block(start: int, stop: int, scratch: Scratch) -> None:
        count = stop - start
        flat = count * plane
        columns = layout.phases(source[start:stop], scratch, phase_rows, sources)
        for number, row, shift in shifted:
            np.copyto(columns[number, :flat], columns[row, shift : shift + flat])
        by_plane = _strided(columns, (count, sources, plane), (plane, columns.shape[1]))
        # Each plane takes its group's weights: one small product per plane.
        planes_weights = (
            grid_weights[start:stop]
            if stop <= g.groups
            else grid_weights[np.arange(start, stop) % g.groups]
        )
        if rows == 1:
            sums = scratch.array(Slot.FLAT_SUMS, (count, g.group_out, plane), FLOAT)
            np.matmul(planes_weights, by_plane, out=sums)
        else:
            sums = _row_offset_sums(planes_weights, by_plane, grid.rows, g.group_out, scratch)
        np.copyto(target[start:stop], layout.outputs(sums))

    plane_bytes = (sources + g.group_out * rows) * plane * FLOAT.itemsize
    # Blocks of the engine's size (columns and products together; smaller ones measured
    # slower), on the calling thread alone: the blocks' copies and short products share the
    # memory bandwidth and Python's lock, so two threads took 1.1-1.75x the time of one, on
    # mobilenet_v2's layers and on 8 images of them alike (docs/threads.md).
    macs = g.group_out * rows * sources * plane
    for_each_block(planes, plane_bytes, CHUNK_BYTES, block, blas_macs=macs, shared=False)
    return out


def _row_offset_sums(
    weights: NDArray[Any],
    by_plane: NDArray[np.float32],
    rows: Sequence[int],
    group_out: int,
    scratch: Scratch,
) -> NDArray[np.float32]:
    """[plane, O/G, position]: each plane's [O/G * row offset, source] weights times its
    [source, position] runs, each row offset's products added at its offset. The products
    are laid out [O/G * row offset, flat position] over all the planes, then zeros as far as
    the last offset reaches past them, so each offset's add is one run. A plane's outputs
    that read past its end read the next plane's leading zero padding (`_phase_length`),
    whose products are zeros, as their own would be (the weights being finite)."""
    count, _, plane = by_plane.shape
    flat, reach = count * plane, max(rows)
    products = scratch.array(Slot.ROW_PRODUCTS, (group_out * len(rows), flat + reach), FLOAT)
    products[:, flat:] = 0
    by_plane_products = _strided(
        products, (count, group_out * len(rows), plane), (plane, products.shape[1])
    )
    np.matmul(weights, by_plane, out=by_plane_products)
    by_row = products.reshape(group_out, len(rows), flat + reach)
    sums = by_row[:, 0, :flat]
    for r, at in enumerate(rows[1:], 1):
        np.add(sums, by_row[:, r, at : at + flat], out=sums)
    return sums.reshape(group_out, count, plane).transpose(1, 0, 2)


@lru_cache(maxsize=256)
def _phase_rows(
    sources: tuple[tuple[int, int], ...], phases: int
) -> tuple[tuple[int, ...], tuple[tuple[int, int, int], ...]]:
    """Each phase's row in the buffer of the sources' rows (the source that reads it
    unshifted, else a row after the sources), and each other source's (row, phase's row,
    shift). Kept: a run asks for the same few layouts again."""
    unshifted = {phase: number for number, (phase, shift) in enumerate(sources) if shift == 0}
    after = iter(range(len(sources), len(sources) + phases))
    rows = tuple(unshifted[p] if p in unshifted else next(after) for p in range(phases))
    shifted = tuple(
        (number, rows[phase], shift)
        for number, (phase, shift) in enumerate(sources)
        if number not in rows
    )
    return rows, shifted


def _strided(
    rows: NDArray[np.float32], shape: tuple[int, int, int], steps: tuple[int, int]
) -> NDArray[np.float32]:
    """[plane, row, position] over a C-contiguous [row, flat position] matrix: plane p's
    row r starts `steps[0] * p + steps[1] * r` elements in. As `as_strided` makes it, in 1
    µs where it takes 7 (measured), and checked to lie within `rows`."""
    strides = (steps[0] * FLOAT.itemsize, steps[1] * FLOAT.itemsize, FLOAT.itemsize)
    return np.ndarray(shape, FLOAT, rows, 0, strides)


@dataclass(frozen=True, slots=True)
class Grid:
    """How a depthwise layer's taps are multiplied: tap `r * len(sources) + s` reads source
    `s` (a phase and a flat shift, copied as one run) shifted by `rows[r]` more (`rows[0]`
    is 0, the first tap's). Where the
    taps are no such grid (a stride above 1 on an axis before the last puts rows of taps in
    other phases), each tap is a source and `rows` is (0,)."""

    sources: tuple[tuple[int, int], ...]
    rows: tuple[int, ...]

    @classmethod
    def of(cls, taps: Sequence[tuple[int, int, int]]) -> Grid:
        """From each tap's (phase, flat shift, shift along the last axis), in tap order."""
        sources = tuple(dict.fromkeys((phase, last) for phase, _, last in taps))
        rows = tuple(dict.fromkeys(shift - last for _, shift, last in taps))
        grid = [(phase, last, row + last) for row in rows for phase, last in sources]
        if len(rows) > 1 and grid == [(p, last, shift) for p, shift, last in taps]:
            return cls(sources, rows)
        return cls.apart([(phase, shift) for phase, shift, _ in taps])

    @classmethod
    def apart(cls, taps: Sequence[tuple[int, int]]) -> Grid:
        """Each tap (phase, flat shift) a source of its own."""
        return cls(tuple(taps), (0,))


@dataclass(frozen=True, slots=True)
class PhaseLayout:
    """A depthwise geometry on flat phases: per axis, padded position `stride * k + a` is
    position k of phase a; tap `j` reads phase `j * dilation % stride` from `j * dilation //
    stride` on. Phase axes are as short as `_phase_length` allows."""

    phase_sizes: tuple[int, ...]
    out: tuple[int, ...]
    taps: tuple[tuple[int, int], ...]  # (phase number, flat shift) per tap
    grid: Grid  # how the taps are copied and multiplied
    plane: int  # flat positions of one plane's phase
    tail: int  # zeros after a phase's planes, as far as the farthest tap reads past them
    # Per phase: None when it reads padding only, else its zero borders (before, after) and
    # where it reads the input and writes its inside (slices per spatial axis).
    copies: tuple[tuple[list[tuple[int, int]], tuple[slice, ...], tuple[slice, ...]] | None, ...]

    @classmethod
    def of(cls, g: Geometry) -> PhaseLayout:
        strides = tuple(w.stride for w in g.windows)
        sizes = tuple(_phase_length(w) for w in g.windows)
        flat = [prod(sizes[i + 1 :]) for i in range(len(sizes))]
        phase_flat = [prod(strides[i + 1 :]) for i in range(len(strides))]
        axes = list(zip(g.windows, phase_flat, flat, strict=True))
        # Per tap: its phase, flat shift, and shift along the last axis.
        located = [
            (
                sum(j * w.dilation % w.stride * p for j, (w, p, _) in zip(o, axes, strict=True)),
                sum(j * w.dilation // w.stride * f for j, (w, _, f) in zip(o, axes, strict=True)),
                o[-1] * g.windows[-1].dilation // g.windows[-1].stride,
            )
            for o in product(*(range(w.kernel) for w in g.windows))
        ]
        taps = tuple((phase, shift) for phase, shift, _ in located)
        copies = tuple(
            _phase_copy(phase, g.windows, sizes) for phase in product(*(range(s) for s in strides))
        )
        tail = max(shift for _, shift in taps)
        return cls(sizes, g.out, taps, Grid.of(located), prod(sizes), tail, copies)

    def phases(
        self, planes: NDArray[np.float32], scratch: Scratch, rows: Sequence[int], least: int
    ) -> NDArray[np.float32]:
        """[row, flat position] of a block of planes, zero-padded: phase p in row `rows[p]`,
        the planes one after another, then `tail` zeros; the other rows (at least `least` in
        all) not written. Each phase is copied straight from the planes (one strided copy;
        stride 1: the one phase is the padded planes), not padded first and then split: 0.6
        ms where padding and splitting took 1.1 (96 planes of 112x112, stride 2, measured)."""
        count, length = planes.shape[0], planes.shape[0] * self.plane
        shape = (max(least, max(rows) + 1), length + self.tail)
        phases = scratch.array(Slot.STRIDE_PHASES, shape, FLOAT)
        for row, copy in zip(rows, self.copies, strict=True):
            laid = phases[row, :length].reshape(count, *self.phase_sizes)
            phases[row, length:] = 0
            if copy is None:
                laid[...] = 0
                continue
            borders, source, inside = copy
            zero_borders(laid, borders, 1)
            _copy_phase(planes, source, laid[(slice(None), *inside)])
        return phases

    def outputs(self, sums: NDArray[np.float32]) -> NDArray[np.float32]:
        """The outputs among the flat sums [plane, O/G, position]."""
        grid = sums.reshape(*sums.shape[:2], *self.phase_sizes)
        return grid[(slice(None), slice(None), *(slice(o) for o in self.out))]


def _phase_length(w: Window) -> int:
    """The shortest length of an axis's phases: each holds its data (up to `hi`), and an
    output's read at `o + shift` past the end lands in the next row's (or plane's) leading
    zeros (below `lo`), as the padded input holds zeros there: neighbours share padding."""
    length = w.out
    for a in range(w.stride):
        lo, end = _reading_input(w, a)
        hi = max(lo, end)
        shifts = [
            j * w.dilation // w.stride for j in range(w.kernel) if j * w.dilation % w.stride == a
        ]
        length = max(length, hi, w.out + max(shifts, default=0) - lo)
    return length


def _reading_input(w: Window, a: int) -> tuple[int, int]:
    """The positions k of an axis's phase `a` whose padded position s * k + a is in the
    input: from the first past the leading padding to `end` (below it when there is none)."""
    return max(0, -(-(w.pad_begin - a) // w.stride)), (w.size - 1 - a + w.pad_begin) // w.stride + 1


def _phase_copy(
    phase: tuple[int, ...], windows: Sequence[Window], sizes: Sequence[int]
) -> tuple[list[tuple[int, int]], tuple[slice, ...], tuple[slice, ...]] | None:
    """Where stride phase `phase` (per axis: the offset a) reads the input and lies in its
    phase of `sizes`: its position k is padded position s * k + a, input s * k + a - b."""
    spans = [
        (min(q, lo), min(q, max(0, end)))
        for a, w, q in zip(phase, windows, sizes, strict=True)
        for lo, end in [_reading_input(w, a)]
    ]
    if any(lo >= hi for lo, hi in spans):
        return None
    borders = [(lo, q - hi) for (lo, hi), q in zip(spans, sizes, strict=True)]
    source = tuple(
        slice(w.stride * lo + a - w.pad_begin, w.stride * (hi - 1) + a - w.pad_begin + 1, w.stride)
        for (lo, hi), a, w in zip(spans, phase, windows, strict=True)
    )
    return borders, source, tuple(slice(lo, hi) for lo, hi in spans)


def _copy_phase(
    planes: NDArray[np.float32], source: tuple[slice, ...], inside: NDArray[np.float32]
) -> None:
    """`planes` at `source` into `inside`. Every other element of a last axis (stride 2) is
    one word of each uint64 pair of the input: one uint64 -> uint32 cast keeps the bits
    (NaN payloads, -0), 0.023 ms where the strided copy took 0.037 (32 planes of 112x112,
    measured); the last element, when its pair would end past the row, is copied alone."""
    last, lead = source[-1], (slice(None), *source[:-1])
    count = inside.shape[-1]
    pairs = count if last.start + 2 * count <= planes.shape[-1] else count - 1
    if last.step != 2 or not CAST_OK or pairs == 0:
        inside[...] = planes[(*lead, last)]
        return
    words = planes[(*lead, slice(last.start, last.start + 2 * pairs))].view(np.uint64)
    np.copyto(inside[..., :pairs].view(np.uint32), words, casting="unsafe")
    if pairs < count:
        inside[..., pairs:] = planes[(*lead, slice(last.start + 2 * pairs, last.stop, 2))]


def zero_borders(padded: NDArray[np.float32], pads: Sequence[tuple[int, int]], first: int) -> None:
    """Zeros in the (begin, end) borders of each axis from `first` on, and nowhere else: the
    inside is written next (a scratch buffer holds an earlier layer's values)."""
    for axis, (begin, end) in enumerate(pads, first):
        lead = (slice(None),) * axis
        if begin:
            padded[(*lead, slice(0, begin))] = 0
        if end:
            padded[(*lead, slice(padded.shape[axis] - end, None))] = 0
