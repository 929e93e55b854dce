"""Kernels shared by the run's threads give the same bits on 1 thread and on 2: a
convolution of a small feature map (one tile of output positions an image), cut along its
output channels; Gelu's erf and Swish, block by block; attention, by head and span of query
rows (the CPU's attention node: its emulated products by none, BLAS's by span). A
convolution too small to pay for a hand-off, and a depthwise one, stay on one thread."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from irpool.cpu import attention_node, attention_snippet
from irpool.execute.engine import blocks, costs
from irpool.execute.kernels import convolution_winograd, depthwise
from irpool.execute.kernels.activations import run_gelu, run_swish
from irpool.execute.registry import OutputSpec
from irpool.ops.activations import Gelu7, Swish4
from irpool.ops.convolution import Convolution1, GroupConvolution1
from tests.execute.running import attention, convolution_op, convolved

RNG = np.random.default_rng(5)
X = RNG.standard_normal((1, 32, 7, 7)).astype(np.float32)
FILTERS_1X1 = RNG.standard_normal((300, 32, 1, 1)).astype(np.float32)
FILTERS_3X3 = RNG.standard_normal((300, 32, 3, 3)).astype(np.float32)


def pointwise() -> NDArray[Any]:
    return convolved(convolution_op(Convolution1, 2), X, FILTERS_1X1)


def columns() -> NDArray[Any]:  # stride 2: never Winograd
    return convolved(convolution_op(Convolution1, 2, strides=(2, 2)), X, FILTERS_3X3)


def winograd() -> NDArray[Any]:
    filters = convolution_winograd.transformed_filters(FILTERS_3X3)
    result = convolution_winograd.winograd(X, filters, ((1, 1), (1, 1)), (7, 7))
    assert result is not None
    return result


@pytest.fixture
def dealt(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many pieces each call that shares work among threads deals out, from one thread
    until a test sets IRPOOL_THREADS (a preset environment must not decide the first run)."""
    monkeypatch.delenv("IRPOOL_THREADS", raising=False)
    counts: list[int] = []
    deal = blocks._deal
    monkeypatch.setattr(
        blocks, "_deal", lambda pieces, n: counts.append(len(pieces)) or deal(pieces, n)
    )
    return counts


@pytest.mark.parametrize("path", [pointwise, columns, winograd], ids=lambda path: path.__name__)
def test_a_small_feature_map_is_shared_along_its_output_channels(
    monkeypatch: pytest.MonkeyPatch, path: Callable[[], NDArray[Any]], dealt: list[int]
) -> None:
    monkeypatch.setattr(blocks, "TILE_MACS", 1 << 10)  # a product of this size is cut
    monkeypatch.setattr(costs, "THREAD_MACS", 1 << 10)  # and shared
    one = path()
    monkeypatch.setenv("IRPOOL_THREADS", "2")
    two = path()
    assert dealt == [2]  # 300 channels: two spans of 150 (at least 128 each)
    assert one.tobytes() == two.tobytes()


@pytest.mark.parametrize("path", [pointwise, columns], ids=lambda path: path.__name__)
def test_a_convolution_below_the_thread_share_stays_on_one_thread(
    monkeypatch: pytest.MonkeyPatch, path: Callable[[], NDArray[Any]], dealt: list[int]
) -> None:
    """The two spans above, not shared where a thread would get fewer multiply-adds than
    THREAD_MACS."""
    monkeypatch.setattr(blocks, "TILE_MACS", 1 << 10)
    one = path()
    monkeypatch.setattr(costs, "THREAD_MACS", FILTERS_3X3.size * 49 * 2)
    monkeypatch.setenv("IRPOOL_THREADS", "2")
    two = path()
    assert dealt == []
    assert one.tobytes() == two.tobytes()


def test_a_depthwise_convolution_stays_on_one_thread(
    monkeypatch: pytest.MonkeyPatch, dealt: list[int]
) -> None:
    """Its blocks (here 8 of a few planes) run on the calling thread whatever their size."""
    x = RNG.standard_normal((1, 64, 16, 16)).astype(np.float32)
    filters = RNG.standard_normal((64, 1, 1, 3, 3)).astype(np.float32)
    monkeypatch.setattr(blocks, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(depthwise, "CHUNK_BYTES", 1 << 14)
    one = convolved(convolution_op(GroupConvolution1, 2), x, filters)
    monkeypatch.setenv("IRPOOL_THREADS", "2")
    assert convolved(convolution_op(GroupConvolution1, 2), x, filters).tobytes() == one.tobytes()
    assert dealt == []


@pytest.mark.parametrize("mode", ["ERF", "TANH"])
def test_gelu_is_shared_block_by_block(
    monkeypatch: pytest.MonkeyPatch, dealt: list[int], mode: str
) -> None:
    x = (RNG.standard_normal(3 << 18) * 4).astype(np.float32)  # 3 MiB: 3 blocks, made 4
    x[:4] = [np.inf, -np.inf, np.nan, 3e38]
    gelu = Gelu7({"approximation_mode": mode}).for_layer([])
    (one,) = run_gelu(gelu, [x], [OutputSpec.of("f32")])
    monkeypatch.setenv("IRPOOL_THREADS", "2")
    (two,) = run_gelu(gelu, [x], [OutputSpec.of("f32")])
    assert one is not None and two is not None
    assert two.tobytes() == one.tobytes()
    assert dealt == [4]


@pytest.mark.parametrize(
    ("mask", "causal", "constant_scale"),
    [(None, False, True), (None, True, True), ("bool", False, False), ("float", False, True)],
)
def test_attention_is_shared_by_head_and_span_of_query_rows(
    monkeypatch: pytest.MonkeyPatch,
    dealt: list[int],
    mask: str | None,
    causal: bool,
    constant_scale: bool,
) -> None:
    monkeypatch.setattr(attention_snippet, "EXACT_MACS", 0)  # BLAS's path, beyond the snippet's
    q, k, v = (RNG.standard_normal((1, 2, 12, 8)).astype(np.float32) for _ in range(3))
    arrays = [q, k, v]
    if mask == "bool":
        arrays.append(RNG.random((12, 12)) > 0.3)
    elif mask == "float":
        arrays.append(RNG.standard_normal((1, 1, 12, 12)).astype(np.float32))
    if not constant_scale:
        arrays.append(np.array(0.4, np.float32))
    whole = attention(*arrays, causal=causal, constant_scale=constant_scale)
    monkeypatch.setattr(blocks, "TILE_MACS", 1)
    monkeypatch.setattr(blocks, "SPAN_MIN", 5)  # 12 rows: spans of 6
    one = attention(*arrays, causal=causal, constant_scale=constant_scale)
    monkeypatch.setenv("IRPOOL_THREADS", "2")
    two = attention(*arrays, causal=causal, constant_scale=constant_scale)
    assert dealt == [4]  # 2 heads x 2 spans
    assert one.tobytes() == two.tobytes()
    np.testing.assert_allclose(one, whole, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("cache_type", ["u8", "f16"])
@pytest.mark.parametrize("rows", [13, 1], ids=["prompt", "step"])
@pytest.mark.parametrize("exact_macs", [attention_node.EXACT_MACS, 0], ids=["exact", "blas"])
def test_the_attention_node_gives_the_same_bits_on_any_thread_count(
    monkeypatch: pytest.MonkeyPatch, exact_macs: int, rows: int, cache_type: str
) -> None:
    q = RNG.standard_normal((2, 2, rows, 16)).astype(np.float32)
    k, v = (RNG.standard_normal((2, 2, 13, 16)).astype(np.float32) for _ in range(2))
    mask = np.zeros((2, 1, rows, 13), np.float32)
    mask[0, :, :, :2] = np.finfo(np.float32).min
    monkeypatch.setattr(attention_node, "EXACT_MACS", exact_macs)
    monkeypatch.setattr(blocks, "TILE_MACS", 1)
    monkeypatch.setattr(blocks, "SPAN_MIN", 5)
    one = attention(q, k, v, mask, reads_cache=True, cache_type=cache_type)
    monkeypatch.setenv("IRPOOL_THREADS", "2")
    again = attention(q, k, v, mask, reads_cache=True, cache_type=cache_type)
    assert again.tobytes() == one.tobytes()


@pytest.mark.parametrize("beta", [None, 0.75])
def test_swish_is_shared_block_by_block(
    monkeypatch: pytest.MonkeyPatch, dealt: list[int], beta: float | None
) -> None:
    x = (RNG.standard_normal(3 << 18) * 30).astype(np.float32)  # 3 MiB: 3 blocks, made 4
    x[:4] = [np.inf, -np.inf, np.nan, -200]
    inputs = [x] if beta is None else [x, np.array(beta, np.float32)]
    swish = Swish4({}).for_layer([])

    def run() -> NDArray[Any]:
        (result,) = run_swish(swish, inputs, [OutputSpec.of("f32")])
        assert result is not None
        return result

    one = run()
    monkeypatch.setenv("IRPOOL_THREADS", "2")
    assert run().tobytes() == one.tobytes()
    assert dealt == [4]
    scaled = x if beta is None else x * np.float32(beta)
    with np.errstate(all="ignore"):
        expected = x / (1 + np.exp(-scaled.astype(np.float64)))
    np.testing.assert_allclose(one[4:], expected[4:], rtol=1e-5, atol=1e-30)


@pytest.mark.parametrize("layout", ["scalar", "transposed", "strided"])
def test_blocked_kernels_keep_the_input_s_shape_and_values_whatever_its_layout(
    layout: str,
) -> None:
    """The blocks walk a flat view: a 0-d input stays 0-d and a non-contiguous one (another
    kernel's view) gives its values, not a flat copy's lost writes."""
    base = (RNG.standard_normal((6, 10)) * 3).astype(np.float32)
    x = {"scalar": base[0, 0].reshape(()), "transposed": base.T, "strided": base[:, ::3]}[layout]
    contiguous = np.ascontiguousarray(x).reshape(x.shape)
    gelu = Gelu7({"approximation_mode": "ERF"}).for_layer([])
    (found,) = run_gelu(gelu, [x], [OutputSpec.of("f32")])
    (expected,) = run_gelu(gelu, [contiguous], [OutputSpec.of("f32")])
    assert found is not None and expected is not None
    assert found.shape == x.shape
    assert found.tobytes() == expected.tobytes()
    swish = Swish4({}).for_layer([])
    (found,) = run_swish(swish, [x], [OutputSpec.of("f32")])
    (expected,) = run_swish(swish, [contiguous], [OutputSpec.of("f32")])
    assert found is not None and expected is not None and found.shape == x.shape
    assert found.tobytes() == expected.tobytes()
