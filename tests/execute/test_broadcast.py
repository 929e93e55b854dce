"""Broadcast-1 and -3: what `read_model` refuses, the shapes it infers (targets from values,
bounds and nothing), values and bounds flowing through, what the CPU plugin cannot run
(IR617, IR618, refused runs) and the CPU's elements (measured on OpenVINO 2026.4.1,
docs/ops/Broadcast.md); the live comparison over many configurations is
tests/differential/test_broadcast.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.cpu.refusals import check_refusals
from irpool.element_types import element_type
from irpool.ops.base import LayerContext, OpReport, ShapeError, TensorInfo
from irpool.ops.broadcast import Broadcast, Broadcast1, Broadcast3
from irpool.ops.shape_of import ShapeOf3
from irpool.rules import CPU_BROADCAST_SCALAR_TO_EMPTY, CPU_BROADCAST_TARGET
from irpool.shape import Dim, Shape
from tests.execute.running import compute, quiet_context

F32 = element_type("f32")


def const(kind: str, values: Any) -> TensorInfo:
    array = np.array(values, np.dtype({"i64": "int64", "i32": "int32", "u8": "uint8"}[kind]))
    return TensorInfo(element_type(kind), Shape.of(*array.shape), array)


def data(shape: Shape) -> TensorInfo:
    return TensorInfo(F32, shape)


def op(version: int, mode: str) -> Broadcast:
    return (Broadcast1 if version == 1 else Broadcast3)({"mode": mode})


X3 = np.array([1, 2, 3], np.float32)


@pytest.mark.parametrize(
    ("version", "mode", "source", "target", "axes", "cpu"),
    [  # the CPU's outputs
        (3, "numpy", X3, [2, 3], None, [[1, 2, 3], [1, 2, 3]]),
        (3, "explicit", X3, [3, 2], [0], [[1, 1], [2, 2], [3, 3]]),
        (1, "none", X3, [2, 3], [1], [[1, 2, 3], [1, 2, 3]]),
        (1, "explicit", X3, [2, 3], None, [[1, 2, 3], [1, 2, 3]]),  # read as numpy
        (1, "numpy", X3, [2, 3], [5], [[1, 2, 3], [1, 2, 3]]),  # a third input is ignored
        (3, "bidirectional", X3.reshape(3, 1), [2, 1, 4], None, [[[1] * 4, [2] * 4, [3] * 4]] * 2),
        (3, "bidirectional", X3, [], None, [1, 2, 3]),
        (3, "pdpd", np.array([[1], [2]], np.float32), [2, 3], None, [[1, 1, 1], [2, 2, 2]]),
        (3, "explicit", np.float32(7), [2, 2], [], [[7, 7], [7, 7]]),
        (3, "explicit", np.float32(7), [1, 2], [0], [[7, 7]]),
    ],
)
def test_cpu_values(
    version: int, mode: str, source: Any, target: list[int], axes: list[int] | None, cpu: Any
) -> None:
    inputs = [np.asarray(source), np.array(target, np.int64)]
    if axes is not None:
        inputs.append(np.array(axes, np.int64))
    (result,) = compute(op(version, mode), inputs)
    assert result is not None
    np.testing.assert_array_equal(result, np.array(cpu, np.float32))


@pytest.mark.parametrize(
    ("values", "cpu"),
    [  # held as the CPU holds the type: 64-bit integers wrapped to int32, f64 through f32
        (np.array([2**31, -1, 2**40 + 5], np.int64), [-(2**31), -1, 5]),
        (np.array([2**32 + 1, 2**63, 5], np.uint64), [1, 0, 5]),
        (
            np.array([1e300, -np.inf, np.nan]),
            [3.4028234663852886e38, -3.4028234663852886e38, np.nan],
        ),
        (np.array([np.inf, -0.0, 65504], np.float16), [np.inf, -0.0, 65504]),
        (np.array([True, False, True]), [True, False, True]),
    ],
)
def test_held_values(values: Any, cpu: list[Any]) -> None:
    (result,) = compute(op(3, "numpy"), [values, np.array([2, 3], np.int64)])
    assert result is not None and result.dtype == values.dtype
    expected = np.array([cpu, cpu], values.dtype)
    assert np.ascontiguousarray(result).tobytes() == expected.tobytes()


V3 = data(Shape.of(3))


@pytest.mark.parametrize(
    ("broadcast", "inputs", "message"),
    [
        (op(3, "numpy"), [V3, const("i64", [2, 3]), const("i64", [1])], "should not be provided"),
        (op(3, "explicit"), [V3, const("i64", [2, 3])], "should be provided if explicit"),
        (op(1, "pdpd"), [V3, const("i64", [2, 3])], "index '2' out of range"),
        (op(3, "numpy"), [V3, TensorInfo(F32, Shape.of(2))], "integral number, but is: f32"),
        (op(3, "numpy"), [V3, const("i64", 3)], "shape rank must be 1, but has 0"),
        (op(3, "numpy"), [V3, const("i64", [[2, 3]])], "shape rank must be 1, but has 2"),
        (
            op(3, "explicit"),
            [V3, const("i64", [2, 3]), TensorInfo(F32, Shape.of(1))],
            "axes must be integral numbers, but are: f32",
        ),
        (op(3, "explicit"), [V3, const("i64", [2, 3]), const("i64", 1)], "axes rank must be 1"),
        (op(3, "numpy"), [V3, const("i64", [2, 1])], "equal 3 cannot be broadcasted .* to 1"),
        (op(3, "numpy"), [V3, const("i64", [])], "has smaller rank 0 than arg shape 1"),
        (op(3, "explicit"), [V3, const("i64", [2, 3]), const("i64", [0])], "Expected 3. Got 2"),
        (op(3, "explicit"), [V3, const("i64", [2, 3]), const("i64", [2])], "2 exceeds target"),
        (
            op(3, "explicit"),
            [V3, const("i64", [2, 3]), const("i64", [-1])],
            "18446744073709551615 exceeds target rank 2",
        ),
        (
            op(3, "explicit"),
            [data(Shape.of(2, 3)), const("i64", [2, 4, 3]), const("i64", [2, 0])],
            r"transposes. axes_mapping AxisVector\{2, 0\} not in sorted order",
        ),
        (
            op(3, "explicit"),
            [V3, const("i64", [2, 3]), const("i64", [1, 1])],
            r"axes_mapping shape \[2\] doesn't match rank of input tensor 1",
        ),
        (
            op(3, "explicit"),
            [data(Shape.of()), const("i64", [2, 3]), const("i64", [0])],
            r"target\[axes_mapping\[0\]\]. Expected 1. Got 2",
        ),
        (
            op(3, "bidirectional"),
            [data(Shape((Dim(2, 4),))), const("i64", [7])],
            "Expecting either 1 or 2..4. Got 7",
        ),
        (op(3, "pdpd"), [V3, const("i64", [2, 3])], "Expecting either 1 or 3 . Got 2"),
        (op(3, "pdpd"), [data(Shape.of()), const("i64", [2])], "out-of-range dimension"),
        (
            op(3, "numpy"),
            [V3, TensorInfo(element_type("u64"), Shape.of(1), np.array([2**64 - 1], np.uint64))],
            r"Value 18446744073709551615 not in range \[-9223372036854775808:",
        ),
    ],
)
def test_read_model_refuses(broadcast: Broadcast, inputs: list[TensorInfo], message: str) -> None:
    with pytest.raises(ShapeError, match=message):
        broadcast.infer(inputs, quiet_context())


@pytest.mark.parametrize(
    ("mode", "source", "target", "openvino"),
    [  # read_model's output shapes
        ("numpy", Shape.of(3), const("i64", [-1, 3]), "[?,3]"),
        ("numpy", Shape.of(3), const("i64", [-2, 3]), "[0,3]"),
        ("numpy", Shape.of(3), const("i64", [2**63 - 1, 3]), "[?,3]"),
        ("numpy", Shape.of(3), const("i32", [2**31 - 1, 3]), "[2147483647,3]"),
        ("numpy", Shape((Dim(2, 4),)), const("i64", [1]), "[1]"),  # an interval is not checked
        ("numpy", Shape.of(3), TensorInfo(element_type("i64"), Shape.of(2)), "[?,?]"),
        ("numpy", Shape.of(3), TensorInfo(element_type("i64"), Shape((Dim(2, 3),))), "[...]"),
        ("bidirectional", Shape.of(3, 1), TensorInfo(element_type("i64"), Shape.of(2)), "[3,?]"),
        ("bidirectional", Shape.of(3, 5), TensorInfo(element_type("i64"), Shape.of(3)), "[?,3,5]"),
        ("bidirectional", Shape.dynamic(), TensorInfo(element_type("i64"), Shape.of(2)), "[...]"),
        ("bidirectional", Shape((Dim(2, 4),)), const("i64", [1]), "[2..4]"),
        ("bidirectional", Shape((Dim.dynamic(),)), const("i64", [1]), "[?]"),
        ("bidirectional", Shape.of(2, 3), const("i64", [1]), "[2,3]"),
        ("pdpd", Shape.of(2, 3, 4), const("i64", [2, 1]), "[2,3]"),
        ("pdpd", Shape((Dim(1, 3),)), const("i64", [2]), "[2]"),
    ],
)
def test_shapes(mode: str, source: Shape, target: TensorInfo, openvino: str) -> None:
    (out,) = op(3, mode).infer([data(source), target], quiet_context())
    assert str(out.shape) == openvino


def test_values_and_bounds_flow() -> None:
    dims = Shape((Dim.dynamic(), Dim(6, 10), Dim.static(7)))
    (shape,) = ShapeOf3({"output_type": "i64"}).infer([data(dims)], quiet_context())
    zero = TensorInfo(F32, Shape.of(), np.zeros((), np.float32))
    (filled,) = op(3, "numpy").infer([zero, shape], quiet_context())
    assert str(filled.shape) == "[?,6..10,7]" and not filled.unknown
    (repeated,) = op(3, "numpy").infer([shape, const("i64", [2, 3])], quiet_context())
    assert repeated.bounds is not None
    assert [str(d) for d in repeated.bounds.dims()] == ["?", "6..10", "7"] * 2
    (folded,) = op(3, "explicit").infer(
        [const("i64", [4, 5]), const("i64", [2, 2]), const("i64", [0])], quiet_context()
    )
    assert folded.value is not None and folded.value.tolist() == [[4, 4], [5, 5]]
    axes = TensorInfo(element_type("i64"), Shape.of(1))  # known at run time only
    (placed,) = op(3, "explicit").infer([shape, const("i64", [3, 2]), axes], quiet_context())
    assert str(placed.shape) == "[3,2]" and placed.bounds is None


def test_a_target_known_to_no_one_leaves_the_dims_unknown() -> None:
    """OpenVINO reads a Concat's constant elements where it cannot evaluate the target (a
    Concat of a Const and a Parameter gives `[2,?]`): irpool, seeing no producer, trusts
    the declaration."""
    (out,) = op(3, "numpy").infer(
        [V3, TensorInfo(element_type("i64"), Shape.of(2))], quiet_context()
    )
    assert out.unknown


def reports(broadcast: Broadcast, inputs: list[TensorInfo]) -> list[OpReport]:
    found: list[OpReport] = []
    context = LayerContext(frozenset(), found.append, lambda offset, size: memoryview(b""))
    broadcast.infer(inputs, context)
    check_refusals(broadcast, inputs, context)
    return found


@pytest.mark.parametrize("mode", ["numpy", "bidirectional"])
def test_a_scalar_to_an_empty_target_crashes_in_some_runs(mode: str) -> None:
    (report,) = reports(op(3, mode), [data(Shape.of()), const("i64", [])])
    assert report.code == CPU_BROADCAST_SCALAR_TO_EMPTY and "in some runs" in report.message


@pytest.mark.parametrize(
    ("mode", "source", "target", "reason"),
    [  # read_model takes them; the CPU crashes, refuses or runs another shape (measured)
        ("numpy", Shape.of(3), const("i64", [-1, 3]), "negative target value"),
        ("numpy", Shape.of(), const("i64", [-2, 3]), "negative target value"),
        ("numpy", Shape.of(0), const("i64", [2, 0]), "(a crash)"),
        ("numpy", Shape.of(3), const("u8", [2, 3]), "Buffer over-read"),
        ("pdpd", Shape.of(2, 3, 4), const("i64", [2, 3]), "pdpd data of rank 3"),
        ("pdpd", Shape.of(0), TensorInfo(element_type("i64"), Shape.of(1)), "(a crash)"),
    ],
)
def test_what_the_cpu_cannot_run(mode: str, source: Shape, target: TensorInfo, reason: str) -> None:
    (report,) = reports(op(3, mode), [data(source), target])
    assert report.code == CPU_BROADCAST_TARGET and reason in report.message


def test_constant_8_bit_axes_are_read_past_their_end() -> None:
    inputs = [V3, TensorInfo(element_type("i64"), Shape.of(2)), const("u8", [1])]
    (report,) = reports(op(3, "explicit"), inputs)
    assert report.code == CPU_BROADCAST_TARGET and "Buffer over-read" in report.message


@pytest.mark.parametrize(
    ("mode", "source", "target"),
    [  # what the CPU runs right (measured)
        ("numpy", Shape.of(), const("i64", [2, 3])),
        ("bidirectional", Shape.of(3), const("i64", [])),
        ("explicit", Shape.of(), const("i64", [])),
        ("numpy", Shape.of(1), const("i64", [0])),
        ("numpy", Shape.of(3), const("i32", [2, 3])),
        ("bidirectional", Shape.of(3), const("u8", [2, 3])),
    ],
)
def test_what_the_cpu_runs(mode: str, source: Shape, target: TensorInfo) -> None:
    inputs = [data(source), target]
    if mode == "explicit":
        inputs.append(const("i64", []))
    assert reports(op(3, mode), inputs) == []


def test_constant_data_folds_so_nothing_runs_on_the_cpu() -> None:
    constant = TensorInfo(F32, Shape.of(), np.float32(1))
    assert reports(op(3, "numpy"), [constant, const("i64", [])]) == []


@pytest.mark.parametrize(
    ("mode", "source", "target"),
    [  # a target given at run time: the CPU gives garbage or an empty tensor (measured)
        ("numpy", np.ones(3, np.float32), [-1, 3]),
        ("bidirectional", np.ones(3, np.float32), []),
        ("pdpd", np.ones((2, 3, 4), np.float32), [2, 3]),
    ],
)
def test_runs_the_cpu_gets_wrong_are_refused(mode: str, source: Any, target: list[int]) -> None:
    context = LayerContext(
        frozenset(), lambda report: None, lambda o, s: memoryview(b""), at_run_time=True
    )
    inputs = [TensorInfo(F32, Shape.of(*source.shape), source), const("i64", target)]
    with pytest.raises(ShapeError, match="garbage or an empty tensor"):
        op(3, mode).infer(inputs, context)
    given = TensorInfo(element_type("i64"), Shape.of(len(target)))  # a Parameter
    layer_op = op(3, mode).for_layer([inputs[0], given])
    with pytest.raises(ShapeError, match="garbage or an empty tensor"):
        layer_op.run_shape(source.shape, [np.array(target, np.int64)])


def test_explain_names_the_mode_and_axes() -> None:
    inputs = [V3, const("i64", [3, 2]), const("i64", [0])]
    explanation = op(3, "explicit").explain(inputs, [data(Shape.of(3, 2))])
    assert explanation is not None
    assert explanation.settings == "mode explicit: [3] to [3,2], axes_mapping [0]"
