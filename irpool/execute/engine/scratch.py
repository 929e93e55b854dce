"""Reusable flat buffers, kept per thread across calls, one per named slot.

Fresh multi-megabyte buffers cost page faults on every call (measured: up to twice the run
time of a large pooling), so each thread keeps its largest buffers. One pool per thread for
every kernel: kernels run one after another on a thread, so they share it.
"""

from __future__ import annotations

import threading
from enum import Enum
from math import prod
from typing import Any

import numpy as np
from numpy.typing import NDArray


class Slot(Enum):
    """What a buffer holds; a slot with an index (passes, phases) holds several at once."""

    PASS = "a pass's output; index 0 and 1 alternate between consecutive passes"
    WIDENED = "a block converted to the compute dtype"
    MEANS = "a strategy's output in the compute dtype, before the final cast"
    PHASE = "one stride phase of an axis laid out contiguously; index: which"
    SUMS = "a flat pass's sums before they are compacted into its output"
    PADDED = "a block padded with the lowest value (MaxPool's indices)"
    TAP_NUMBERS = "the number of the winning tap of each window (MaxPool's indices)"
    EQUAL = "which outputs a tap equals (MaxPool's indices)"
    ZERO_PADDED = "an input with zero padding around it (Convolution)"
    COLUMNS = "the windows of an image or block of planes as a matrix (Convolution's im2col)"
    STRIDE_PHASES = "a padded input's stride phases and shifted runs (depthwise Convolution)"
    FLAT_SUMS = "sums over flat positions, rows included whole (depthwise Convolution)"
    ROW_PRODUCTS = "each row offset's products over flat positions (depthwise Convolution)"
    CHANNELS_LAST = "an input as [N, rows, columns, C] with zero padding (Winograd Convolution)"
    WINOGRAD_ROWS = "tile rows transformed along rows (Winograd Convolution)"
    WINOGRAD_INPUT = "tiles transformed along rows and columns (Winograd Convolution)"
    WINOGRAD_PRODUCTS = "the transformed tiles times the transformed filters (Winograd)"
    WINOGRAD_HALF = "the products transformed back along rows (Winograd Convolution)"
    WINOGRAD_OUTPUT = "the outputs of a span of tile rows, channels last (Winograd)"
    WEIGHTS = "a block of weight rows decompressed (a MatMul by compressed weights)"
    GROUP_SUMS = "a product's sums per group of K (a MatMul quantizing its activations)"
    GROUP_PRODUCTS = "those sums times both scales, in f64 (a MatMul quantizing activations)"
    PACKED_SUMS = "sums of several rows' codes a word, f64; index 1: a field being split off"
    WIDE_TOTAL = "an FMA chain's f32 total widened to f64 (a MatMul quantizing activations)"


class Scratch:
    def __init__(self) -> None:
        self._buffers: dict[tuple[Slot, int], NDArray[Any]] = {}
        # The last view handed out per slot: asked again with the same shape, it is reused
        # (making a view costs about a microsecond, and a pooling asks for many per call).
        self._views: dict[tuple[Slot, int], NDArray[Any]] = {}

    def array(
        self, slot: Slot, shape: tuple[int, ...], dtype: np.dtype[Any], index: int = 0
    ) -> NDArray[Any]:
        key = (slot, index)
        view = self._views.get(key)
        if view is not None and view.shape == shape and view.dtype == dtype:
            return view
        size = prod(shape)  # math.prod: np.prod costs microseconds per call
        buffer = self._buffers.get(key)
        if buffer is None or buffer.size < size or buffer.dtype != dtype:
            buffer = np.empty(size, dtype)
            self._buffers[key] = buffer
        view = self._views[key] = buffer[:size].reshape(shape)
        return view


_local = threading.local()


def thread_scratch() -> Scratch:
    """This thread's scratch."""
    scratch: Scratch | None = getattr(_local, "scratch", None)
    if scratch is None:
        scratch = _local.scratch = Scratch()
    return scratch


def release_scratch() -> None:
    """Free this thread's kept buffers (for long-lived processes, and to measure cold calls)."""
    _local.scratch = None
