"""A run holds the transposed B of its MatMuls in column order, the same values and shape
(irpool/execute/weights_order.py)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import numpy as np
import pytest

import irpool
from irpool.execute.plan import Step
from irpool.execute.weights_order import in_product_order
from irpool.ops.gather import Gather8
from irpool.ops.mat_mul import MatMul1

LLAMA = Path(__file__).resolve().parent.parent / "models" / "language" / "llama-fp16"
WEIGHTS = (7, 0)


def _matmul(transpose_b: bool) -> MatMul1:
    return MatMul1({"transpose_a": False, "transpose_b": transpose_b})


def _step(op: Any, weights_port: int) -> Step:
    inputs = [(1, 0), (2, 0)]
    inputs[weights_port] = WEIGHTS
    return cast(Step, SimpleNamespace(op=op, inputs=tuple(inputs)))


def _compressed() -> MatMul1:
    op = _matmul(True)
    op.compressed_weights = object()
    return op


MATRIX = np.arange(12, dtype=np.float32).reshape(3, 4).copy()  # an array of its own


@pytest.mark.parametrize(
    ("readers", "value", "column_order"),
    [
        ([(_matmul(True), 1)], MATRIX, True),
        ([(_matmul(True), 1), (_matmul(True), 1)], MATRIX, True),
        ([(_matmul(False), 1)], MATRIX, False),  # read in row order already
        ([(_matmul(True), 0)], MATRIX, False),  # A, not B
        ([(_matmul(True), 1), (Gather8({"batch_dims": 0}), 0)], MATRIX, False),  # tied
        ([(_compressed(), 1)], MATRIX, False),  # the run holds those weights itself
        ([(_matmul(True), 1)], MATRIX.astype(np.float16), False),
        ([(_matmul(True), 1)], np.zeros((2, 3, 4), np.float32), False),
        ([(_matmul(True), 1)], np.arange(24, dtype=np.float32).reshape(6, 4)[::2], False),
        ([], MATRIX, False),  # read by no step
    ],
)
def test_which_constants_are_held_in_column_order(
    readers: list[tuple[Any, int]], value: np.ndarray, column_order: bool
) -> None:
    held = {WEIGHTS: value}
    in_product_order([_step(op, port) for op, port in readers], held)
    np.testing.assert_array_equal(held[WEIGHTS], value)
    assert (held[WEIGHTS] is not value) == column_order
    if column_order:
        assert held[WEIGHTS].flags.f_contiguous


def test_a_decode_plan_holds_its_linear_layers_in_column_order() -> None:
    """The tiny Llama's Linear weights are held in column order; its embedding table (a
    Gather's) stays in row order."""
    plan = irpool.load(LLAMA / "openvino_model.xml").execution_plan()
    products = {
        step.inputs[1]
        for step in plan.steps
        if type(step.op) is MatMul1 and step.op.transposes[1] and step.inputs[1] in plan.constants
    }
    matrices = {ref: value for ref, value in plan.constants.items() if value.ndim == 2}
    assert products and set(matrices) - products
    for ref, value in matrices.items():
        assert value.flags.f_contiguous == (ref in products) != value.flags.c_contiguous
