"""MatMulMultiplyFusion as the CPU plugin compiles it (irpool/cpu/product_fusion.py):
which constants move onto the weights, and what a fused product gives. The CPU's values are
measured; live rows in tests/differential/test_fuzz_repros.py."""

from __future__ import annotations

import numpy as np
import pytest

from irpool.cpu.product_fusion import ScaledMatMul, _scales_columns
from irpool.execute.kernels.clamp import run_clamp
from irpool.execute.kernels.scaled_matmul import run_scaled_matmul
from irpool.execute.registry import OutputSpec
from irpool.ops.arithmetic import Multiply1
from irpool.ops.clamp import Clamp1
from irpool.ops.mat_mul import MatMul1

INF, NAN = float("inf"), float("nan")


def _matmul(transpose_b: bool = False) -> MatMul1:
    return MatMul1({"transpose_a": False, "transpose_b": transpose_b})


@pytest.mark.parametrize(
    ("scale", "b", "transpose_b", "weights_constant", "fused"),
    [  # a is [2, 3], the output [2, 4] ([4, 3] weights when transposed)
        ((), (3, 4), False, True, True),  # a scalar
        ((1,), (3, 4), False, False, True),
        ((4,), (3, 4), False, True, True),
        ((1, 4), (3, 4), False, True, True),
        ((4,), (4, 3), True, True, True),  # the weights' rows when transposed
        ((3,), (3, 4), False, True, False),  # not the column count
        ((2, 1), (3, 4), False, True, False),  # by row
        ((2, 4), (3, 4), False, True, False),
        ((1, 1, 4), (3, 4), False, True, False),  # a higher rank than the output
    ],
)
def test_which_constants_move_onto_the_weights(
    scale: tuple[int, ...],
    b: tuple[int, ...],
    transpose_b: bool,
    weights_constant: bool,
    fused: bool,
) -> None:
    assert _scales_columns(scale, (2, 3), b, 2, _matmul(transpose_b), weights_constant) == fused


@pytest.mark.parametrize(
    ("scale", "transpose_b", "expected"),
    [  # a @ (b * c): 2e38 * 2 overflows first; 0 * inf is NaN
        ([2.0], False, [[INF, 0], [NAN, 0.5]]),
        ([2.0, 1.0], False, [[INF, 0], [NAN, 0.25]]),
        ([2.0, 1.0], True, [[INF, 0], [NAN, 0.25]]),
        ([-2.0, 1.0], False, [[-INF, 0], [NAN, 0.25]]),
    ],
)
def test_a_fused_product_scales_the_weights_first(
    scale: list[float], transpose_b: bool, expected: list[list[float]]
) -> None:
    a = np.array([[0.25, 0], [0, 0.25]], np.float32)
    b = np.array([[2e38, 0], [0, 1]], np.float32)
    op = ScaledMatMul(_matmul(transpose_b), Multiply1({"auto_broadcast": "numpy"}))
    (out,) = run_scaled_matmul(
        op, [a, b.T if transpose_b else b, np.array(scale, np.float32)], [OutputSpec.of("f32")]
    )
    np.testing.assert_array_equal(out, np.array(expected, np.float32))


@pytest.mark.parametrize(
    ("dtype", "after_product", "expected"),
    [  # clamp(x, 1.7, 5.2) and clamp(x, -2.5, -0.5) of -128, -5, 0, 1, 2, 3, 127
        (np.int8, False, [[1, 1, 1, 1, 2, 3, 5], [-2, -2, 0, 0, 0, 0, 0]]),  # truncated
        (np.int8, True, [[2, 2, 2, 2, 2, 3, 5], [-2, -2, -1, -1, -1, -1, -1]]),  # min up, max down
        (np.uint8, True, [[5, 5, 2, 2, 2, 3, 5], [0, 0, 0, 0, 0, 0, 0]]),  # -128 is 128
        (np.int32, False, [[2, 2, 2, 2, 2, 3, 5], [-2, -2, -1, -1, -1, -1, -1]]),
    ],
)
def test_a_clamp_fused_into_a_product_rounds_8_bit_bounds_as_wider_types(
    dtype: type[np.integer], after_product: bool, expected: list[list[int]]
) -> None:
    data = np.array([-128, -5, 0, 1, 2, 3, 127]).astype(dtype)
    for (low, high), row in zip(((1.7, 5.2), (-2.5, -0.5)), expected, strict=True):
        op = Clamp1({"min": low, "max": high})
        op.after_product = after_product
        (out,) = run_clamp(op, [data], [OutputSpec.of("i32")])
        np.testing.assert_array_equal(out, np.array(row).astype(dtype))
