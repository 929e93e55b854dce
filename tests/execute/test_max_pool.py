"""The MaxPool kernel against a brute-force loop of the CPU plugin's rule, and measured cases.

The rule (docs/ops/MaxPool.md): start at the compare type's lowest
value, scan the real taps in row-major order, keep a tap only when it is strictly greater;
the index is the winner's flat index over the whole tensor, modulo prod(shape[axis:]) when
axis is not 0.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from irpool.cpu import maxima
from irpool.cpu.isa import AVX2, AVX512_CORE, AVX512_CORE_BF16
from irpool.cpu.maxima import BF16_LOWEST, flushed_subnormals
from irpool.execute.kernels.max_pool import max_pool
from irpool.execute.registry import OutputSpec, kernel_of
from irpool.ops.max_pool import MaxPool1, MaxPool8, MaxPool14, MaxPoolBase
from irpool.ops.pooling_geometry import Window
from tests.scale import examples

from .running import compute

FLT_LOWEST = float(np.finfo(np.float32).min)
FLT_MAX = float(np.finfo(np.float32).max)
DTYPES = ["float32", "float16", "float64", "int32", "int64", "int16", "uint16", "uint32"]
DTYPES += ["uint64", "int8", "uint8", "bool"]


def compare_type(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """What the CPU plugin compares in (measured): f32 for floats, i8/u8 as they are (boolean
    as u8), i32 for every other integer type."""
    if dtype.kind == "f":
        return np.dtype(np.float32)
    if dtype == np.bool_:
        return np.dtype(np.uint8)
    return dtype if dtype.itemsize == 1 else np.dtype(np.int32)


def reference(
    x: NDArray[Any], windows: Sequence[Window], axis: int
) -> tuple[NDArray[Any], NDArray[np.int64]]:
    work = compare_type(x.dtype)
    if x.dtype == np.float64:
        x = np.clip(x, -np.finfo(np.float32).max, np.finfo(np.float32).max)
    data = x.astype(work)
    lowest = np.finfo(work).min if work.kind == "f" else np.iinfo(work).min
    spatial = x.shape[2:]
    plane = int(np.prod(spatial))
    outs = tuple(w.out for w in windows)
    values = np.empty((*x.shape[:2], *outs), work)
    indices = np.zeros(values.shape, np.int64)
    for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for o in itertools.product(*(range(out) for out in outs)):
            best, winner = lowest, 0
            for taps in itertools.product(*(range(w.kernel) for w in windows)):
                position = [
                    i * w.stride - w.pad_begin + j * w.dilation
                    for i, j, w in zip(o, taps, windows, strict=True)
                ]
                if all(0 <= p < w.size for p, w in zip(position, windows, strict=True)):
                    value = data[(n, c, *position)]
                    if value > best:
                        best, winner = value, int(np.ravel_multi_index(position, spatial))
            values[(n, c, *o)] = best
            indices[(n, c, *o)] = (n * x.shape[1] + c) * plane + winner
    if axis:
        indices %= int(np.prod(x.shape[axis:]))
    with np.errstate(over="ignore"):
        return values.astype(x.dtype), indices


@st.composite
def axis_windows(draw: st.DrawFn) -> Window:
    size = draw(st.integers(1, 7))
    kernel, stride, dilation = (
        draw(st.integers(1, 4)),
        draw(st.integers(1, 3)),
        draw(st.integers(1, 3)),
    )
    pad_begin = draw(st.integers(0, 4))  # pads may exceed the kernel: windows in the padding
    # Windows up to past the padded end, as ceil rounding makes them.
    return Window(size, draw(st.integers(1, 5)), kernel, stride, dilation, pad_begin)


def sample(shape: tuple[int, ...], dtype: np.dtype[Any], seed: int) -> NDArray[Any]:
    """Few distinct values (ties everywhere), and NaN and ±inf in float inputs."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 4, shape).astype(dtype)
    if dtype.kind == "f":
        roll = rng.random(shape)
        x[roll < 0.1] = np.nan
        x[(roll >= 0.1) & (roll < 0.15)] = -np.inf
        x[(roll >= 0.15) & (roll < 0.18)] = np.inf
    return x


@settings(max_examples=examples(300), deadline=None)
@given(
    windows=st.lists(axis_windows(), min_size=1, max_size=3),
    batch=st.integers(1, 2),
    channels=st.integers(1, 3),
    dtype=st.sampled_from(DTYPES),
    axis_pick=st.integers(0, 4),
    seed=st.integers(0, 2**32 - 1),
)
def test_kernel_matches_the_reference(
    windows: list[Window], batch: int, channels: int, dtype: str, axis_pick: int, seed: int
) -> None:
    x = sample((batch, channels, *(w.size for w in windows)), np.dtype(dtype), seed)
    axis = axis_pick % x.ndim
    expected_values, expected_indices = reference(x, windows, axis)
    values, indices = max_pool(x, windows, True, axis)
    only_values, none = max_pool(x, windows, False)
    assert none is None
    np.testing.assert_array_equal(values, expected_values)
    np.testing.assert_array_equal(only_values, expected_values)
    np.testing.assert_array_equal(indices, expected_indices)


# Stride 2 over even axes reads laid-out phases (last axis: the uint64 cast; outer axes with
# three or more taps: row copies), as flat slices when the output is as long as a phase
# (k3 s2 p1) and as row slices otherwise (k3 s2 p0); many planes, so slices cross rows.
@pytest.mark.parametrize(
    ("spatial", "kernel", "pad"),
    [((8, 8), 3, 1), ((10, 12), 3, 0), ((4, 6, 8), 3, 1), ((6, 8), 2, 0), ((8,), 5, 2)],
)
@pytest.mark.parametrize("dtype", ["float32", "int32", "float64"])
def test_stride_two_phases_match_the_reference(
    spatial: tuple[int, ...], kernel: int, pad: int, dtype: str
) -> None:
    windows = [Window(n, (n + 2 * pad - kernel) // 2 + 1, kernel, 2, 1, pad) for n in spatial]
    x = sample((2, 5, *spatial), np.dtype(dtype), seed=len(spatial) + kernel)
    expected, _ = reference(x, windows, 0)
    values, _ = max_pool(x, windows, False)
    np.testing.assert_array_equal(values, expected)


NAN, INF = float("nan"), float("inf")


# Measured with OpenVINO 2026.4.1 CPU, both paths (values only, and with indices): input
# [1, 1, W], window (kernel, stride, pads on both ends).
@pytest.mark.parametrize(
    ("data", "dtype", "window", "values", "indices"),
    [
        ([NAN, 2, 3], "float32", (2, 1, 0), [2, 3], [1, 2]),
        ([1, NAN, 3], "float32", (2, 1, 0), [1, 3], [0, 2]),
        ([1, 2, NAN], "float32", (2, 1, 0), [2, 2], [1, 1]),
        ([NAN, NAN], "float32", (2, 1, 0), [FLT_LOWEST], [0]),
        ([-INF, -INF], "float32", (2, 1, 0), [FLT_LOWEST], [0]),
        ([1, INF], "float32", (2, 1, 0), [INF], [1]),
        ([3, 3, 1], "float32", (2, 1, 0), [3, 3], [0, 1]),
        ([-5, -6, -7], "float32", (2, 1, 1), [-5, -5, -6, -7], [0, 0, 1, 2]),
        ([-INF, 1, NAN], "float16", (1, 1, 0), [-INF, 1, -INF], [0, 1, 0]),
        ([INF, 1e300, -INF, -1e300, NAN, 1], "float64", (1, 1, 0),
         [FLT_MAX, FLT_MAX, FLT_LOWEST, FLT_LOWEST, FLT_LOWEST, 1], [0, 1, 0, 0, 0, 5]),
        ([4000000000, 1, 3], "uint32", (2, 1, 0), [1, 3], [1, 2]),
        ([2**63, 1, 2**32 + 7], "uint64", (2, 1, 0), [1, 7], [1, 2]),
        ([2**31, 2**40 + 5], "int64", (1, 1, 0), [-(2**31), 5], [0, 1]),
        ([40000, 1], "uint16", (2, 1, 0), [40000], [0]),
        ([True, False], "bool", (2, 1, 0), [True], [0]),
    ],
)  # fmt: skip
def test_measured_cases(
    data: list[float],
    dtype: str,
    window: tuple[int, int, int],
    values: list[float],
    indices: list[int],
) -> None:
    kernel, stride, pad = window
    x = np.array([[data]], dtype=dtype)
    size = len(data)
    out = (size + 2 * pad - kernel) // stride + 1
    got, where = max_pool(x, [Window(size, out, kernel, stride, 1, pad)], True, 0)
    np.testing.assert_array_equal(got[0, 0], np.array(values, dtype=dtype))
    np.testing.assert_array_equal(where[0, 0], indices)


@pytest.mark.parametrize(
    ("axis", "expected"),
    [
        (0, [[[1, 3], [5, 6]], [[8, 10], [12, 15]]]),
        (1, [[[1, 3], [5, 6]], [[0, 2], [4, 7]]]),
        (2, [[[1, 3], [1, 2]], [[0, 2], [0, 3]]]),
    ],
)
def test_index_axis(axis: int, expected: list[list[list[int]]]) -> None:
    """Measured: MaxPool-8 k2 s2 on [N=2, C=2, W=4]; axis 0 counts over the whole tensor."""
    x = np.array([[[0, 9, 1, 2], [3, 4, 8, 5]], [[7, 6, 1, 0], [2, 2, 3, 9]]], np.float32)
    _, where = max_pool(x, [Window(4, 2, 2, 2, 1, 0)], True, axis)
    np.testing.assert_array_equal(where, expected)


def test_windows_entirely_in_padding_report_the_plane_start() -> None:
    """Measured: D=3 k1 p2/2 with N=2 (axis 0): the empty windows of batch 1 report 3."""
    x = np.arange(6, dtype=np.float32).reshape(2, 1, 3)
    values, where = max_pool(x, [Window(3, 7, 1, 1, 1, 2)], True, 0)
    np.testing.assert_array_equal(where[:, 0], [[0, 0, 0, 1, 2, 0, 0], [3, 3, 3, 4, 5, 3, 3]])
    assert values[1, 0, 0] == FLT_LOWEST


def max_pool_op(version: int, **attrs: Any) -> MaxPoolBase:
    """A MaxPool layer as read from the IR: k2 s2, no pads, unless `attrs` say otherwise."""
    cls = {1: MaxPool1, 8: MaxPool8, 14: MaxPool14}[version]
    defaults = {a.name: a.default for a in cls.own_attributes()}
    given = {"kernel": (2,), "strides": (2,), "pads_begin": (0,), "pads_end": (0,)}
    return cls({**defaults, **given, **attrs})


@pytest.mark.parametrize(
    ("op", "index_dtype"),
    [
        (max_pool_op(8, dilations=(1,), index_element_type="i32", axis=-1), np.int32),
        (max_pool_op(14, dilations=(1,), axis=2), np.int64),
    ],
)
def test_the_runner_gets_indices_in_their_element_type(op: MaxPoolBase, index_dtype: Any) -> None:
    x = np.array([[[0, 9, 1, 2], [3, 4, 8, 5]]], np.float32)
    values, indices = compute(op, [x])
    assert indices is not None and indices.dtype == index_dtype
    np.testing.assert_array_equal(values, [[[9, 2], [4, 8]]])
    np.testing.assert_array_equal(indices, [[[1, 3], [1, 2]]])


def test_unread_indices_are_not_computed() -> None:
    op = max_pool_op(8, dilations=(1,))
    kernel = kernel_of(op)
    assert kernel is not None
    x = np.arange(4, dtype=np.float32).reshape(1, 1, 4)
    specs = [OutputSpec.of("f32"), OutputSpec.of("i64", used=False)]
    values, indices = kernel(op, [x], specs)
    assert indices is None
    np.testing.assert_array_equal(values, [[[1, 3]]])


def test_maxpool1_has_one_output() -> None:
    x = np.arange(4, dtype=np.float32).reshape(1, 1, 4)
    (values,) = compute(max_pool_op(1), [x])
    np.testing.assert_array_equal(values, [[[1, 3]]])


def test_bf16_empty_windows_give_bf16s_lowest() -> None:
    """Measured: the CPU writes 0xff7f (-3.39e38) for an empty bf16 window; f32's lowest
    would round to -inf."""
    x = np.array([[[1.0, 2.0]]], np.float32)
    values, _ = max_pool(x, [Window(2, 2, 1, 2, 1, 0)], False, start=float(BF16_LOWEST))
    assert values[0, 0, 1].view(np.uint32) == 0xFF7F0000


@pytest.mark.parametrize(
    ("isa", "expected_bits"),
    [
        (AVX512_CORE_BF16, [0x0, 0x80000000, 0x800000, 0x3F800000]),
        (AVX512_CORE, [0x500000, 0x80400000, 0x800000, 0x3F800000]),
        (AVX2, [0x500000, 0x80400000, 0x800000, 0x3F800000]),
    ],
)
def test_bf16_maxima_flush_subnormals_only_with_avx512_bf16(
    monkeypatch: pytest.MonkeyPatch, isa: str, expected_bits: list[int]
) -> None:
    """Measured with ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI and AVX2: the bf16 MaxPool keeps the
    subnormals the AVX512_BF16 host flushes (docs/cpu.md#bf16-maxpool-flushes-subnormals)."""
    monkeypatch.setattr(maxima, "bf16_isa", lambda: isa)
    words = np.array([0x500000, 0x80400000, 0x800000, 0x3F800000], np.uint32)
    got = flushed_subnormals(words.view(np.float32)).view(np.uint32)
    assert got.tolist() == expected_bits


@pytest.mark.parametrize(
    ("shape", "out", "avx2_in_f32"),
    [
        ((1, 1, 1, 4), (1, 2), True),  # 2 outputs: oneDNN's f32 reference kernel on AVX2
        ((1, 1, 1, 3), (1, 3), True),
        ((1, 1, 1, 8), (1, 4), False),  # 4 outputs: the exact integer kernel
        ((2, 1, 1, 4), (1, 2), False),  # the batch counts
        ((1, 1, 4), (2,), True),
    ],
)
def test_one_channel_integer_max_pool_goes_through_f32_below_4_outputs_with_avx2(
    monkeypatch: pytest.MonkeyPatch, shape: tuple[int, ...], out: tuple[int, ...], avx2_in_f32: bool
) -> None:
    """Measured with ONEDNN_MAX_CPU_ISA=AVX2 (docs/cpu.md#one-channel-integer-maxpool-is-exact):
    AVX-512 runs any size exactly."""
    windows = [Window(size, o, 1, 1, 1, 0) for size, o in zip(shape[2:], out, strict=True)]
    for isa, expected in ((AVX512_CORE, False), (AVX2, avx2_in_f32)):
        monkeypatch.setattr(maxima, "cpu_isa", lambda isa=isa: isa)
        assert maxima.max_pool_values_in_f32(shape, windows) == expected, isa
