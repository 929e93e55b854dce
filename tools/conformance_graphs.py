"""Hand-written graphs of the conformance corpus, the windows of its systematic AvgPool grid and
its integer inputs with known .5 means."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from conformance_kinds import Case, avg_pool_case
from corpus import Array
from ov_builders import (
    adaptive_avg_pool,
    avg_pool,
    opset1,
    output_size_const,
    ov,
    parameter,
    result,
)


def adaptive_runtime_size(
    data_shape: str, element_type: str, index_type: str
) -> Callable[[str], ov.Model]:
    """output_size is a second Parameter, so the spatial dims are only known at run time."""

    def build(name: str) -> ov.Model:
        data = parameter("in", data_shape, element_type)
        rank = ov.PartialShape(data_shape).rank.get_length()
        size = parameter("output_size", str(rank - 2), index_type)
        pool = adaptive_avg_pool("pool", data, size)
        return ov.Model([result("out", pool)], [data, size], name)

    return build


def chain_two_pools(element_type: str) -> Callable[[str], ov.Model]:
    """AvgPool-14 (same_upper, ceil_torch) -> AvgPool-14 (explicit, exclude-pad=false)."""

    def build(name: str) -> ov.Model:
        data = parameter("in", "2,3,13,11", element_type)
        first = avg_pool(
            "pool_a", data, 14, (3, 3), (2, 2), auto_pad="same_upper", rounding="ceil_torch"
        )
        second = avg_pool("pool_b", first, 14, (2, 2), (1, 1), (1, 0), (1, 1), exclude_pad=False)
        return ov.Model([result("out", second)], [data], name)

    return build


def chain_adaptive_then_pool(name: str) -> ov.Model:
    """AdaptiveAvgPool-8 upsampling (Const size) feeding a dilated AvgPool-16, rank 5."""
    data = parameter("in", "1,2,3,4,5")
    size = output_size_const("output_size", (6, 5, 7), "i64")
    adaptive = adaptive_avg_pool("adaptive", data, size)
    pool = avg_pool(
        "pool",
        adaptive,
        16,
        (2, 2, 3),
        (2, 1, 2),
        (0, 1, 1),
        (1, 0, 1),
        rounding="ceil",
        dilations=(1, 2, 1),
    )
    return ov.Model([result("out", pool)], [data], name)


def chain_int_one_channel(name: str) -> ov.Model:
    """Two i32 AvgPool-1 with one channel, where CPU rounds after each op."""
    data = parameter("in", "2,1,17", "i32")
    first = avg_pool("pool_a", data, 1, (2,), (2,))
    second = avg_pool("pool_b", first, 1, (2,), (1,), (1,), (0,), exclude_pad=False)
    return ov.Model([result("out", second)], [data], name)


def chain_with_two_taps(name: str) -> ov.Model:
    """AvgPool-1 whose output is both a model output and the input of an AvgPool-16."""
    data = parameter("in", "1,3,12,12")
    first = avg_pool("pool_a", data, 1, (2, 2), (2, 2), (1, 1), (1, 1), rounding="ceil")
    second = avg_pool("pool_b", first, 16, (2, 2), (1, 1), auto_pad="same_lower", dilations=(2, 2))
    return ov.Model([result("first_out", first), result("second_out", second)], [data], name)


def int64_const(name: str, values: Sequence[int]) -> ov.Node:
    node = opset1.constant(np.array(values, dtype=np.int64))
    node.set_friendly_name(name)
    return node


def chain_adaptive_flatten(name: str) -> ov.Model:
    """AdaptiveAvgPool-8 then Reshape [0,-1], as PyTorch's AdaptiveAvgPool2d + Flatten convert."""
    data = parameter("in", "2,3,9,9")
    adaptive = adaptive_avg_pool("adaptive", data, output_size_const("size", (5, 3), "i32"))
    flat = opset1.reshape(adaptive, int64_const("pattern", (0, -1)), special_zero=True)
    return ov.Model([result("out", flat)], [data], name)


def chain_pool_squeeze_unsqueeze(name: str) -> ov.Model:
    """A global AvgPool-1, its 1x1 squeezed away, then a trailing axis added back."""
    data = parameter("in", "1,3,8,8")
    pool = avg_pool("pool", data, 1, (8, 8), (8, 8))
    squeezed = opset1.squeeze(pool, int64_const("squeeze_axes", (2, 3)))
    unsqueezed = opset1.unsqueeze(squeezed, int64_const("unsqueeze_axes", (-1,)))
    return ov.Model([result("out", unsqueezed)], [data], name)


def convert_then_reshape(name: str) -> ov.Model:
    """Convert f32 -> i32 (truncation toward zero) on a dynamic batch, then Reshape [0,-1]."""
    data = parameter("in", "?,4,6")
    converted = opset1.convert(data, "i32")
    flat = opset1.reshape(converted, int64_const("pattern", (0, -1)), special_zero=True)
    return ov.Model([result("out", flat)], [data], name)


@dataclass(frozen=True)
class Window:
    """A shape plus kernel/strides/pads (declared, for same_*/valid) and optional dilations."""

    shape: str
    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    pads_begin: tuple[int, ...] | None = None
    pads_end: tuple[int, ...] | None = None
    dilations: tuple[int, ...] | None = None


# Chosen so that ceil adds windows that floor drops (some empty: NaN with exclude-pad=true),
# ceil_torch drops a window that starts in the end padding, pads are asymmetric, and axes differ.
PLAIN_WINDOWS: dict[str, dict[int, Window]] = {
    "explicit": {
        3: Window("1,3,9", (3,), (2,), (1,), (2,)),
        4: Window("2,3,7,8", (3, 2), (2, 2), (1, 0), (1, 1)),
        5: Window("1,2,5,6,7", (2, 3, 2), (1, 2, 3), (0, 1, 1), (1, 1, 1)),
    },
    "same": {
        3: Window("1,3,10", (3,), (2,), (1,), (1,)),
        4: Window("2,2,11,9", (2, 3), (4, 2)),
        5: Window("1,2,5,6,7", (3, 2, 3), (1, 2, 3)),
    },
    "valid": {
        3: Window("1,3,12", (3,), (2,), (1,), (1,)),
        4: Window("1,2,9,9", (2, 3), (2, 2)),
        5: Window("1,2,5,6,7", (2, 2, 2), (2, 2, 3), (1, 1, 1), (1, 1, 1)),
    },
}
DILATED_WINDOWS: dict[str, dict[int, Window]] = {
    "explicit": {
        3: Window("1,2,10", (2,), (3,), (1,), (3,), (3,)),
        4: Window("1,3,9,10", (3, 2), (2, 3), (1, 0), (1, 1), (2, 2)),
        5: Window("1,2,6,7,8", (2, 2, 3), (2, 2, 1), (1, 0, 2), (1, 1, 2), (2, 1, 2)),
    },
    "same": {
        3: Window("1,3,12", (2,), (4,), dilations=(2,)),
        4: Window("1,3,10,9", (3, 2), (2, 3), (1, 1), (1, 1), (2, 3)),
        5: Window("1,2,6,7,8", (2, 2, 2), (2, 2, 2), dilations=(2, 2, 2)),
    },
    "valid": {
        3: Window("1,3,12", (3,), (3,), dilations=(2,)),
        4: Window("1,2,10,9", (2, 2), (2, 4), (1, 1), (1, 1), (3, 2)),
        5: Window("1,2,6,7,8", (2, 2, 2), (2, 2, 2), dilations=(2, 1, 3)),
    },
}
AUTO_PADS = ("explicit", "same_upper", "same_lower", "valid")
RANKS = (3, 4, 5)


def grid(version: int) -> list[Case]:
    """Every auto_pad x rounding x exclude-pad of one version, spreading the ranks 3/4/5."""
    roundings = ("floor", "ceil") if version == 1 else ("floor", "ceil", "ceil_torch")
    windows = DILATED_WINDOWS if version == 16 else PLAIN_WINDOWS
    cases = []
    for pad_index, auto_pad in enumerate(AUTO_PADS):
        combos = [(r, e) for r in roundings for e in (True, False)]
        for combo_index, (rounding, exclude_pad) in enumerate(combos):
            rank = RANKS[(pad_index + combo_index) % len(RANKS)]
            window = windows[auto_pad.split("_")[0]][rank]
            cases.append(
                avg_pool_case(
                    version,
                    window.shape,
                    window.kernel,
                    window.strides,
                    window.pads_begin,
                    window.pads_end,
                    auto_pad=auto_pad,
                    rounding=rounding,
                    exclude_pad=exclude_pad,
                    dilations=window.dilations,
                )
            )
    return cases


# docs/ops/AvgPool.md#test-vectors, vector 20: [1,2,2,3,3,4,250,255], k2 s2 -> means 1.5, 2.5, 3.5,
# 252.5.
VECTOR_20 = np.array([[[1, 2, 2, 3, 3, 4, 250, 255]]], dtype=np.int32)


def windows_with_means(
    rng: np.random.Generator, means: Sequence[float], window: int, low: int, high: int
) -> Array:
    """One row of ``window`` random integers in [low, high] per mean, summing to mean * window."""
    rows = []
    for mean in means:
        target = round(mean * window)
        row = rng.integers(low, high + 1, size=window)
        while row.sum() != target:  # nudge single elements toward the target sum
            index = rng.integers(window)
            step = int(np.sign(target - row.sum()))
            if low <= row[index] + step <= high:
                row[index] += step
        rows.append(row)
    return np.stack(rows)


def divisor14_values(rng: np.random.Generator) -> dict[str, Array]:
    """[1,1,2,56] i32 for k2x7 s2x7: 8 windows of 14 elements, each with a .5 mean."""
    means = [6.5, -6.5, 12.5, -12.5, 14.5, -14.5, 2.5, 3.5]
    rows = windows_with_means(rng, means, 14, -20, 20)  # (window, 14)
    blocks = rows.reshape(8, 2, 7)  # window, kernel row, kernel column
    return {"in": blocks.transpose(1, 0, 2).reshape(1, 1, 2, 56).astype(np.int32)}
