"""The logical and bitwise families' values as OpenVINO 2026.4.1's CPU plugin computes them
(measured, docs/elementwise.md#logical-and-bitwise); the live comparison over many
configurations is tests/differential/test_logical.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.ops.logical import BY_TYPE
from tests.execute.running import compute

NAN = float("nan")

# op, dtype, inputs, the CPU's output
CPU_VALUES: list[tuple[str, Any, list[list[Any]], list[Any]]] = [
    ("BitwiseAnd", np.int64, [[2**40 + 3, -1], [1, 2**33 + 6]], [1, 6]),  # wrapped to int32
    ("BitwiseOr", np.uint64, [[2**31, 0], [0, 1]], [2**64 - 2**31, 1]),  # sign-extended back
    ("BitwiseXor", np.bool_, [[True, True], [True, False]], [False, True]),
    ("BitwiseNot", np.uint8, [[0, 255]], [255, 0]),
    ("BitwiseNot", np.uint64, [[0]], [2**64 - 1]),
    ("BitwiseLeftShift", np.int8, [[3, 1, 1], [7, 8, 32]], [-128, 0, 1]),  # count & 31
    ("BitwiseLeftShift", np.int32, [[1, 1], [31, -3]], [-(2**31), 2**29]),
    ("BitwiseRightShift", np.uint32, [[2**31, 8], [1, 35]], [2**32 - 2**30, 1]),  # arithmetic
    ("BitwiseRightShift", np.int16, [[-1, -32768], [40, 15]], [-1, -1]),
    ("LogicalNot", np.float32, [[0.0, -0.0, NAN, 0.5]], [1.0, 1.0, 0.0, 0.0]),
    ("LogicalNot", np.int64, [[2**32, 3]], [1, 0]),  # held as int32: 0
    ("LogicalNot", np.float64, [[1e-300, 2.0]], [1.0, 0.0]),  # 0 in f32
    ("LogicalAnd", np.bool_, [[True, True, False], [True, False, False]], [True, False, False]),
]


@pytest.mark.parametrize(("op", "dtype", "inputs", "expected"), CPU_VALUES)
def test_cpu_values(op: str, dtype: Any, inputs: list[list[Any]], expected: list[Any]) -> None:
    attrs = {} if op.endswith("Not") else {"auto_broadcast": "numpy"}
    (result,) = compute(BY_TYPE[op](attrs), [np.array(x, dtype) for x in inputs])
    assert result is not None
    np.testing.assert_array_equal(result, np.array(expected, result.dtype))
