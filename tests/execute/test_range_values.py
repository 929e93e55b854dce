"""Range-4: what OpenVINO's `read_model` refuses, the ranges it folds from known values (its
reference rules) and those the CPU plugin's kernel computes from values known only at run time
(measured on OpenVINO 2026.4.1, docs/ops/Range.md); the live comparison over many
configurations is tests/differential/test_range.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.cpu.refusals import check_refusals
from irpool.element_types import element_type
from irpool.execute.kernels.range import run_range
from irpool.execute.registry import OutputSpec
from irpool.ops.base import LayerContext, OpReport, ShapeError, TensorInfo
from irpool.ops.range import Range1, Range4
from irpool.rules import CPU_UNCOMPILED_ELEMENT_TYPE, INFERENCE_FAILURE
from irpool.shape import Shape
from tests.execute.running import _no_weights, quiet_context

F32, I32, I64 = np.float32, np.int32, np.int64


def _kernel(output_type: str, values: tuple[Any, ...], types: tuple[Any, ...]) -> Any:
    op = Range4({"output_type": output_type})
    arrays = [np.array(v, t) for v, t in zip(values, types, strict=True)]
    return run_range(op, arrays, [OutputSpec.of(output_type)])[0]


@pytest.mark.parametrize(
    ("output_type", "values", "types", "cpu"),
    [  # the CPU's outputs (INFERENCE_NUM_THREADS 1) for Parameters fed these values
        ("f32", (5, 0, 1), (F32,) * 3, [5, 6, 7, 8, 9]),  # the step's sign is not compared
        ("i32", (0, -5, 1), (I32,) * 3, [0, 1, 2, 3, 4]),
        ("f32", (0, 5, -1), (F32,) * 3, [0, -1, -2, -3, -4]),
        ("i32", (0.5, 3.7, 0.6), (F32,) * 3, [0, 1, 2, 2, 3, 4]),  # f32, rounded to nearest
        ("i64", (0, 2, 0.3), (F32,) * 3, [0, 0, 1, 1, 1, 2, 2]),
        (
            "i64",
            (2**31 - 3, 2**31 + 2, 1),
            (I64,) * 3,
            [2**31 - 3, 2**31 - 2, 2**31 - 1, -(2**31), -(2**31) + 1],
        ),
        ("f32", (16777216, 16777220, 1), (I32,) * 3, [16777216] * 4),
        ("i32", (16777216, 16777220, 1), (I32,) * 3, [16777216, 16777217, 16777218, 16777219]),
        ("i32", (16777216, 16777220, 1), (F32,) * 3, [16777216] * 4),  # f32 sums stall
        ("u64", (3, -2, 4294967294), (I32, I32, np.uint32), [3, 1, 2**64 - 1]),  # u32 wrapped
        ("i64", (3, 2**32 + 5, 1), (I32, I64, np.uint8), [3, 4]),  # i64 wrapped
        ("u8", (-2.5, 1, 1), (F32,) * 3, [0, 0, 0, 0]),  # saturated
        ("i8", (0, 300, 100), (F32,) * 3, [0, 100, 127]),
        ("f32", (0, 5, 0), (F32,) * 3, []),  # a float step of 0: empty
        ("f32", (0, float("inf"), 1), (F32,) * 3, []),
        # Past int32 an f32 element saturates to 2147483520 (the f32 below 2**31), then is
        # wrapped or saturated as other int32 values; -inf and the low end to INT32_MIN.
        (
            "i64",
            (2147482648, 2147484648, 300),
            (F32,) * 3,
            [2147482624, 2147482880, 2147483136, 2147483392] + [2147483520] * 3,
        ),
        ("i16", (3e9, 3e9 + 1000, 256), (F32,) * 3, [-128] * 4),
        ("u8", (3e38, 0, 1e38), (F32,) * 3, [255] * 3),  # the last two are inf
        ("i32", (-3e38, 0, -1e38), (F32,) * 3, [-(2**31)] * 3),
    ],
)
def test_cpu_kernel_values(output_type: str, values: Any, types: Any, cpu: list[float]) -> None:
    result = _kernel(output_type, values, types)
    np.testing.assert_array_equal(result, np.array(cpu, element_type(output_type).dtype))


def test_f32_elements_accumulate_as_the_cpu_adds_them() -> None:
    result = _kernel("f32", (0, 1, 0.1), (F32,) * 3)
    assert result[7] == np.float32(0.70000005)  # 0.1 added seven times, not 7 * 0.1


@pytest.mark.parametrize(
    ("values", "types"), [((2, float("nan"), 1), (F32,) * 3), ((0, 5, 0), (I32,) * 3)]
)
def test_sizes_the_cpu_cannot_give_are_refused(values: Any, types: Any) -> None:
    with pytest.raises(ShapeError):
        _kernel("f32" if types[0] is F32 else "i32", values, types)


def _info(value: Any, kind: str = "f32") -> TensorInfo:
    array = np.array(value, element_type(kind).dtype)
    return TensorInfo(element_type(kind), Shape.of(*array.shape), array)


@pytest.mark.parametrize(
    ("output_type", "values", "folded"),
    [  # what OpenVINO folds three Consts to
        ("f32", (0, 1, 0.1), [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.90000004]),
        ("i32", (0.5, 3.7, 1.5), [0, 1, 2]),  # each truncated first
        ("i32", (0.5, 3.7, 0.6), []),  # a step truncated to 0: empty
        ("f32", (5, 0, 1), []),
        ("i64", (10, 0, -3), [10, 7, 4, 1]),
    ],
)
def test_known_values_fold(output_type: str, values: Any, folded: list[float]) -> None:
    op = Range4({"output_type": output_type})
    (out,) = op.infer([_info(v) for v in values], quiet_context())
    assert out.shape == Shape.of(len(folded))
    assert out.value is not None
    np.testing.assert_array_equal(out.value, np.array(folded, element_type(output_type).dtype))


@pytest.mark.parametrize(
    ("inputs", "output_type", "message"),
    [
        ((_info([0]), _info(5), _info(1)), "f32", "'start' input is not a scalar"),
        ((_info(True, "boolean"), _info(5), _info(1)), "f32", "should be a numeric type"),
        ((_info(0), _info(5), _info(1)), "boolean", "output tensor type should be a numeric"),
        ((_info(0), _info(5), _info(0)), "f32", "'step' cannot be zero, nan, or infinite."),
        ((_info(0), _info(float("inf")), _info(1)), "f32", "'stop' cannot be nan or infinite."),
    ],
)
def test_read_model_refusals(inputs: Any, output_type: str, message: str) -> None:
    with pytest.raises(ShapeError, match=message):
        Range4({"output_type": output_type}).infer(list(inputs), quiet_context())


def test_one_known_value_is_checked_alone() -> None:
    unknown = TensorInfo(element_type("f32"), Shape.of())
    with pytest.raises(ShapeError, match="'start' cannot be nan"):
        Range4({"output_type": "f32"}).infer(
            [_info(float("nan")), unknown, unknown], quiet_context()
        )


@pytest.mark.parametrize(
    ("output_type", "code"),
    [
        ("dynamic", INFERENCE_FAILURE),
        ("u1", INFERENCE_FAILURE),
        ("string", CPU_UNCOMPILED_ELEMENT_TYPE),
    ],
)
def test_outputs_the_cpu_cannot_compile_or_run(output_type: str, code: str) -> None:
    reports: list[OpReport] = []
    ctx = LayerContext(frozenset(), reports.append, _no_weights)
    inputs = [_info(0), _info(5), _info(1)]
    Range4({"output_type": output_type}).infer(inputs, ctx)
    assert reports == []  # read_model takes it
    check_refusals(Range4({"output_type": output_type}), inputs, ctx)
    assert [r.code for r in reports] == [code]


@pytest.mark.parametrize(
    ("values", "dtype", "cpu"),
    [  # Range-1's output type is its inputs' type; the rest is Range-4's
        ((5, 0, 1), F32, [5, 6, 7, 8, 9]),
        ((2**31 - 3, 2**31 + 2, 1), I64, [2**31 - 3, 2**31 - 2, 2**31 - 1, -(2**31), -(2**31) + 1]),
        ((250, 255, 1), np.uint8, [250, 251, 252, 253, 254]),
        ((-128, 127, 50), np.int8, [-128, -78, -28, 22, 72, 122]),
    ],
)
def test_range1_runs_in_its_inputs_type(values: Any, dtype: Any, cpu: list[int]) -> None:
    arrays = [np.array(v, dtype) for v in values]
    op = Range1({}).for_layer([_info(a, element_type_name(a)) for a in arrays])
    kind = element_type_name(arrays[0])
    result = run_range(op, arrays, [OutputSpec.of(kind)])[0]  # type: ignore[arg-type]
    np.testing.assert_array_equal(result, np.array(cpu, dtype))
    assert result.dtype == dtype


def element_type_name(array: Any) -> str:
    from irpool.element_types import of_dtype

    kind = of_dtype(array.dtype)
    assert kind is not None
    return kind.name


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ((_info(0), _info(5, "i32"), _info(1)), "Element types for start, stop, and step do not"),
        ((_info(True, "boolean"),) * 3, "must not be boolean"),
        ((_info(0), _info(5), _info(float("nan"))), "'step' cannot be zero, nan, or infinite."),
    ],
)
def test_range1_read_model_refusals(inputs: Any, message: str) -> None:
    with pytest.raises(ShapeError, match=message):
        Range1({}).infer(list(inputs), quiet_context())


def test_range1_folds_in_its_inputs_type() -> None:
    (out,) = Range1({}).infer([_info(v, "i64") for v in (10, 0, -3)], quiet_context())
    assert out.type.name == "i64"
    assert out.value is not None
    np.testing.assert_array_equal(out.value, np.array([10, 7, 4, 1], I64))
