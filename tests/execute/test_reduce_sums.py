"""ReduceSum, ReduceMin, ReduceL1, ReduceL2 and the logical reductions on hand-checked inputs:
each expected value was measured on the CPU plugin (docs/ops/ReduceSum.md,
docs/ops/ReduceMin.md; the live comparison is tests/differential/test_reduce_sums.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.cpu.isa import AVX2, AVX512_CORE
from irpool.element_types import element_type
from irpool.execute.kernels import reduce_order
from irpool.ops.base import ShapeError, TensorInfo
from irpool.ops.reduce import (
    ReduceL1_4,
    ReduceL2_4,
    ReduceLogicalAnd1,
    ReduceLogicalOr1,
    ReduceMin1,
    ReduceSum1,
)
from irpool.shape import Shape
from tests.execute.running import compute, quiet_context

OPS = {"sum": ReduceSum1, "min": ReduceMin1, "l1": ReduceL1_4, "l2": ReduceL2_4}
F32_MAX = float(np.finfo(np.float32).max)


def reduce_row(op: str, dtype: Any, row: list[Any]) -> Any:
    data = np.array([row], dtype).reshape(1, len(row))
    (result,) = compute(OPS[op]({"keep_dims": False}), [data, np.array([1], np.int64)])
    assert result is not None and result.dtype == np.dtype(dtype)
    return result.tolist()[0]


@pytest.mark.parametrize(
    ("op", "dtype", "row", "cpu"),
    [  # integers: summed in f32 from int32, stored as the type holds it
        ("sum", np.int32, [2**24, 1], 2**24),
        ("sum", np.int32, [2**30] * 4, -(2**31)),  # 2**32 out of int32: INT32_MIN
        ("sum", np.int32, [2**31 - 1, 1], -(2**31)),
        ("sum", np.int64, [2**40, 1], 1),  # wrapped to int32 first
        ("sum", np.int64, [5, 2**32 + 3], 8),
        ("sum", np.int8, [100, 100, -1], 127),
        ("sum", np.int8, [-100, -100, 1], -128),
        ("sum", np.int16, [30000, 30000], -5536),
        ("sum", np.uint8, [200, 100], 255),
        ("sum", np.uint32, [2**32 - 1, 1], 0),
        ("l1", np.int8, [-100, -100, 1], 127),
        ("l1", np.int32, [-(2**31), -1], -(2**31)),
        ("l1", np.uint32, [2**32 - 1, 1], 2),
        ("l2", np.int32, [1, 2, 3], 3),  # the root truncated
        ("l2", np.int32, [2] * 40, 12),
        ("l2", np.int32, [2**24, 1], -(2**31)),  # the sum of squares held as INT32_MIN
        ("l2", np.int8, [11, 3], 11),  # 130 held as 127
        ("l2", np.uint8, [16, 0], 15),  # 256 held as 255
        ("l2", np.uint8, [150, 150], 0),  # 45000: through u16 read as i16, then u8
        ("l2", np.uint8, [181], 15),
        ("l2", np.uint8, [182], 0),
        ("min", np.int32, [2**24 + 3, 2**24 + 2], 2**24 + 2),  # compared in f32
        ("min", np.int32, [2**31 - 1], -(2**31)),
        ("min", np.uint32, [2**32 - 1, 1], 2**32 - 1),
    ],
)
def test_integers_as_the_cpu_holds_them(op: str, dtype: Any, row: list[int], cpu: int) -> None:
    assert reduce_row(op, dtype, row) == cpu


@pytest.mark.parametrize(
    ("isa", "dtype", "row", "cpu"),
    [  # sums held in the type after the lanes of each whole vector (16 or 8 lanes)
        (AVX512_CORE, np.int32, [2**26 + 1] * 40, -1610612736),  # 2**31 held, then the tail
        (AVX2, np.int32, [2**26 + 1] * 40, -(2**31)),  # 5 whole vectors, no tail
        (AVX2, np.int32, [2**26 + 1] * 36, -1879048192),  # 2**31 held, then the tail
        (AVX512_CORE, np.int8, [100] * 20 + [-100] * 20, -128),  # the lanes' 800 held as 127
        (AVX2, np.int8, [100] * 20 + [-100] * 20, 0),  # lanes of 100 and -100
    ],
)
def test_integer_sums_held_after_the_hosts_lanes(
    monkeypatch: pytest.MonkeyPatch, isa: str, dtype: Any, row: list[int], cpu: int
) -> None:
    monkeypatch.setattr(reduce_order, "host_cpu_isa", lambda: isa)
    assert reduce_row("sum", dtype, row) == cpu


def test_avx2_stores_an_integer_sum_after_each_run_of_the_last_axes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every axis of [3, 1, 3] with AVX2: the runs of 3 are summed one by one and each stored
    held (2**31 as INT32_MIN, then 0, then 5; measured), not 2**32 + 5 at once."""
    monkeypatch.setattr(reduce_order, "host_cpu_isa", lambda: AVX2)
    data = np.array([2**30, 2**30, 0, 2**30, 2**30, 0, 5, 0, 0], np.int32).reshape(3, 1, 3)
    (result,) = compute(ReduceSum1({"keep_dims": False}), [data, np.arange(3)])
    assert result is not None and result.tolist() == 5


@pytest.mark.parametrize(
    ("dtype", "cpu"),
    [
        (np.int32, 2**31 - 1),
        (np.int16, -1),
        (np.uint32, 2**31 - 1),
        (np.int8, 127),
        (np.uint8, 255),
    ],
)
def test_an_empty_minimum_is_int32_max_in_the_type(dtype: Any, cpu: int) -> None:
    data = np.zeros((1, 0), dtype)
    (result,) = compute(ReduceMin1({"keep_dims": False}), [data, np.array([1], np.int64)])
    assert result is not None and result.tolist() == [cpu]


@pytest.mark.parametrize(
    ("row", "cpu"),
    [  # the mirror image of ReduceMax's scan
        ([np.inf, np.inf], F32_MAX),
        ([], F32_MAX),
        ([np.nan, 1, 2], 1.0),
        ([1, np.nan], np.nan),
        ([5, np.nan, 7], 7.0),
    ],
)
def test_float_minimum_scans_as_the_cpu(row: list[float], cpu: float) -> None:
    result = reduce_row("min", np.float32, row)
    assert result == cpu or (np.isnan(cpu) and np.isnan(result))


def test_min_keeps_the_sign_of_the_later_zero() -> None:
    assert np.signbit(reduce_row("min", np.float32, [0.0, -0.0]))
    assert not np.signbit(reduce_row("min", np.float32, [-0.0, 0.0]))


def test_float_sums_take_the_cpu_order() -> None:
    """Under 16 elements one after another; from 16 in 16 lanes combined as a tree: the
    rounding shows in f32."""
    row = [2.0**24, 0.0, 1.0, 1.0] + [0.0] * 12
    # lanes 2 and 3 are added first in ((g0 + g1) + (g2 + g3)): both ones kept
    assert reduce_row("sum", np.float32, row) == 2.0**24 + 2
    assert reduce_row("sum", np.float32, row[:4]) == 2.0**24  # one by one: both ones lost
    assert reduce_row("l2", np.float64, [1e300, 1.0]) == F32_MAX  # f64 held as f32


@pytest.mark.parametrize(("isa", "cpu"), [(AVX2, 2.0**24 + 2), (AVX512_CORE, 2.0**24)])
def test_eight_floats_are_summed_in_the_lanes_of_an_avx2_vector(
    monkeypatch: pytest.MonkeyPatch, isa: str, cpu: float
) -> None:
    """With AVX2 8 elements fill the 8 lanes, (l0 + l4) + (l1 + l5) keeps both ones; on
    AVX-512 they are added one by one and both are lost."""
    monkeypatch.setattr(reduce_order, "host_cpu_isa", lambda: isa)
    assert reduce_row("sum", np.float32, [2.0**24, 1, 0, 0, 0, 1, 0, 0]) == cpu


@pytest.mark.parametrize(
    ("op", "cpu"), [(ReduceLogicalAnd1, [False, True]), (ReduceLogicalOr1, [True, True])]
)
def test_logical_reductions(op: Any, cpu: list[bool]) -> None:
    data = np.array([[True, False, True], [True, True, True]])
    (result,) = compute(op({"keep_dims": False}), [data, np.array([1], np.int64)])
    assert result is not None and result.tolist() == cpu


@pytest.mark.parametrize(("op", "cpu"), [(ReduceLogicalAnd1, True), (ReduceLogicalOr1, False)])
def test_logical_reductions_of_nothing(op: Any, cpu: bool) -> None:
    data = np.zeros((2, 0), bool)
    (result,) = compute(op({"keep_dims": False}), [data, np.array([1], np.int64)])
    assert result is not None and result.tolist() == [cpu, cpu]


def _info(kind: str, dims: tuple[int, ...], value: Any = None) -> TensorInfo:
    array = None if value is None else np.array(value, element_type(kind).dtype)
    return TensorInfo(element_type(kind), Shape.of(*dims), array)


@pytest.mark.parametrize(
    ("op", "kind", "message"),
    [
        (ReduceLogicalAnd1, "f32", "must be boolean"),
        (ReduceLogicalOr1, "i32", "must be boolean"),
        (ReduceSum1, "boolean", "must be numeric"),
        (ReduceL2_4, "boolean", "must be numeric"),
    ],
)
def test_data_types_read_model_refuses(op: Any, kind: str, message: str) -> None:
    with pytest.raises(ShapeError, match=message):
        op({"keep_dims": True}).infer(
            [_info(kind, (2, 3)), _info("i64", (1,), [1])], quiet_context()
        )


def test_shapes_are_the_reductions_shapes() -> None:
    (out,) = ReduceL1_4({"keep_dims": True}).infer(
        [_info("f32", (2, 3, 4)), _info("i64", (2,), [0, -1])], quiet_context()
    )
    assert out.shape == Shape.of(1, 3, 1)
