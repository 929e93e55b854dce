"""SoftMax-8 and SoftMax-1: the axis OpenVINO's `read_model` accepts, and values as its CPU
plugin computes them (measured on OpenVINO 2026.4.1, docs/ops/SoftMax.md); the live
comparison over many configurations is tests/differential/test_softmax.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from irpool.element_types import element_type
from irpool.ops.base import ShapeError, TensorInfo
from irpool.ops.softmax import SoftMax1, SoftMax8
from irpool.shape import Shape
from tests.execute.running import compute, quiet_context

NAN, INF = float("nan"), float("inf")
GOLDEN = Path(__file__).resolve().parent.parent / "golden_cnn_ops"
BOUND = 4 * 2.0**-24


@pytest.mark.parametrize(
    ("dims", "axis", "accepted"),
    [((2, 3), -1, True), ((2, 3), -2, True), ((2, 3), 2, False), ((2, 3), -3, False),
     ((), 0, True), ((), -1, True), ((), 1, False)],  # a scalar counts as rank 1
)  # fmt: skip
def test_axis_range_as_openvino(dims: tuple[int, ...], axis: int, accepted: bool) -> None:
    data = TensorInfo(element_type("f32"), Shape.of(*dims))
    op = SoftMax8({"axis": axis})
    if accepted:
        assert op.infer([data], quiet_context())[0].shape == data.shape
    else:
        with pytest.raises(ShapeError, match="out of the tensor rank range"):
            op.infer([data], quiet_context())


@pytest.mark.parametrize(
    ("dims", "axis", "message"),
    [((2, 3), 2, r"Reduction axis \(2\) is out of bounds"),
     ((2, 3), -1, r"Reduction axis \(18446744073709551615\)"),  # read as a size_t
     ((2, 3), 1, None), ((), 0, None)],
)  # fmt: skip
def test_softmax_1_axis_as_openvino(dims: tuple[int, ...], axis: int, message: str | None) -> None:
    data = TensorInfo(element_type("f32"), Shape.of(*dims))
    if message is None:
        assert SoftMax1({"axis": axis}).infer([data], quiet_context())[0].shape == data.shape
    else:
        with pytest.raises(ShapeError, match=message):
            SoftMax1({"axis": axis}).infer([data], quiet_context())
    unknown_rank = TensorInfo(element_type("f32"), Shape.dynamic())
    assert SoftMax1({"axis": axis}).infer([unknown_rank], quiet_context())  # not checked


# rows the CPU gave (f32, last axis): its zeros and non-finite values exactly
@pytest.mark.parametrize(
    ("row", "cpu"),
    [
        ([NAN, 1, 2], [NAN, 0, 0]),
        ([INF, INF, 1], [NAN, NAN, 0]),
        ([INF, -INF], [NAN, 0]),
        ([-INF, -INF], [NAN, NAN]),
        ([-INF, 1, 2], [0, 0.2689414322376251, 0.7310585379600525]),
        ([3.4e38, 0, -3.4e38], [1, 0, 0]),
        ([3.4e38, 3.4e38, -1], [0.5, 0.5, 0]),
        ([0, -87, -86], [1, 0, 4.4737804325289394e-38]),  # the CPU's exp underflows at -87
        ([1, 2, 3], [0.09003056585788727, 0.2447284758090973, 0.6652408838272095]),
    ],
)
def test_cpu_rows(row: list[float], cpu: list[float]) -> None:
    (result,) = compute(SoftMax8({"axis": -1}), [np.array([row], np.float32)])
    assert result is not None
    expected = np.array([cpu], np.float32)
    assert np.array_equal(np.isnan(result), np.isnan(expected))
    assert np.array_equal(result == 0, expected == 0)
    found = ~np.isnan(expected)
    assert np.all(np.abs(result[found].astype(np.float64) - expected[found]) <= BOUND)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (np.array([[1, 2, 3], [-5, 0, 5]], np.int32), [[0, 0, 1], [0, 0, 1]]),  # rounded
        (np.array([[True, False], [True, True]]), [[True, False], [False, False]]),  # 0.5: 0
        (np.array(np.nan, np.float32), 1.0),  # a scalar is 1
    ],
)
def test_cpu_other_types(values: Any, expected: Any) -> None:
    (result,) = compute(SoftMax8({"axis": -1}), [values])
    assert result is not None and result.dtype == values.dtype
    np.testing.assert_array_equal(result, np.array(expected, values.dtype))


GOLDEN_CASES = [
    case
    for case in json.loads((GOLDEN / "index.json").read_text())["cases"]
    if case["op"] == "SoftMax-8"
]


@pytest.mark.parametrize("case", GOLDEN_CASES, ids=[case["name"] for case in GOLDEN_CASES])
def test_golden_vectors(case: dict[str, Any]) -> None:
    """tools/measure_cnn_ops.py's CPU outputs (docs/measurements.md#golden-vectors): rows without
    NaN within the bound, with
    their zeros and infinities; rows with NaN NaN there and NaN or 0 elsewhere, in both."""
    with np.load(GOLDEN / f"{case['name']}.npz") as arrays:
        x, cpu = arrays["input0"], arrays["output0"]
    axis = case["attributes"]["axis"]
    (result,) = compute(SoftMax8({"axis": axis}), [x])
    assert result is not None
    row_nan = np.broadcast_to(np.isnan(x).any(axis=axis, keepdims=True), x.shape)
    for output in (result, cpu):
        assert np.all(np.isnan(output[np.isnan(x)]))
        assert np.all(np.isnan(output[row_nan]) | (output[row_nan] == 0))
    clean = ~row_nan
    assert np.array_equal(np.isnan(result[clean]), np.isnan(cpu[clean]))
    found = clean & ~np.isnan(cpu)
    assert np.all(np.abs(result[found].astype(np.float64) - cpu[found]) <= BOUND)


@pytest.mark.parametrize("scale", [1.0, 60.0, 1e38])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_finite_data_gives_the_bits_the_general_path_gives(scale: float, axis: int) -> None:
    """Finite contiguous data takes fewer passes: its values are those of the same data
    beside a block holding NaN and ±inf (which takes the general path), bit for bit, with
    underflowing exps and differences beyond FLT_MAX."""
    x = (np.random.default_rng(3).standard_normal((6, 17, 9)) * scale).astype(np.float32)
    spoiled = x.copy()
    spoiled[0, 0, 0], spoiled[1, 1, 1], spoiled[2, 2, 2] = np.nan, np.inf, -np.inf
    beside = (axis + 1) % 3  # an axis SoftMax does not sum along
    (alone,) = compute(SoftMax8({"axis": axis}), [x])
    (both,) = compute(SoftMax8({"axis": axis}), [np.concatenate([x, spoiled], axis=beside)])
    assert alone is not None and both is not None
    part = both[tuple(slice(0, n) for n in x.shape)]
    assert np.array_equal(alone.view(np.int32), part.view(np.int32))
