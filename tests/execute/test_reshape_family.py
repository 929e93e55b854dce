"""Reshape-1, Squeeze-1 and Unsqueeze-1 against NumPy's reshape, squeeze and expand_dims.

Hypothesis draws static shapes and patterns or axes NumPy accepts; irpool's shape inference
and kernels must give NumPy's shapes and element order. What OpenVINO does beyond NumPy (0 with
special_zero, axes that are ignored or repeated, intervals) is covered by
tests/differential/test_reshape_family.py against the runtime itself.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irpool.ops.base import ShapeError
from irpool.ops.reshape import Reshape1, plain_target, reshaped
from irpool.ops.squeeze import Squeeze1, Unsqueeze1
from irpool.shape import Shape
from tests.execute.running import compute
from tests.scale import examples

shapes = st.lists(st.integers(1, 4), min_size=0, max_size=5).map(tuple)


@st.composite
def reshapes(draw: st.DrawFn) -> tuple[tuple[int, ...], list[int], list[int]]:
    """An input shape, a NumPy target for it, and the pattern written for that target
    (with special_zero): some dims equal to the input's at the same place become 0, and
    at most one dim becomes -1."""
    shape = draw(shapes)
    size = math.prod(shape)
    factors = [f for f in range(1, size + 1) if size % f == 0]
    target: list[int] = []
    left = size
    for _ in range(draw(st.integers(0, 4))):
        factor = draw(st.sampled_from([f for f in factors if left % f == 0]))
        target.append(factor)
        left //= factor
    if left != 1 or not target:
        target.append(left)
    pattern = [
        0 if i < len(shape) and dim == shape[i] and draw(st.booleans()) else dim
        for i, dim in enumerate(target)
    ]
    if draw(st.booleans()):
        pattern[draw(st.integers(0, len(pattern) - 1))] = -1
    return shape, target, pattern


@settings(max_examples=examples(300), deadline=None)
@given(reshapes())
def test_reshape_matches_numpy(case: tuple[tuple[int, ...], list[int], list[int]]) -> None:
    shape, target, pattern = case
    assert reshaped(Shape.of(*shape), pattern, special_zero=True) == Shape.of(*target)
    data = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    op = Reshape1({"special_zero": True})
    (out,) = compute(op, [data, np.array(pattern, dtype=np.int64)])
    assert out is not None
    np.testing.assert_array_equal(out, data.reshape(target))


@settings(max_examples=examples(200), deadline=None)
@given(shapes, st.data())
def test_squeeze_matches_numpy(shape: tuple[int, ...], data: st.DataObject) -> None:
    ones = [i for i, dim in enumerate(shape) if dim == 1]
    axes = data.draw(st.lists(st.sampled_from(ones), unique=True) if ones else st.just([]))
    written = [a - len(shape) if data.draw(st.booleans()) else a for a in axes]
    array = np.arange(math.prod(shape), dtype=np.int32).reshape(shape)
    inputs = [array, np.array(written, dtype=np.int64)] if written else [array]
    (out,) = compute(Squeeze1({}), inputs)
    assert out is not None
    np.testing.assert_array_equal(out, np.squeeze(array, tuple(axes) if axes else None))


@settings(max_examples=examples(200), deadline=None)
@given(shapes, st.data())
def test_unsqueeze_matches_numpy(shape: tuple[int, ...], data: st.DataObject) -> None:
    rank = len(shape) + data.draw(st.integers(1, 3))
    axes = data.draw(st.lists(st.integers(0, rank - 1), min_size=rank - len(shape), unique=True))
    axes = axes[: rank - len(shape)]
    written = [a - rank if data.draw(st.booleans()) else a for a in axes]
    array = np.arange(math.prod(shape), dtype=np.float16).reshape(shape)
    (out,) = compute(Unsqueeze1({}), [array, np.array(written, dtype=np.int32)])
    assert out is not None
    np.testing.assert_array_equal(out, np.expand_dims(array, tuple(axes)))


def test_reshape_of_a_dynamic_model_refuses_a_count_mismatch() -> None:
    """Where read_model skips its count check, a run must fail clearly, not read garbage."""
    op = Reshape1({"special_zero": True})
    with pytest.raises(ShapeError, match="holds 25 elements"):
        op.target_shape((5, 1), [np.array([0, 5])])


def test_int64_data_wraps_to_int32_as_on_the_cpu() -> None:
    data = np.array([2**31, 2**40 + 5, -(2**31) - 1], dtype=np.int64)
    (out,) = compute(Reshape1({"special_zero": False}), [data, np.array([3, 1])])
    assert out is not None
    assert out.ravel().tolist() == [-(2**31), 5, 2**31 - 1]


def test_squeeze_of_a_dim_that_turns_out_not_to_be_one_fails() -> None:
    """read_model squeezes a `?` named by the axes; given 3 there, the CPU plugin fails."""
    with pytest.raises(ShapeError, match="axis 1 of the input \\[1,3\\] is 3, not 1"):
        Squeeze1({}).target_shape((1, 3), [np.array([1])])


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(st.sampled_from([0, 1, 2, 3, 6]), max_size=4).map(tuple),
    st.lists(st.sampled_from([-1, 0, 1, 2, 3, 6, 12]), max_size=5),
    st.booleans(),
)
def test_the_kernels_plain_patterns_give_what_inference_gives(
    data: tuple[int, ...], pattern: list[int], special_zero: bool
) -> None:
    """The shortcut for plain patterns (positive dims, copied 0s, one -1 that holds
    the input exactly), the kernel's and shape inference's, gives `reshaped`'s shape; every
    other pattern is left to it."""
    plain = plain_target(data, pattern, special_zero)
    if plain is not None:
        assert plain == reshaped(Shape.of(*data), pattern, special_zero).values()
