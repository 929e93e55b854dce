"""Convolution-1 and GroupConvolution-1 values: the CPU plugin's golden vectors within the
measured bound, each path (pointwise, depthwise, im2col) against a float64 convolution, the
integer rules and non-finite filters as the CPU computes them
(docs/ops/Convolution.md#numerics-and-tolerances),
the depthwise layout's shared padding and its stride-2 cast.
The live comparison over many configurations is tests/differential/test_convolution.py."""

from __future__ import annotations

import json
from dataclasses import replace
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from irpool.execute.engine import tuning
from irpool.execute.engine.scratch import Scratch
from irpool.execute.kernels import convolution, convolution_winograd, depthwise
from irpool.execute.kernels.convolution import Geometry, run_convolution
from irpool.execute.kernels.depthwise import PhaseLayout
from irpool.execute.registry import OutputSpec
from irpool.ops.convolution import Convolution1, ConvolutionBase, GroupConvolution1
from tests.execute.running import convolution_op as op
from tests.execute.running import convolved as run

GOLDEN = Path(__file__).resolve().parent.parent / "golden_cnn_ops"
CASES = [
    case
    for case in json.loads((GOLDEN / "index.json").read_text())["cases"]
    if case["op"] in ("Convolution-1", "GroupConvolution-1")
]
# Measured: docs/ops/Convolution.md#numerics-and-tolerances
BOUND = 1e-6  # of sum(|x * w|) per output


def reference(conv: ConvolutionBase, x: NDArray[Any], w: NDArray[Any]) -> NDArray[np.float64]:
    """The convolution in float64, tap by tap over the real taps only."""
    windows = conv.windows(x.shape, w.shape)
    grouped = isinstance(conv, GroupConvolution1)
    groups = w.shape[0] if grouped else 1
    w = w.reshape(-1, *w.shape[2:]) if grouped else w
    per_in, per_out = x.shape[1] // groups, w.shape[0] // groups
    out = np.zeros((x.shape[0], w.shape[0], *(win.out for win in windows)))
    for position in product(*(range(win.out) for win in windows)):
        for taps in product(*(range(win.kernel) for win in windows)):
            source = [win.tap(o, j) for win, o, j in zip(windows, position, taps, strict=True)]
            if not all(0 <= s < win.size for s, win in zip(source, windows, strict=True)):
                continue
            for g in range(groups):
                values = x[(slice(None), slice(g * per_in, (g + 1) * per_in), *source)]
                weights = w[(slice(g * per_out, (g + 1) * per_out), slice(None), *taps)]
                out[(slice(None), slice(g * per_out, (g + 1) * per_out), *position)] += (
                    values.astype(np.float64) @ weights.astype(np.float64).T
                )
    return out


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_golden_vectors_within_the_measured_bound(case: dict[str, Any]) -> None:
    kind = GroupConvolution1 if case["op"].startswith("Group") else Convolution1
    attrs = {k: tuple(v) if isinstance(v, list) else v for k, v in case["attributes"].items()}
    conv = kind(attrs).for_layer([])
    with np.load(GOLDEN / f"{case['name']}.npz") as arrays:
        x, w, expected = arrays["input0"], arrays["input1"], arrays["output0"]
    ours = run(conv, x, w)
    assert ours.shape == expected.shape and ours.dtype == expected.dtype
    finite = np.isfinite(expected)
    assert np.array_equal(np.isnan(ours), np.isnan(expected))
    assert np.array_equal(
        ours[~finite & ~np.isnan(expected)], expected[~finite & ~np.isnan(expected)]
    )
    with np.errstate(invalid="ignore"):
        magnitude = reference(conv, np.where(np.isfinite(x), np.abs(x), 0), np.abs(w))
        gap = np.abs(ours.astype(np.float64) - expected)[finite]
    assert np.all(gap <= BOUND * magnitude[finite])


# kind, data shape, filters shape, attributes: every path, 1 to 3 spatial axes, batch > 1
GEOMETRIES = [
    (Convolution1, (2, 5, 7, 6), (4, 5, 1, 1), {}),  # pointwise
    (Convolution1, (2, 5, 7, 6), (4, 5, 1, 1), {"strides": (2, 3)}),  # strided 1x1: im2col
    (Convolution1, (1, 3, 9, 8), (4, 3, 3, 2), {"pads_begin": (1, 0), "pads_end": (2, 1),
                                                "dilations": (2, 1), "strides": (1, 2)}),
    (Convolution1, (3, 2, 11), (5, 2, 4), {"strides": (3,), "pads_begin": (2,), "pads_end": (1,)}),
    (Convolution1, (1, 2, 5, 4, 6), (3, 2, 2, 3, 2), {"auto_pad": "same_lower",
                                                      "strides": (2, 1, 3)}),
    (GroupConvolution1, (2, 6, 7, 7), (3, 2, 2, 3, 3), {"auto_pad": "same_upper"}),
    (GroupConvolution1, (2, 6, 9, 8), (6, 1, 1, 3, 3), {"pads_begin": (1, 1), "pads_end": (1, 1),
                                                        "strides": (2, 2)}),  # depthwise
    (GroupConvolution1, (1, 4, 9, 10), (4, 3, 1, 3, 2), {"dilations": (2, 3),
                                                         "strides": (3, 2)}),  # multiplier 3
    (GroupConvolution1, (2, 3, 13), (3, 1, 1, 5), {"strides": (2,), "pads_begin": (3,),
                                                   "pads_end": (0,)}),
    (GroupConvolution1, (1, 2, 4, 5, 6), (2, 1, 1, 3, 1, 2), {"auto_pad": "valid",
                                                              "strides": (1, 2, 2)}),
    # depthwise phases whose rows and planes share padding: pads up to 3, a dilation, stride 3
    (GroupConvolution1, (2, 3, 7, 7), (3, 1, 1, 3, 3), {"pads_begin": (3, 2), "pads_end": (0, 3),
                                                        "dilations": (2, 1)}),
    (GroupConvolution1, (2, 4, 10, 11), (4, 2, 1, 3, 4), {"pads_begin": (1, 2),
                                                          "pads_end": (2, 1), "strides": (2, 3)}),
    # depthwise grids of row offsets by last-axis shifts: multiplier 2, 3 axes
    (GroupConvolution1, (2, 4, 6, 5), (4, 2, 1, 3, 3), {"pads_begin": (1, 1), "pads_end": (1, 1)}),
    (GroupConvolution1, (1, 3, 4, 5, 6), (3, 1, 1, 3, 2, 3), {"pads_begin": (1, 0, 2),
                                                              "pads_end": (1, 1, 0)}),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "data", "filters", "attrs"), GEOMETRIES)
def test_every_path_is_the_convolution(
    kind: type[ConvolutionBase], data: tuple[int, ...], filters: tuple[int, ...], attrs: Any
) -> None:
    rng = np.random.default_rng(len(data) + sum(filters))
    x = rng.standard_normal(data).astype(np.float32)
    w = rng.standard_normal(filters).astype(np.float32)
    conv = op(kind, len(data) - 2, **attrs)
    ours = run(conv, x, w)
    exact = reference(conv, x, w)
    magnitude = reference(conv, np.abs(x), np.abs(w))
    assert ours.dtype == np.float32
    assert np.all(np.abs(ours - exact) <= BOUND * magnitude)
    # x NaN at one place reaches exactly the outputs whose window holds it
    x[0, 0, *(s // 2 for s in data[2:])] = np.nan
    expected = np.isnan(reference(conv, x, w))
    assert np.array_equal(np.isnan(run(conv, x, w)), expected)


# batch, channels in and out, rows, columns, pads begin and end: odd and even outputs, tiles
# over the padding's end, one output, no padding
WINOGRAD_SHAPES = [
    (2, 16, 5, 9, 8, (1, 1), (1, 1)),
    (1, 24, 3, 7, 6, (2, 0), (1, 3)),
    (1, 16, 4, 3, 3, (0, 0), (0, 0)),
    (3, 17, 2, 1, 1, (1, 1), (1, 1)),
    (1, 32, 6, 12, 11, (0, 1), (0, 2)),
]


# F(4x4, 3x3), only for layers the CPU runs on int8 operands: measured at most 4.5e-6 of the
# largest sum(|x * w|) of the output's tile from 16 channels (an output whose window holds
# only zeros takes its tile's rounding; docs/ops/Convolution.md#winograd).
WINOGRAD4_BOUND = 1e-5


def tile_magnitude(magnitude: NDArray[np.float64], tile: int) -> NDArray[np.float64]:
    """Each output's largest sum(|x * w|) over its tile of `tile` x `tile` outputs."""
    n, o, h, w = magnitude.shape
    th, tw = -(-h // tile), -(-w // tile)
    padded = np.zeros((n, o, th * tile, tw * tile))
    padded[:, :, :h, :w] = magnitude
    largest = padded.reshape(n, o, th, tile, tw, tile).max(axis=(3, 5), keepdims=True)
    return np.broadcast_to(largest, padded.reshape(n, o, th, tile, tw, tile).shape).reshape(
        padded.shape
    )[:, :, :h, :w]


@pytest.mark.parametrize(
    ("variant", "bound"),
    [
        (convolution_winograd.F2, BOUND),
        (convolution_winograd.F2_PRODUCTS, BOUND),
        (convolution_winograd.F4, WINOGRAD4_BOUND),
    ],
)
@pytest.mark.parametrize(("n", "c", "o", "h", "w", "begin", "end"), WINOGRAD_SHAPES)
def test_winograd_is_the_convolution(
    n: int,
    c: int,
    o: int,
    h: int,
    w: int,
    begin: tuple[int, int],
    end: tuple[int, int],
    variant: convolution_winograd.Variant,
    bound: float,
) -> None:
    rng = np.random.default_rng(c * h + w)
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    filters = rng.standard_normal((o, c, 3, 3)).astype(np.float32)
    conv = op(Convolution1, 2, pads_begin=begin, pads_end=end)
    windows = conv.windows(x.shape, filters.shape)
    pads = ((begin[0], end[0]), (begin[1], end[1]))
    tiles = convolution_winograd.transformed_filters(filters, variant)
    ours = convolution_winograd.winograd(x, tiles, pads, (windows[0].out, windows[1].out), variant)
    assert ours is not None and ours.dtype == np.float32
    magnitude = reference(conv, np.abs(x), np.abs(filters))
    if variant is convolution_winograd.F4:
        magnitude = tile_magnitude(magnitude, variant.tile)
    assert np.all(np.abs(ours - reference(conv, x, filters)) <= bound * magnitude)


@pytest.mark.parametrize(("n", "c", "o", "h", "w", "begin", "end"), WINOGRAD_SHAPES)
def test_f2_by_products_gives_the_values_of_f2_by_adds(
    n: int, c: int, o: int, h: int, w: int, begin: tuple[int, int], end: tuple[int, int]
) -> None:
    """Its matrices hold 0 and ±1: each sum adds the same terms in the same order, and
    exact zeros (equal values; only the sign of a zero sum may differ)."""
    rng = np.random.default_rng(c * h + w + 1)
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    filters = rng.standard_normal((o, c, 3, 3)).astype(np.float32)
    tiles = convolution_winograd.transformed_filters(filters, convolution_winograd.F2)
    pads = ((begin[0], end[0]), (begin[1], end[1]))
    out = (h + begin[0] + end[0] - 2, w + begin[1] + end[1] - 2)
    by_adds = convolution_winograd.winograd(x, tiles, pads, out)
    products = convolution_winograd.F2_PRODUCTS
    assert np.array_equal(convolution_winograd.winograd(x, tiles, pads, out, products), by_adds)


def test_a_large_image_laid_out_in_blocks_of_channels_keeps_every_bit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Planes of 130x130 are laid out channels last 8 channels at a time (20 = 8 + 8 + 4):
    the same bits as the whole image in one copy."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 20, 130, 130)).astype(np.float32)
    tiles = convolution_winograd.transformed_filters(
        rng.standard_normal((4, 20, 3, 3)).astype(np.float32)
    )
    pads = ((1, 1), (1, 1))
    blocked = convolution_winograd.winograd(x, tiles, pads, (130, 130))
    monkeypatch.setattr(convolution_winograd, "SPAN_BYTES", 1 << 40)
    whole = convolution_winograd.winograd(x, tiles, pads, (130, 130))
    assert blocked is not None and whole is not None
    assert np.array_equal(blocked.view(np.int32), whole.view(np.int32))


def winograd_calls(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Records the layers the convolution kernel hands to Winograd."""
    calls: list[object] = []

    def counted(*args: Any) -> Any:
        calls.append(args)
        return convolution_winograd.winograd(*args)

    monkeypatch.setattr(convolution, "winograd", counted)
    return calls


def test_winograd_leaves_a_nan_or_inf_where_its_windows_put_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Winograd's transforms spread a value over its whole tile: a result that is not
    finite is computed window by window."""
    calls = winograd_calls(monkeypatch)
    rng = np.random.default_rng(5)
    filters = rng.standard_normal((64, 64, 3, 3)).astype(np.float32)
    conv = op(Convolution1, 2, pads_begin=(1, 1), pads_end=(1, 1))
    for special in (np.nan, np.inf):
        x = rng.standard_normal((1, 64, 16, 16)).astype(np.float32)
        x[0, 3, 7, 8] = special
        ours = run(conv, x, filters)
        expected = reference(conv, x, filters)
        assert np.array_equal(np.isnan(ours), np.isnan(expected))
        assert np.array_equal(np.isinf(ours), np.isinf(expected))
    assert len(calls) == 2  # chosen by the cost model (IRPOOL_TUNE=0) for this shape


@pytest.mark.parametrize(("int8_on_cpu", "points"), [(False, 16), (True, 36)])
def test_winograd_f4_only_where_the_cpu_runs_int8(
    monkeypatch: pytest.MonkeyPatch, int8_on_cpu: bool, points: int
) -> None:
    """The cost model (IRPOOL_TUNE=0) takes F(4x4, 3x3) for this layer, but only where the
    plan marks it as run on int8 operands; elsewhere F(2x2, 3x3)."""
    calls = winograd_calls(monkeypatch)
    rng = np.random.default_rng(6)
    x = rng.standard_normal((1, 64, 32, 32)).astype(np.float32)
    filters = rng.standard_normal((64, 64, 3, 3)).astype(np.float32)
    conv = op(Convolution1, 2, pads_begin=(1, 1), pads_end=(1, 1))
    conv.int8_on_cpu = int8_on_cpu
    ours = run(conv, x, filters)
    (call,) = calls
    assert call[1].shape[0] == points  # the transformed filters' matrices
    magnitude = tile_magnitude(reference(conv, np.abs(x), np.abs(filters)), 4)
    assert np.all(np.abs(ours - reference(conv, x, filters)) <= WINOGRAD4_BOUND * magnitude)


def test_an_inf_weight_over_the_padding_leaves_the_border_finite() -> None:
    """The CPU's kernels skip the taps in the padding (measured,
    docs/ops/Convolution.md#numerics-and-tolerances): no 0 * inf there."""
    for kind, filters in ((Convolution1, (4, 3, 3, 3)), (GroupConvolution1, (3, 1, 1, 3, 3))):
        conv = op(kind, 2, pads_begin=(1, 1), pads_end=(1, 1))
        w = np.ones(filters, np.float32)
        w[..., 0, 0] = np.inf
        ours = run(conv, np.ones((1, 3, 5, 5), np.float32), w)
        assert np.isfinite(ours[..., 0, :]).all() and np.isfinite(ours[..., :, 0]).all()
        assert np.isposinf(ours[..., 1:, 1:]).all()
        x = np.ones((1, 3, 5, 5), np.float32)
        x[0, :, 0, 0] = 0  # a real zero under the inf weight gives NaN
        assert np.isnan(run(conv, x, w)[:, :, 1, 1]).all()


@pytest.mark.parametrize(
    ("dtype", "data", "weights", "expected"),
    [
        # computed in f32 from values wrapped to int32; saturated into int32 at 2147483520
        (np.int32, [16777217, 3, 2**30, -7], [1], [16777216, 3, 2**30, -7]),
        (np.int32, [2**30, 2**30, 5, -7], [2, 1], [2147483520, 2147483520, 3]),
        (np.int32, [-(2**31), -(2**31), 5, 0], [1, 1], [-(2**31), -(2**31), 5]),  # f32
        (np.int64, [2**40 + 3, 2**33, 5, -7], [1], [3, 0, 5, -7]),
        (np.int64, [2**31 - 1, 2**31 - 1, 2**32 - 1, 0], [1, 1], [2147483520, 2147483520, -1]),
        # 16 bits wrap, 8 bits saturate
        (np.int16, [32767, 32767, 5, 0], [1, 1], [-2, -32764, 5]),
        (np.uint16, [65535, 65535, 5, 0], [1, 1], [65534, 4, 5]),
        (np.int8, [100, 100, -100, -100], [2, 2], [127, 0, -128]),  # kept without VNNI
        (np.uint8, [255, 255, 7, 0], [255], [255, 255, 255, 0]),
        (np.int8, [-128, 127, 7, 0], [-128], [127, -128, -128, 0]),
    ],
)  # fmt: skip
def test_integers_as_the_cpu_computes_them(
    dtype: Any, data: list[int], weights: list[int], expected: list[int]
) -> None:
    x = np.array(data, dtype=np.int64).astype(dtype).reshape(1, 1, -1)
    w = np.array(weights, dtype=np.int64).astype(dtype).reshape(1, 1, -1)
    ours = run(op(Convolution1, 1), x, w)
    assert ours.dtype == dtype
    assert ours.ravel().tolist() == np.array(expected).astype(dtype).tolist()


def test_floats_are_computed_in_f32() -> None:
    conv = op(Convolution1, 1)
    f16 = run(conv, np.array([[[60000, 60000, 3.0]]], np.float16), np.ones((1, 1, 2), np.float16))
    assert f16.dtype == np.float16 and f16.ravel().tolist() == [np.inf, 60000]  # 60003 in f16
    x = np.array([[[1e300, 1e-300, 3.0]]])
    f64 = run(conv, x, np.ones((1, 1, 1)))
    assert f64.ravel().tolist() == [float(np.finfo(np.float32).max), 0.0, 3.0]


def test_prepared_filters_follow_the_filters_array() -> None:
    conv = op(Convolution1, 2)
    x = np.ones((1, 2, 3, 3), np.float32)
    first = np.ones((1, 2, 1, 1), np.float32)
    spec = [OutputSpec.of("f32")]
    assert run_convolution(conv, [x, first], spec)[0].max() == 2
    second = first * 3  # a new array (a filters Parameter): prepared again
    assert run_convolution(conv, [x, second], spec)[0].max() == 6


def test_two_threads_give_the_same_values(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = winograd_calls(monkeypatch)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 64, 40, 40)).astype(np.float32)
    for kind, filters, int8_on_cpu in (
        (Convolution1, (32, 64, 3, 3), False),  # im2col
        (Convolution1, (64, 64, 3, 3), False),  # Winograd F(2x2, 3x3)
        (Convolution1, (64, 64, 3, 3), True),  # Winograd F(4x4, 3x3)
        (GroupConvolution1, (64, 1, 1, 3, 3), False),
    ):
        conv = op(kind, 2, pads_begin=(1, 1), pads_end=(1, 1))
        conv.int8_on_cpu = int8_on_cpu
        w = rng.standard_normal(filters).astype(np.float32)
        one = run(conv, x, w)
        monkeypatch.setenv("IRPOOL_THREADS", "2")
        assert np.array_equal(run(conv, x, w), one)
        monkeypatch.delenv("IRPOOL_THREADS")
    assert [call[1].shape[0] for call in calls] == [16, 16, 36, 36]


@pytest.mark.parametrize("width", [8, 9, 12])
def test_a_stride_2_axis_laid_out_by_a_cast_keeps_every_bit(
    monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    """The depthwise path lays out a stride-2 last axis by a uint64 -> uint32 cast: the
    strided copy's bits, NaN payloads and -0 included, the last element of an odd phase too."""
    rng = np.random.default_rng(width)
    x = rng.standard_normal((2, 3, 5, width)).astype(np.float32)
    x.view(np.uint32).flat[::7] = 0x7FC01234  # a NaN with a payload
    x.flat[3::11] = -0.0
    w = rng.standard_normal((3, 1, 1, 3, 3)).astype(np.float32)
    conv = op(GroupConvolution1, 2, pads_begin=(1, 1), pads_end=(1, 1), strides=(2, 2))
    geometry = Geometry(tuple(conv.windows(x.shape, w.shape)), 3, 1, 1, "depthwise")
    layout = PhaseLayout.of(geometry)
    planes = x.reshape(6, 5, width)
    rows = range(len(layout.copies))
    cast = layout.phases(planes, Scratch(), rows, 0).copy()
    monkeypatch.setattr(depthwise, "CAST_OK", False)
    assert cast.tobytes() == layout.phases(planes, Scratch(), rows, 0).tobytes()


@pytest.mark.parametrize(
    ("attrs", "sources", "rows"),
    [
        ({"pads_begin": (1, 1), "pads_end": (1, 1)}, 3, 3),  # the grid: 3 shifts, 3 row offsets
        ({"dilations": (2, 3)}, 3, 3),
        ({"strides": (2, 2), "pads_begin": (1, 1), "pads_end": (1, 1)}, 9, 1),  # a tap a source
        ({"strides": (1, 2)}, 3, 3),  # the columns' phases are sources too
        ({"strides": (2, 1)}, 9, 1),
    ],
)
def test_depthwise_taps_are_copied_once_per_last_axis_shift_where_they_form_a_grid(
    attrs: Any, sources: int, rows: int
) -> None:
    conv = op(GroupConvolution1, 2, **attrs)
    windows = tuple(conv.windows((1, 2, 11, 12), (2, 1, 1, 3, 3)))
    grid = PhaseLayout.of(Geometry(windows, 2, 1, 1, "depthwise")).grid
    assert (len(grid.sources), len(grid.rows)) == (sources, rows)


@pytest.mark.parametrize(
    ("strides", "inf_weight", "reused"), [((1, 1), False, True), ((2, 2), False, False),
                                          ((1, 1), True, False)]
)  # fmt: skip
def test_a_depthwise_layer_writes_into_an_input_it_may_overwrite(
    strides: tuple[int, int], inf_weight: bool, reused: bool
) -> None:
    """Where the run lets it overwrite its input and the output has the input's shape, a
    depthwise layer writes into the input's array (each block reads its planes first); not
    where filters with inf or NaN have their outputs computed again from the input."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 5, 9, 8)).astype(np.float32)
    w = rng.standard_normal((5, 1, 1, 3, 3)).astype(np.float32)
    if inf_weight:
        w[1, 0, 0, 0, 0] = np.inf
    conv = op(GroupConvolution1, 2, pads_begin=(1, 1), pads_end=(1, 1), strides=strides)
    expected = run(conv, x, w)
    spec = [replace(OutputSpec.of("f32"), overwrites_input=True)]
    given = x.copy()
    (ours,) = run_convolution(conv, [given, w], spec)
    assert (ours is given) == reused
    assert ours.tobytes() == expected.tobytes()


def test_an_inf_weight_leaves_the_neighbouring_planes_finite() -> None:
    """A depthwise grid adds each row offset's products over the block's planes, a plane's
    last rows reading past its end into the next plane's zero padding: there the next
    plane's weights must not multiply (an inf one would make 0 * inf = NaN)."""
    conv = op(GroupConvolution1, 2, pads_begin=(1, 1), pads_end=(1, 1))
    x = np.random.default_rng(2).standard_normal((1, 3, 6, 5)).astype(np.float32)
    w = np.ones((3, 1, 1, 3, 3), np.float32)
    w[1, ..., 2, 1] = np.inf  # the last row offset: the one that reads past a plane
    ours = run(conv, x, w)
    assert np.isfinite(ours[:, [0, 2]]).all()
    assert np.array_equal(np.isnan(ours), np.isnan(reference(conv, x, w)))


def test_the_tuner_times_each_winograd_variant_without_its_filter_transform(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Timing alternates the variants: each transforms its filters once, so no timed call
    pays for a transform (which made F(4x4), the larger one, lose), and only the chosen
    variant's transform is kept."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("IRPOOL_TUNE", "1")
    monkeypatch.setattr(tuning, "_loaded", None)
    made: list[object] = []

    def counted(filters: NDArray[Any], variant: Any) -> Any:
        made.append(variant)
        return convolution_winograd.transformed_filters(filters, variant)

    monkeypatch.setattr(convolution, "transformed_filters", counted)
    rng = np.random.default_rng(8)
    conv = op(Convolution1, 2, pads_begin=(1, 1), pads_end=(1, 1))
    conv.int8_on_cpu = True
    x = rng.standard_normal((1, 32, 24, 24)).astype(np.float32)
    filters = rng.standard_normal((32, 32, 3, 3)).astype(np.float32)
    first = run(conv, x, filters)
    assert sorted(map(id, made)) == sorted(
        map(id, [convolution_winograd.F2_PRODUCTS, convolution_winograd.F4])
    )
    assert len([key for key in conv.kernel_cache if key[0] == "winograd"]) <= 1
    assert run(conv, x, filters).tobytes() == first.tobytes()
    assert len(made) == 2
