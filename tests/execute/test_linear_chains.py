"""Chains of constant Adds and Multiplies, and Multiply-Add pairs, as OpenVINO and the CPU
plugin compute them (irpool/cpu/linear_fusion.py; the CPU's values measured, live rows in
tests/differential/test_fuzz_repros.py)."""

from __future__ import annotations

import numpy as np
import pytest

from irpool.cpu.linear_fusion import LinearChain, Link
from irpool.execute.kernels.linear_chains import fused_multiply_add, run_linear_chain
from irpool.execute.registry import OutputSpec
from irpool.ops.arithmetic import Add1, Multiply1, Subtract1

F32 = np.float32
INF, NAN = float("inf"), float("nan")
ADD, MULTIPLY, SUBTRACT = Link("add", False), Link("multiply", False), Link("add", True)
DIVIDE = Link("multiply", False, inverted=True)


@pytest.mark.parametrize(
    ("links", "constants", "x", "expected"),
    [
        ((MULTIPLY, MULTIPLY), (0.7, 0.1), 7.7e-3, F32(7.7e-3) * (F32(0.7) * F32(0.1))),
        ((ADD, ADD), (0.7, 0.1), 0.3, F32(0.3) + (F32(0.7) + F32(0.1))),
        ((SUBTRACT, SUBTRACT), (0.7, 0.1), 0.3, F32(0.3) + (-F32(0.7) + -F32(0.1))),
        ((ADD, MULTIPLY), (0.7, 0.1), -3.3, F32(-0.26)),  # x * 0.1 + 0.07 in one FMA
        ((ADD, MULTIPLY), (0.7, 0.1), -INF, -INF),
        ((MULTIPLY, ADD), (0.0, 1.0), INF, NAN),  # inf * 0
        ((ADD, ADD), (-0.0, -0.0), -0.0, -0.0),
        # x / 320 * 0.0125 is x * (1/320 * 0.0125): 4.911337e-4 for 12.573022, not 4.9113366e-4
        ((DIVIDE, MULTIPLY), (320.0, 0.0125), 12.573022, F32(4.911337e-4)),
        ((DIVIDE, MULTIPLY), (0.0, 2.0), 1.0, INF),  # the reciprocal of 0 is inf
    ],
)
def test_a_chain_folds_its_constants_first(
    links: tuple[Link, ...], constants: tuple[float, ...], x: float, expected: float
) -> None:
    ops = tuple(Multiply1({}) if link.kind == "multiply" else Add1({}) for link in links)
    chain = LinearChain(ops, links)
    arrays = [np.array([x], F32), *(np.array([c], F32) for c in constants)]
    (out,) = run_linear_chain(chain, arrays, [OutputSpec.of("f32")])
    assert out is not None
    np.testing.assert_array_equal(out, np.array([expected], F32))
    assert np.isnan(expected) or np.signbit(out[0]) == np.signbit(F32(expected))


@pytest.mark.parametrize(("fma", "expected"), [(True, -0.26), (False, -0.26000002)])
def test_a_chain_of_dynamic_shapes_rounds_its_product_first(fma: bool, expected: float) -> None:
    chain = LinearChain((Add1({}), Multiply1({})), (ADD, MULTIPLY), fma)
    arrays = [np.array([-3.3], F32), np.array([0.7], F32), np.array([0.1], F32)]
    (out,) = run_linear_chain(chain, arrays, [OutputSpec.of("f32")])
    np.testing.assert_array_equal(out, np.array([expected], F32))


def test_subtract_links_negate_their_constant() -> None:
    chain = LinearChain((Subtract1({}), Multiply1({})), (SUBTRACT, MULTIPLY))
    arrays = [np.array([1.0], F32), np.array([0.5], F32), np.array([4.0], F32)]
    (out,) = run_linear_chain(chain, arrays, [OutputSpec.of("f32")])
    np.testing.assert_array_equal(out, np.array([2.0], F32))  # 1 * 4 + (-0.5 * 4)


@pytest.mark.parametrize(
    ("x", "y", "z", "expected"),
    [
        (-3.3, 0.1, 0.07, -0.26),  # one rounding; separately -0.26000002
        (16777215, 1, 1, 16777216),
        (1e38, 10, -INF, -INF),  # the product is not rounded to inf first
        (1e38, 10, -1e38, INF),  # 1e39 - 1e38 rounds to inf in f32
        (NAN, 0, 1, NAN),
    ],
)
def test_fused_multiply_add_rounds_once(x: float, y: float, z: float, expected: float) -> None:
    out = fused_multiply_add(*(np.array([v], F32) for v in (x, y, z)))
    np.testing.assert_array_equal(out, np.array([expected], F32))
