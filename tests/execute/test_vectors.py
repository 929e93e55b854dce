"""The test vectors of docs/ops/AvgPool.md#test-vectors, run through every strategy."""

from __future__ import annotations

import numpy as np
import pytest

from irpool.execute.kernels.adaptive_avg_pool import adaptive_avg_pool
from irpool.execute.kernels.avg_pool import avg_pool
from irpool.ops.avg_pool import AvgPool1, AvgPool14
from irpool.ops.pooling_geometry import Window

from .running import compute
from .strategies import avg_pool_strategies, run_avg_pool

THIRD, TWO_THIRDS = 1 / 3, 2 / 3


def arange(*shape: int) -> np.ndarray:
    return np.arange(np.prod(shape), dtype=np.float32).reshape(shape)


def square(size: int, out: int, kernel: int, stride: int, pad: int) -> list[Window]:
    return [Window(size, out, kernel, stride, 1, pad)] * 2


# (vector, input, windows, count_padding, expected)
AVG_POOL = [
    ("5 excl", arange(1, 1, 5, 5), square(5, 3, 3, 2, 1), False,
     [[3, 4.5, 6], [10.5, 12, 13.5], [18, 19.5, 21]]),
    ("6 incl", arange(1, 1, 5, 5), square(5, 3, 3, 2, 1), True,
     [[4 * THIRD, 3, 2 + TWO_THIRDS], [7, 12, 9], [8, 13, 9 + THIRD]]),
    ("7 ceil", arange(1, 1, 6), [Window(6, 4, 3, 2, 1, 1)], True, [THIRD, 2, 4, 1 + TWO_THIRDS]),
    ("8 empty window", arange(1, 1, 2), [Window(2, 2, 2, 2, 1, 0)], False, [0.5, 0]),
    ("9 ceil_torch", arange(1, 1, 5, 5), square(5, 3, 2, 2, 1), True,
     [[0, 0.75, 1.75], [3.75, 9, 11], [8.75, 19, 21]]),
    ("9 ceil", arange(1, 1, 5, 5), square(5, 4, 2, 2, 1), True,
     [[0, 0.75, 1.75, 0], [3.75, 9, 11, 0], [8.75, 19, 21, 0], [0, 0, 0, 0]]),
    ("11 excl", arange(1, 1, 4), [Window(4, 5, 2, 1, 3, 2)], False, [1, 2, 1.5, 1, 2]),
    ("11 incl", arange(1, 1, 4), [Window(4, 5, 2, 1, 3, 2)], True, [0.5, 1, 1.5, 0.5, 1]),
    ("12 valid ceil", arange(1, 1, 5), [Window(5, 3, 2, 2, 1, 0)], False, [0.5, 2.5, 4]),
    ("13 same_lower", arange(1, 1, 4), [Window(4, 4, 3, 1, 1, 1)], True,
     [THIRD, 1, 2, 1 + TWO_THIRDS]),
    ("16 pads > kernel", arange(1, 1, 3) + 1, [Window(3, 8, 2, 1, 1, 3)], True,
     [0, 0, 0.5, 1.5, 2.5, 1.5, 0, 0]),
    ("20 i32 half-even", np.array([[[1, 2, 2, 3, 3, 4, 250, 255]]], np.int32),
     [Window(8, 4, 2, 2, 1, 0)], False, [2, 2, 4, 252]),
    ("20 i8 -3.5", np.array([[[-3, -4, 3, 4, 1, 2]]], np.int8),
     [Window(6, 3, 2, 2, 1, 0)], False, [-4, 4, 2]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("x", "windows", "count_padding", "expected"),
    [pytest.param(*case[1:], id=case[0]) for case in AVG_POOL],
)
def test_avg_pool_vectors(
    x: np.ndarray, windows: list[Window], count_padding: bool, expected: list[float]
) -> None:
    want = np.asarray(expected, np.float64).reshape(1, 1, *(w.out for w in windows))
    results = {"chosen": avg_pool(x, windows, count_padding)}
    for name, strategy in avg_pool_strategies(windows, count_padding, x.dtype).items():
        results[name] = run_avg_pool(x, windows, count_padding, strategy)
    for name, got in results.items():
        assert got.dtype == x.dtype, name
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=name)


@pytest.mark.parametrize(
    ("x", "size", "expected"),
    [
        pytest.param(arange(1, 1, 4, 4), (3, 3),
                     [[2.5, 3.5, 4.5], [6.5, 7.5, 8.5], [10.5, 11.5, 12.5]], id="17"),
        pytest.param(arange(1, 1, 5), (3,), [0.5, 2, 3.5], id="18 to 3"),
        pytest.param(arange(1, 1, 5), (8,), [0, 0.5, 1, 1.5, 2.5, 3, 3.5, 4], id="18 to 8"),
        pytest.param(arange(1, 1, 5), (0,), [], id="19 size 0"),
        pytest.param(arange(2, 3, 4, 5), (1, 1), arange(2, 3, 20).mean(axis=2), id="global"),
    ],
)  # fmt: skip
def test_adaptive_vectors(x: np.ndarray, size: tuple[int, ...], expected: list[float]) -> None:
    got = adaptive_avg_pool(x, size)
    assert got.dtype == x.dtype
    want = np.asarray(expected, np.float64).reshape(*x.shape[:2], *size)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_op_compute_uses_resolved_geometry() -> None:
    """Vector 5 and vector 12 through the ops, which resolve pads and the divisor rule."""
    attrs = {"kernel": (3, 3), "strides": (2, 2), "pads_begin": (1, 1), "pads_end": (1, 1),
             "exclude-pad": True, "auto_pad": "explicit", "rounding_type": "floor"}  # fmt: skip
    (got,) = compute(AvgPool1(attrs), [arange(1, 1, 5, 5)])
    np.testing.assert_allclose(got[0, 0], [[3, 4.5, 6], [10.5, 12, 13.5], [18, 19.5, 21]])
    valid = {"kernel": (2,), "strides": (2,), "pads_begin": (0,), "pads_end": (0,),
             "exclude-pad": False, "auto_pad": "valid", "rounding_type": "ceil"}  # fmt: skip
    (got,) = compute(AvgPool14(valid), [arange(1, 1, 5)])
    np.testing.assert_allclose(got[0, 0], [0.5, 2.5, 4])
