"""ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1 on hand-checked inputs, each
expected value the CPU plugin's (measured on OpenVINO 2026.4.1,
docs/ops/ConvolutionBackpropData.md); the live comparison over many configurations is
tests/differential/test_convolution_backprop.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.ops.convolution_backprop import (
    ConvolutionBackpropBase,
    ConvolutionBackpropData1,
    GroupConvolutionBackpropData1,
)
from tests.execute.running import compute

X = np.array([[[1, 2, 3]]], np.float32)
W = np.array([[[1, 10]]], np.float32)


def op(grouped: bool = False, **attrs: Any) -> ConvolutionBackpropBase:
    lists = {"strides": (), "dilations": (), "pads_begin": (), "pads_end": ()}
    kind = GroupConvolutionBackpropData1 if grouped else ConvolutionBackpropData1
    return kind({**lists, "auto_pad": "explicit", "output_padding": (), **attrs})


def run(layer: ConvolutionBackpropBase, *arrays: Any) -> Any:
    (result,) = compute(layer, list(arrays))
    return result


@pytest.mark.parametrize(
    ("attrs", "output_shape", "cpu"),
    [
        ({"strides": (2,)}, None, [1, 10, 2, 20, 3, 30]),
        ({"strides": (1,)}, None, [1, 12, 23, 30]),
        ({"pads_begin": (1,)}, None, [12, 23, 30]),
        ({"strides": (2,), "output_padding": (1,)}, None, [1, 10, 2, 20, 3, 30, 0]),
        ({"dilations": (3,)}, None, [1, 2, 3, 10, 20, 30]),
        ({"strides": (2,), "auto_pad": "same_upper"}, [4], [10, 2, 20, 3]),
        ({"strides": (2,), "auto_pad": "same_lower"}, [4], [10, 2, 20, 3]),
        ({"strides": (2,)}, [8], [1, 10, 2, 20, 3, 30, 0, 0]),  # past the data's reach: 0
    ],
)
def test_values(attrs: dict[str, Any], output_shape: list[int] | None, cpu: list[float]) -> None:
    arrays = [X, W] + ([] if output_shape is None else [np.array(output_shape, np.int64)])
    np.testing.assert_array_equal(run(op(**attrs), *arrays), np.array([[cpu]], np.float32))


def test_groups() -> None:
    x = np.array([[[1, 2], [3, 4]]], np.float32)
    w = np.array([[[[1, 10]]], [[[100, 1000]]]], np.float32)
    cpu = np.array([[[1, 12, 20], [300, 3400, 4000]]], np.float32)
    np.testing.assert_array_equal(run(op(grouped=True), x, w), cpu)


@pytest.mark.parametrize(
    ("x", "w", "cpu"),
    [  # only real products: an inf weight reaches the outputs it multiplies data into
        ([1, 0, 2], [np.inf, 1], [np.inf, 1, np.nan, 0, np.inf, 2]),
        ([1, np.nan, 2], [1, 1], [1, 1, np.nan, np.nan, 2, 2]),
    ],
)
def test_non_finite(x: list[float], w: list[float], cpu: list[float]) -> None:
    arrays = [np.array([[x]], np.float32), np.array([[w]], np.float32)]
    np.testing.assert_array_equal(run(op(strides=(2,)), *arrays), np.array([[cpu]], np.float32))


@pytest.mark.parametrize(
    ("dtype", "x", "w", "cpu"),
    [  # f32 sums stored as Convolution stores them: i8 saturated, i32 below 2**31
        (np.int8, [100, -100, 7], [2, 1], [127, -100, -86, 7]),
        (np.int32, [2**30, 2**30, 7], [2, 1], [2147483520, 2147483520, 2**30, 7]),
    ],
)
def test_integers(dtype: Any, x: list[int], w: list[int], cpu: list[int]) -> None:
    arrays = [np.array([[x]], dtype), np.array([[w]], dtype)]
    np.testing.assert_array_equal(run(op(strides=(1,)), *arrays), np.array([[cpu]], dtype))


def test_the_same_bits_on_any_thread_count(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 4, 9, 7)).astype(np.float32)
    w = rng.normal(size=(2, 2, 600, 3, 2)).astype(np.float32)
    layer = op(grouped=True, strides=(2, 1), pads_begin=(1, 0), pads_end=(0, 1))
    monkeypatch.setenv("IRPOOL_THREADS", "1")
    one = run(layer, x, w)
    monkeypatch.setenv("IRPOOL_THREADS", "2")
    np.testing.assert_array_equal(run(layer, x, w), one)
