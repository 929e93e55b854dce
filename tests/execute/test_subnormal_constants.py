"""f32 constants as the CPU plugin holds them: subnormals and zeros +0 where a subnormal is,
but in one-element operands of elementwise ops (irpool/cpu/subnormal_constants.py; the CPU's
values measured, live in tests/differential/test_fuzz_repros.py)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from irpool.cpu.numerics import stored_from_f32
from irpool.cpu.subnormal_constants import flush_constant_subnormals
from irpool.element_types import element_type

F32 = element_type("f32")
REF = (1, 0)


@pytest.mark.parametrize(
    ("values", "readers", "held"),
    [
        ([-1e-42, -1e-42], {"Multiply"}, [0.0, 0.0]),  # +0: x * it is +0 for x = 2
        ([-1e-42], {"Multiply"}, [-1e-42]),  # fused as a scalar: kept
        ([1e-40], {"Power"}, [1e-40]),
        ([-1e-40], {"Concat"}, [0.0]),  # not an elementwise operand
        ([-1e-40], {"Select"}, [-1e-40]),
        ([-1e-40], {"Add", "Concat"}, [0.0]),
        (
            [1e-40, 1.0, -3e-39, 1.2e-38, -np.inf, np.nan],
            {"Add"},
            [0, 1, 0, 1.2e-38, -np.inf, np.nan],
        ),
    ],
)
def test_subnormals_flushed_as_the_cpu_holds_constants(
    values: list[float], readers: set[str], held: list[float]
) -> None:
    constant = np.array(values, np.float32)
    flushed = flush_constant_subnormals(
        {REF: constant}, [(reader, [REF]) for reader in readers], {REF: F32}
    )[REF]
    expected = np.array(held, np.float32)
    np.testing.assert_array_equal(flushed, expected)
    assert np.array_equal(np.signbit(flushed), np.signbit(expected))


def test_f16_constants_are_kept() -> None:
    """An f16 subnormal is a normal f32, which the CPU computes with."""
    constant: Any = np.array([6e-8, -6e-5], np.float16)
    kept = flush_constant_subnormals(
        {REF: constant}, [("Concat", [REF])], {REF: element_type("f16")}
    )
    assert kept[REF] is constant


def test_constants_no_layer_computes_with_are_kept() -> None:
    constant = np.array([1e-40, 2e-40], np.float32)
    assert flush_constant_subnormals({REF: constant}, [], {REF: F32})[REF] is constant


def test_f16_overflow_gives_inf_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        stored = stored_from_f32(
            np.array([70000, -1e38, np.inf, 65504], np.float32), np.dtype(np.float16)
        )
    np.testing.assert_array_equal(stored, np.array([np.inf, -np.inf, np.inf, 65504], np.float16))
