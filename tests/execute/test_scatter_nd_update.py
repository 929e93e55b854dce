"""ScatterNDUpdate-3: the CPU's values on a few hand-made cases (measured on OpenVINO 2026.4.1,
docs/ops/ScatterNDUpdate.md); the live comparison is
tests/differential/test_scatter_nd_update.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.execute.errors import ExecutionError
from irpool.ops.scatter_nd_update import ScatterNDUpdate3
from tests.execute.running import compute

DATA = np.arange(6, dtype=np.float32).reshape(2, 3)


@pytest.mark.parametrize(
    ("indices", "updates", "cpu"),
    [
        ([[1, 2]], [9], [[0, 1, 2], [3, 4, 9]]),
        ([[-1, -3]], [9], [[0, 1, 2], [9, 4, 5]]),  # negative indices count from the end
        ([[0, 1], [0, 1]], [7, 8], [[0, 8, 2], [3, 4, 5]]),  # a repeated index: the last wins
        ([[1]], [[7, 8, 9]], [[0, 1, 2], [7, 8, 9]]),  # a whole row
    ],
)
def test_cpu_values(indices: Any, updates: Any, cpu: Any) -> None:
    arrays = [DATA, np.array(indices, np.int64), np.array(updates, np.float32)]
    (result,) = compute(ScatterNDUpdate3({}), arrays)
    np.testing.assert_array_equal(result, np.array(cpu, np.float32))


def test_an_index_outside_the_data_is_refused() -> None:
    arrays = [DATA, np.array([[2, 0]], np.int64), np.array([1], np.float32)]
    with pytest.raises(ExecutionError, match="outside"):
        compute(ScatterNDUpdate3({}), arrays)
