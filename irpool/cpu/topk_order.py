"""TopK's order where the CPU plugin's kernel orders ties and NaN its own way (docs/ops/TopK.md,
"The CPU's kernels").

Along the last axis, unless TopK-11's `stable` asks for a value order, OpenVINO 2026.4's CPU
TopK takes its JIT heap sort when k is more than 6 or the layer's shapes are dynamic (a
dynamic input or a k known only at run time), for a static k of 1 its lanes kernel
(`lanes_first`), and for a static k of 2 to 6 or a stable sort its bubble kernels
(`bubble_order`: index order but for NaN). The heap: a heap of the first k elements
(smallest on top for max), each later element replacing the top when it ranks strictly before
it, then the heap extracted. Ties are therefore not in index order; `heap_orders` replays the
kernel on every row, comparisons included (max: ``not a <= b``, so NaN ranks before everything;
min: ``a < b``), and measured equal on every tie-heavy and NaN case (docs/ops/TopK.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.isa import AVX512_CORE, host_cpu_isa
from irpool.ops.base import TensorInfo
from irpool.ops.folding import integer_values

# What the CPU holds in a blocked layout (nChw16c), and what keeps its input's layout: a TopK
# reading one of those through the others sorts otherwise (measured: after a Convolution, by
# index for k 1 and neither by index nor by heap for k above 6), which irpool does not replay.
BLOCKING = frozenset({
    "Convolution", "GroupConvolution", "ConvolutionBackpropData", "GroupConvolutionBackpropData",
    "MaxPool", "AvgPool", "BinaryConvolution",
})  # fmt: skip
LAYOUT_KEEPING = frozenset({
    "Relu", "ReLU", "Sigmoid", "Swish", "HSwish", "HSigmoid", "Mish", "Elu", "Gelu", "Clamp",
    "Tanh", "Exp", "Abs", "Sqrt", "Negative", "PRelu", "SoftPlus", "Add", "Subtract",
    "Multiply", "Divide", "Maximum", "Minimum", "Power", "FakeQuantize", "Convert",
})  # fmt: skip
BUBBLE_MAX_K = 6  # a static TopK with k up to this sorts in registers (its bubble kernels)
LANES = 16  # the AVX-512 vector the k-1 kernel compares in
AVX2_LANES = 8  # its ymm vector with at most AVX2
HEAP, FIRST_OF_LANES, BUBBLE = "heap", "lanes", "bubble"


def held_blocked(
    source: tuple[int, int], types: Mapping[int, str], producers: Mapping[Any, Any]
) -> bool:
    """Whether the CPU may hold the tensor `source` (layer, port) in a blocked layout: made by
    a convolution or pooling, through ops that keep its layout (their first input)."""
    layer = source[0]
    while types[layer] in LAYOUT_KEEPING and (layer, 0) in producers:
        layer = producers[(layer, 0)][0]
    return types[layer] in BLOCKING


def cpu_kernel_order(
    attrs: dict[str, Any], inputs: tuple[TensorInfo, TensorInfo], blocked: bool = False
) -> str | None:
    """The CPU's kernel for this TopK layer (attributes, inferred inputs) along the last axis
    of a planar input: HEAP, FIRST_OF_LANES or BUBBLE (index order but for NaN); None along
    another axis or on an input the CPU may hold `blocked` (index order, not replayed)."""
    data, k = inputs
    rank = data.shape.rank
    if blocked or rank is None or int(attrs["axis"]) % rank != rank - 1:
        return None
    stable = bool(attrs.get("stable")) and attrs["sort"] != "index"
    values = integer_values(k)
    dynamic = not data.shape.is_static or values is None
    if stable or (not dynamic and values is not None and 1 < values[0] <= BUBBLE_MAX_K):
        return BUBBLE
    return FIRST_OF_LANES if not dynamic and values is not None and values[0] == 1 else HEAP


def lanes_first(row: list[Any], largest: bool) -> int:
    """The index the CPU's k-1 kernel gives for one row: each of 16 lanes (8 with at most
    AVX2) keeps its best of the elements at its place in each whole vector, the lanes are
    reduced pairwise (0-3 against 4-7, on AVX-512 8-11 against 12-15 and the two, then lanes 0
    against 1 and 2 against 3, then those), and the elements past the last whole vector are
    compared one by one; a later element replaces the kept one only when it ranks strictly
    before it (min: ``not kept <= new``, so NaN)."""
    replaces: Callable[[Any, Any], bool] = (
        (lambda kept, new: bool(kept < new)) if largest else (lambda kept, new: not kept <= new)
    )

    def better(a: int, b: int) -> int:
        return b if replaces(row[a], row[b]) else a

    def paired(first: list[int], second: list[int]) -> list[int]:
        return [better(a, b) for a, b in zip(first, second, strict=True)]

    size, width = len(row), LANES if host_cpu_isa() == AVX512_CORE else AVX2_LANES
    if size < width:
        best, start = 0, 1
    else:
        lanes = list(range(width))
        start = width
        while start <= size - width:
            lanes = [better(kept, start + lane) for lane, kept in enumerate(lanes)]
            start += width
        quarter = paired(lanes[0:4], lanes[4:8])
        if width == LANES:
            quarter = paired(quarter, paired(lanes[8:12], lanes[12:16]))
        best = better(better(quarter[0], quarter[1]), better(quarter[2], quarter[3]))
    for place in range(start, size):
        best = better(best, place)
    return best


def heap_orders(rows: NDArray[Any], k: int, largest: bool, by_index: bool) -> NDArray[np.int64]:
    """The indices the CPU's heap TopK gives for each row of `rows` (2-D), in order: the
    kernel's steps replayed on all rows at once, each row's sift ending where its own does."""
    before: Callable[[Any, Any], Any] = (
        (lambda a, b: ~(a <= b)) if largest else (lambda a, b: a < b)
    )
    count = len(rows)
    # Place-major (place p of row r at p * count + r): the rows a step moves at one depth
    # read a few runs of memory, not one cache line each.
    values = rows[:, :k].T.copy()
    indices = np.repeat(np.arange(k, dtype=np.int64), count).reshape(k, count)
    flat_values, flat_indices = values.reshape(-1), indices.reshape(-1)  # views
    every = np.arange(count)

    def sift(chosen: NDArray[np.intp], node: int, last: int, by_value: bool = True) -> None:
        """Sift `node` down the heaps of places 0..last of the `chosen` rows (the kernel's
        heapify_sub_tree), each row as far as its own comparisons take it."""
        flat_keys, ranks = (flat_values, before) if by_value else (flat_indices, np.less)
        at = chosen + node * count  # where each row's sifted element is held
        value, index = flat_values[at], flat_indices[at]
        nodes = np.full(len(chosen), node)
        while len(chosen):
            child = np.minimum(2 * nodes + 1, last)
            right = np.minimum(child + 1, last)
            both = nodes != last >> 1  # both children in the heap: the one that ranks first
            rightward = ranks(flat_keys[chosen + child * count], flat_keys[chosen + right * count])
            child = np.where(both & rightward, right, child)
            below = chosen + child * count
            key = value if by_value else index
            swap = (nodes <= (last - 1) >> 1) & ranks(key, flat_keys[below])
            if not swap.all():  # the rows whose element settles here
                flat_values[at[~swap]], flat_indices[at[~swap]] = value[~swap], index[~swap]
                chosen, nodes, child, below = chosen[swap], nodes[swap], child[swap], below[swap]
                value, index, at = value[swap], index[swap], at[swap]
            flat_values[at], flat_indices[at] = flat_values[below], flat_indices[below]
            nodes, at = child, below

    last_parent = (k - 2) >> 1 if k > 1 else 0
    for node in range(last_parent, -1, -1):
        sift(every, node, k - 1)
    for place in range(k, rows.shape[1]):
        column = rows[:, place]
        chosen = np.flatnonzero(before(column, values[0]))
        values[0, chosen], indices[0, chosen] = column[chosen], place
        sift(chosen, 0, k - 1)
    if by_index:
        for node in range(last_parent, -1, -1):
            sift(every, node, k - 1, by_value=False)
    for end in range(k - 1, 0, -1):
        for held in (values, indices):
            held[[0, end]] = held[[end, 0]]
        sift(every, 0, end - 1, by_value=not by_index)
    return np.ascontiguousarray(indices.T)


def bubble_order(row: list[Any], k: int, largest: bool, by_index: bool) -> list[int]:
    """The indices the CPU's bubble TopK gives for one row: the first k sorted, then each later
    element bubbled up from the k-th place, swapping while the one before it ranks after it
    (max: ``a < b``; min: ``not a <= b``, so NaN), then by index if asked."""
    swaps: Callable[[Any, Any], bool] = (
        (lambda a, b: bool(a < b)) if largest else (lambda a, b: not a <= b)
    )
    values, indices = row[:k], list(range(k))

    def bubble(last: int, first: int) -> None:
        for place in range(last, first, -1):
            if swaps(values[place - 1], values[place]):
                values[place - 1], values[place] = values[place], values[place - 1]
                indices[place - 1], indices[place] = indices[place], indices[place - 1]

    for first in range(k - 1):
        bubble(k - 1, first)
    for place in range(k, len(row)):
        values.append(row[place])
        indices.append(place)
        bubble(k, 0)
        values.pop()
        indices.pop()
    return sorted(indices) if by_index else indices


def kernel_top_k(
    kernel: str, rows: NDArray[Any], order: NDArray[np.int64], largest: bool, by_index: bool
) -> NDArray[np.int64]:
    """`order` (the stable order's first k of each row of `rows`, last axis) with the rows
    whose ties or NaN the CPU's `kernel` may order otherwise replaced by that kernel's order."""
    k = order.shape[-1]
    flat_rows = rows.reshape(-1, rows.shape[-1])
    flat_order = order.reshape(-1, k).copy()
    picked = np.take_along_axis(flat_rows, flat_order, -1)
    replayed = _nan_rows(flat_rows)
    if kernel != BUBBLE:  # the bubble keeps ties in index order, as `order` does
        replayed |= _tied_rows(flat_rows, picked)
    if kernel == HEAP:
        flat_order[replayed] = heap_orders(flat_rows[replayed], k, largest, by_index)
        return flat_order.reshape(order.shape)
    for row in np.flatnonzero(replayed):
        values = flat_rows[row].tolist()
        if kernel == BUBBLE:
            flat_order[row] = bubble_order(values, k, largest, by_index)
        else:
            flat_order[row] = lanes_first(values, largest)
    return flat_order.reshape(order.shape)


def _nan_rows(rows: NDArray[Any]) -> NDArray[np.bool_]:
    if rows.dtype.kind != "f":
        return np.zeros(rows.shape[0], bool)
    found: NDArray[np.bool_] = np.isnan(rows).any(axis=-1)
    return found


def _tied_rows(rows: NDArray[Any], picked: NDArray[Any]) -> NDArray[np.bool_]:
    """The rows with equal values among those picked or a value equal to the k-th left out."""
    last = picked[:, -1:]
    boundary = np.count_nonzero(rows == last, axis=-1) > np.count_nonzero(picked == last, axis=-1)
    ranked = np.sort(picked, axis=-1)
    tied: NDArray[np.bool_] = boundary | (ranked[:, 1:] == ranked[:, :-1]).any(axis=-1)
    return tied
