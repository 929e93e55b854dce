"""Live differential tests: integer ReduceMax and AdaptiveMaxPool-8, irpool against the CPU plugin,
with values near the limits of f32 precision (docs/ops/AdaptiveMaxPool.md#numerics-and-tolerances).

The CPU wraps i16 and wider integers to int32 and compares them in f32 (rounded to nearest);
ReduceMax converts the f32 maximum 2**31 back to INT32_MIN, AdaptiveMaxPool clamps it to
2147483520; 8-bit integers are exact. The table pins the measured cases; the hypothesis
properties draw shapes, axes, output sizes and values around 2**24, 2**31, 2**32 and 2**40,
one model compiled on the CPU (f32 inference precision) per example.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

import irpool
from tests.differential.oracle_batch import CPU_CONFIG
from tests.scale import examples

ov = pytest.importorskip("openvino")
opset1 = pytest.importorskip("openvino.opset1")
opset8 = pytest.importorskip("openvino.opset8")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

TYPES = {
    "i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16,
    "i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64,
}  # fmt: skip
# Where f32 rounding, the int32 wrap and its top show; each type keeps those it can hold.
BASES = (0, -100, 2**24 - 3, 2**31 - 12, -(2**31), 2**32 - 8, 2**40 + 1, 2**63 - 8, -(2**63))
SETTINGS = settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def reduce_max_model(shape: tuple[int, ...], element_type: str, axes: list[int]) -> Any:
    parameter = opset1.parameter(list(shape), TYPES[element_type], name="in0")
    reduce = opset1.reduce_max(parameter, opset1.constant(np.array(axes, np.int64)), True)
    reduce.output(0).get_tensor().set_names({"out0"})
    return ov.Model([reduce], [parameter])


def adaptive_max_pool_model(
    shape: tuple[int, ...], element_type: str, output_size: list[int], indices: bool
) -> Any:
    parameter = opset1.parameter(list(shape), TYPES[element_type], name="in0")
    size = opset1.constant(np.array(output_size, np.int32))
    pool = opset8.adaptive_max_pool(parameter, size, index_element_type="i32")
    pool.output(0).get_tensor().set_names({"out0"})
    pool.output(1).get_tensor().set_names({"out1"})
    return ov.Model([pool.output(0), *([pool.output(1)] * indices)], [parameter])


def both(model: Any, data: NDArray[Any], path: Path) -> tuple[list[Any], list[Any]]:
    """The model's outputs as lists, from irpool running the saved file and from the CPU."""
    ov.save_model(model, path, compress_to_fp16=False)
    compiled = ov.Core().compile_model(path, "CPU", CPU_CONFIG)
    results = compiled.create_infer_request().infer({0: data})
    theirs = [results[output] for output in compiled.outputs]
    ours = irpool.load(path).run({"in0": data})
    return [ours[f"out{i}"] for i in range(len(theirs))], theirs


def assert_agree(model: Any, data: NDArray[Any], directory: Path, where: str) -> None:
    ours, theirs = both(model, data, directory / "model.xml")
    assert all(np.array_equal(o, t) for o, t in zip(ours, theirs, strict=True)), where


def near_limits(
    element_type: str, shape: tuple[int, ...], base: int | None, seed: int
) -> NDArray[Any]:
    """Values `base` to `base + 15` (clipped to the type's range), or (None) the whole range."""
    dtype = TYPES[element_type]
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    if base is None:
        return rng.integers(info.min, info.max, shape, dtype, endpoint=True)
    low = min(max(base, int(info.min)), int(info.max) - 15)
    return rng.integers(0, 16, shape).astype(dtype) + dtype(low)


@pytest.mark.parametrize(
    ("element_type", "values", "reduce_max", "pooled", "index"),
    [
        ("i32", [2**24 + 1, 2**24], 2**24, 2**24, 0),  # equal in f32: the first stays
        ("i32", [2**24, 2**24 + 1, 3], 2**24, 2**24, 0),
        ("i32", [2**24 + 3, 2**24 + 2], 2**24 + 4, 2**24 + 4, 0),  # rounded to nearest even
        ("i32", [2**31 - 100, 2**31 - 1], -(2**31), 2**31 - 128, 1),  # f32 2**31 back to int32
        ("i64", [2**40 + 7, 1], 7, 7, 0),  # wrapped to int32 first
        ("i64", [2**63 - 1, 0], 0, 0, 1),  # INT64_MAX wraps to -1
        ("u32", [2**31, 5], 5, 5, 1),  # 2**31 wraps to INT32_MIN
        ("u32", [2**31 - 1, 0], 2**31, 2**31 - 128, 0),
        ("u64", [2**31 - 1, 0], 2**64 - 2**31, 2**31 - 128, 0),  # INT32_MIN sign-extended
        ("i16", [-(2**15), 2**15 - 1], 2**15 - 1, 2**15 - 1, 1),
        ("u8", [255, 254], 255, 255, 0),
    ],
)
def test_measured_integer_maxima(
    tmp_path: Path, element_type: str, values: list[int], reduce_max: int, pooled: int, index: int
) -> None:
    data = np.array(values, np.uint64 if element_type == "u64" else np.int64)
    data = data.astype(TYPES[element_type]).reshape(1, 1, -1)
    ours, theirs = both(reduce_max_model(data.shape, element_type, [2]), data, tmp_path / "r.xml")
    assert theirs[0].ravel().tolist() == [reduce_max]
    assert ours[0].ravel().tolist() == [reduce_max]
    model = adaptive_max_pool_model(data.shape, element_type, [1], indices=True)
    ours, theirs = both(model, data, tmp_path / "a.xml")
    assert [theirs[0].ravel().tolist(), theirs[1].ravel().tolist()] == [[pooled], [index]]
    assert [ours[0].ravel().tolist(), ours[1].ravel().tolist()] == [[pooled], [index]]


def test_empty_reduced_axis_gives_int32_min_in_the_type(tmp_path: Path) -> None:
    """Measured: i16 gives 0 (INT32_MIN wrapped), i8 its own lowest value."""
    for element_type, expected in (("i16", 0), ("u32", 2**31), ("i64", -(2**31)), ("i8", -128)):
        data = np.zeros((2, 0), TYPES[element_type])
        model = reduce_max_model(data.shape, element_type, [1])
        ours, theirs = both(model, data, tmp_path / "empty.xml")
        assert theirs[0].ravel().tolist() == [expected] * 2
        assert ours[0].ravel().tolist() == [expected] * 2


@st.composite
def integer_tensors(draw: st.DrawFn, min_rank: int) -> tuple[str, NDArray[Any]]:
    element_type = draw(st.sampled_from(sorted(TYPES)))
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=min_rank, max_size=5)))
    if len(shape) <= 2 and draw(st.booleans()):  # runs of 16 or more take SIMD lanes on CPU
        shape = (*shape[:-1], draw(st.integers(16, 40)))
    base = draw(st.sampled_from((*BASES, None)))
    return element_type, near_limits(element_type, shape, base, draw(st.integers(0, 2**32 - 1)))


@SETTINGS
@given(tensor=integer_tensors(min_rank=1), data=st.data())
def test_integer_reduce_max_matches_the_cpu(
    tmp_path: Path, tensor: tuple[str, NDArray[Any]], data: st.DataObject
) -> None:
    element_type, values = tensor
    axes = sorted(data.draw(st.sets(st.integers(0, values.ndim - 1), min_size=1)))
    model = reduce_max_model(values.shape, element_type, axes)
    assert_agree(model, values, tmp_path, f"{element_type} {values.shape} axes {axes}")


@SETTINGS
@given(tensor=integer_tensors(min_rank=3), data=st.data())
def test_integer_adaptive_max_pool_matches_the_cpu(
    tmp_path: Path, tensor: tuple[str, NDArray[Any]], data: st.DataObject
) -> None:
    element_type, values = tensor
    output_size = [data.draw(st.integers(1, size + 2)) for size in values.shape[2:]]
    indices = data.draw(st.booleans())
    model = adaptive_max_pool_model(values.shape, element_type, output_size, indices)
    assert_agree(model, values, tmp_path, f"{element_type} {values.shape} -> {output_size}")
