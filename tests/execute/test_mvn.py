"""MVN-6 and MVN-1: attributes and axes as OpenVINO's `read_model` and CPU plugin take them,
values as the CPU computes them (measured on OpenVINO 2026.4.1, docs/ops/MVN.md); the
live comparison over many configurations is tests/differential/test_mvn.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.cpu.isa import AVX2, AVX512_CORE
from irpool.cpu.refusals import check_refusals
from irpool.element_types import element_type
from irpool.execute.kernels import mvn as mvn_kernel
from irpool.ops.base import LayerContext, OpReport, ShapeError, TensorInfo
from irpool.ops.mvn import MVN1, MVN6
from irpool.rules import CPU_MVN_AXES_OUT_OF_RANK
from irpool.shape import Shape
from tests.execute.running import _no_weights, compute, quiet_context

NAN, INF = float("nan"), float("inf")
LAYER_NORM = {"normalize_variance": True, "eps": 9.999999747378752e-06, "eps_mode": "INSIDE_SQRT"}
ROWS = np.array(
    [[1, NAN, 3], [1, INF, 3], [2, 2, 2], [INF, -INF, 0], [3e38, 3e38, -3e38]], np.float32
)


@pytest.mark.parametrize(
    ("attrs", "cpu"),
    [  # the CPU's outputs for ROWS over the last axis
        (LAYER_NORM, [[NAN] * 3, [NAN] * 3, [0, 0, 0], [NAN] * 3, [0, 0, NAN]]),
        ({**LAYER_NORM, "normalize_variance": False, "eps": 0.0},
         [[NAN] * 3, [-INF, NAN, -INF], [0, 0, 0], [NAN] * 3, [2e38, 2e38, -INF]]),
        ({**LAYER_NORM, "eps": 0.0}, [[NAN] * 3, [NAN] * 3, [NAN] * 3, [NAN] * 3, [0, 0, NAN]]),
    ],
)  # fmt: skip
def test_non_finite_rows_as_the_cpu(attrs: dict[str, Any], cpu: list[list[float]]) -> None:
    (result,) = compute(MVN6(attrs), [ROWS, np.array([1], np.int64)])
    assert result is not None
    expected = np.array(cpu, np.float32)
    assert np.array_equal(np.isnan(result), np.isnan(expected))
    assert np.array_equal(np.isinf(result), np.isinf(expected))
    found = np.isfinite(expected)
    np.testing.assert_allclose(result[found], expected[found], rtol=1e-6)


def test_squares_summing_beyond_flt_max_make_the_variance_inf_as_on_the_cpu() -> None:
    """A LayerNorm over the last axis of a 4-D tensor (convnext's, channels last): the first
    row's squares sum to 1.1e39, so the CPU divides by an infinite root (zeros of the
    centered values' signs); the others as the CPU gives them (measured 2026-12-07, AMD EPYC
    family 25 model 17, OpenVINO 2026.4.1)."""
    x = np.array(
        [[[[2e19, -2e19, 2e19, -1e19], [1, 2, 3, 4]], [[1e19, 5e18, -1e19, 0], [-1, 0, 0, 1]]]],
        np.float32,
    )  # fmt: skip
    cpu = np.array(
        [[[[0.0, -0.0, 0.0, -0.0], [-1.3416355, -0.44721183, 0.44721183, 1.3416355]],
          [[1.183216, 0.5070926, -1.5212777, -0.16903083], [-1.4141994, 0, 0, 1.4141994]]]],
        np.float32,
    )  # fmt: skip
    (result,) = compute(MVN6({**LAYER_NORM, "eps": 1e-5}), [x, np.array([3], np.int64)])
    assert result is not None
    np.testing.assert_array_equal(np.signbit(result[0, 0, 0]), np.signbit(cpu[0, 0, 0]))
    np.testing.assert_allclose(result, cpu, rtol=1e-6)


@pytest.mark.parametrize(
    ("isa", "mean"),
    [(AVX512_CORE, 2**20 + 0.75), (AVX2, 2**20 + 0.875)],  # 2**24 + 12 and + 14, over 16
)
def test_a_row_is_summed_in_the_hosts_lanes(
    isa: str, mean: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """[2**24, 1, ..., 1] (16) with a 0 at 8, over axis 1 of a 2-D input: the 1s round away
    or not by where the lanes meet, 16 lanes on an AVX-512 host, 8 on an AVX2 one (AVX2
    measured 2026-12-07, AMD EPYC family 25 model 1 (Zen3): the 0 gives -1048576.875)."""
    monkeypatch.setattr(mvn_kernel, "host_cpu_isa", lambda: isa)
    row = np.ones((1, 16), np.float32)
    row[0, 0], row[0, 8] = 2**24, 0
    attrs = {**LAYER_NORM, "normalize_variance": False}
    (result,) = compute(MVN6(attrs), [row, np.array([1], np.int64)])
    assert result is not None
    assert result[0, 8] == np.float32(-mean)


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [(np.int32, [[-1, -1, 0, 2]]), (np.uint8, [[0, 0, 0, 2]])],  # rounded, u8 saturated
)
def test_integers_as_the_cpu(dtype: Any, expected: list[list[int]]) -> None:
    (result,) = compute(MVN6(LAYER_NORM), [np.array([[1, 2, 3, 10]], dtype), np.array([1])])
    assert result is not None and result.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(result, np.array(expected, dtype))


def test_mvn_1_axes_as_the_cpu() -> None:
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    attrs = {"normalize_variance": True, "eps": 0.5, "across_channels": False}
    across = MVN1({**attrs, "across_channels": True, "reduction_axes": ()})
    (result,) = compute(across, [x])
    assert result is not None  # the CPU gave 0.10387456, -0.15449563 (axes 1, 2)
    np.testing.assert_allclose(result.ravel()[:2], [0.10387456, -0.15449563], rtol=1e-6)
    per_channel = MVN1({**attrs, "reduction_axes": (2,)})
    (result,) = compute(per_channel, [x])
    assert result is not None  # the CPU: -0.07751493, -0.41622275 (axis 2)
    np.testing.assert_allclose(result.ravel()[:2], [-0.07751493, -0.41622275], rtol=1e-6)
    assert MVN1({**attrs, "reduction_axes": (0,)}).reduced_axes(1) == ()  # the CPU: x - x


def test_axes_read_model_refuses() -> None:
    data = TensorInfo(element_type("f32"), Shape.of(2, 3))
    three = TensorInfo(element_type("i64"), Shape.of(3), np.array([1, 1, 1], np.int64))
    with pytest.raises(ShapeError, match="higher than axes shape"):
        MVN6(LAYER_NORM).infer([data, three], quiet_context())
    square = TensorInfo(element_type("i64"), Shape.of(1, 1), np.array([[1]], np.int64))
    with pytest.raises(ShapeError, match="Expected 1D tensor"):
        MVN6(LAYER_NORM).infer([data, square], quiet_context())


def test_an_axis_out_of_range_cannot_compile() -> None:
    """read_model takes MVN-6 axes [2] on a rank-2 input; the CPU plugin refuses to compile."""
    reported: list[OpReport] = []
    context = LayerContext(frozenset(LAYER_NORM), reported.append, _no_weights)
    data = TensorInfo(element_type("f32"), Shape.of(2, 3))
    axes = TensorInfo(element_type("i64"), Shape.of(1), np.array([2], np.int64))
    (out,) = MVN6(LAYER_NORM).infer([data, axes], context)
    assert out.shape == data.shape and reported == []  # read_model takes it
    check_refusals(MVN6(LAYER_NORM), [data, axes], context)
    assert [r.code for r in reported] == [CPU_MVN_AXES_OUT_OF_RANK]
