"""Shape inference of Concat, Transpose, Gather, ShapeOf and VariadicSplit, and the values that
flow through shape subgraphs as bounds, on the cases docs/shape-values.md#values-flow-as-bounds
states (measured with
OpenVINO 2026.4; tests/differential/ compares many more live). These run without OpenVINO."""

from __future__ import annotations

import pytest

from irpool.cpu.refusals import check_refusals
from irpool.ops.arithmetic import Add1, Divide1, Mod1, Multiply1
from irpool.ops.base import LayerContext, NotInferable, Op, OpReport, ShapeError, TensorInfo
from irpool.ops.concat import Concat1
from irpool.ops.gather import Gather1, Gather8
from irpool.ops.reshape import Reshape1
from irpool.ops.transpose import Transpose1
from irpool.ops.variadic_split import VariadicSplit1
from irpool.shape import Shape
from tests.ops.inferring import I64, const, data, infer, parse, pick, shape_of


def shapes(outputs: list[TensorInfo]) -> list[str]:
    return [str(info.shape) for info in outputs]


@pytest.mark.parametrize(
    ("inputs", "axis", "expected"),
    [
        (["2,3", "2,4"], 1, "[2,7]"),
        (["1..5,3", "2..8,3"], 0, "[3..13,3]"),
        (["?,3", "2..6,3"], 0, "[2..,3]"),
        (["2..6,3", "4..9,3"], 1, "[4..6,6]"),
        (["2,3", "..."], 1, "[2,3..]"),
        (["...", "..."], 0, "[...]"),
    ],
)
def test_concat_sums_the_axis_and_merges_the_rest(
    inputs: list[str], axis: int, expected: str
) -> None:
    assert shapes(infer(Concat1({"axis": axis}), *map(data, inputs))) == [expected]


@pytest.mark.parametrize(
    ("inputs", "axis", "message"),
    [
        (["2,3", "3,4"], 1, "Argument shapes are inconsistent"),
        (["2,3", "2,4,1"], 1, "Argument shapes are inconsistent"),
        (["2,3", "2,4"], 2, "Axis 2 out of the tensor rank range [-2, 1]."),
        (["", ""], 0, "Accessing out-of-range dimension"),
    ],
)
def test_concat_refuses_as_openvino(inputs: list[str], axis: int, message: str) -> None:
    with pytest.raises(ShapeError, match=message.replace("[", r"\[").replace(".", r"\.")):
        infer(Concat1({"axis": axis}), *map(data, inputs))


@pytest.mark.parametrize(
    ("shape", "order", "expected"),
    [
        ("2,3,4", [2, 0, 1], "[4,2,3]"),
        ("2,1..4,?", [2, 0, 1], "[?,2,1..4]"),
        ("2,3..7,4", [], "[4,3..7,2]"),
        ("...", [2, 0, 1], "[?,?,?]"),
        ("...", [], "[]"),
    ],
)
def test_transpose_permutes_and_an_empty_order_reverses(
    shape: str, order: list[int], expected: str
) -> None:
    assert shapes(infer(Transpose1({}), data(shape), const(order))) == [expected]


def test_transpose_names_the_bad_permutation_as_openvino() -> None:
    with pytest.raises(ShapeError, match=r"AxisVector\{18446744073709551615, 0, 1\}"):
        infer(Transpose1({}), data("2,3,4"), const([-1, 0, 1]))


@pytest.mark.parametrize(
    ("shape", "indices", "axis", "batch_dims", "expected"),
    [
        ("3,5", "3,4", 1, 1, "[3,4]"),
        ("2..6,5", "3..8,4", 1, 1, "[3..6,4]"),
        ("3,5,7", "3,4", 2, -3, "[3,5,4,3,4]"),
        ("3,5,7", "3", 2, -2, "[3,5,3,3]"),
        ("3,5", "?", 1, 0, "[3,?]"),
        ("...", "2", 1, 0, "[...]"),
    ],
)
def test_gather_shapes(shape: str, indices: str, axis: int, batch_dims: int, expected: str) -> None:
    op = Gather8({"batch_dims": batch_dims})
    reports: list[OpReport] = []
    context = LayerContext(frozenset(), reports.append, lambda *_: memoryview(b""))
    outputs = op.infer([data(shape), TensorInfo(I64, parse(indices)), const(axis)], context)
    assert shapes(outputs) == [expected]
    # a batch_dims still negative after counting from the indices' rank is IR205
    assert [r.code for r in reports] == (["IR205"] if batch_dims < -len(parse(indices)) else [])


@pytest.mark.parametrize(
    ("shape", "indices", "axis", "batch_dims", "message"),
    [
        ("3,5", "3,4", 0, 1, "batch_dims must be <= axis"),
        ("3,5", "4", 1, 1, "must have equal or intersecting sizes until batch_dims"),
        ("3,5,7", "", 2, 1, "The batch_dims must be <= indices_rank"),
        ("3,5", "3,4", 2, 0, r"Axis 2 out of the tensor rank range \[-2, 1\]"),
        ("3,5,7", "3,4", 2, -5, "Accessing out-of-range dimension"),
        ("...", "2,2", 0, 1, "batch_dims must be <= axis"),
    ],
)
def test_gather_refusals(
    shape: str, indices: str, axis: int, batch_dims: int, message: str
) -> None:
    with pytest.raises(ShapeError, match=message):
        infer(
            Gather8({"batch_dims": batch_dims}),
            data(shape),
            TensorInfo(I64, parse(indices)),
            const(axis),
        )


@pytest.mark.parametrize(
    ("op", "shape", "indices", "expected", "codes"),
    # the CPU plugin (measured, docs/ops/Gather.md#what-the-reader-and-the-cpu-refuse): IR614
    # where it cannot run the model
    [
        (Gather8({"batch_dims": 0}), "3,5", "2", "[?,?]", ["IR614"]),  # "axis value is not set"
        (Gather8({"batch_dims": 1}), "3,5", "3,2", "[3,?]", ["IR614"]),
        (Gather1({}), "3,5", "2", "[?,?]", ["IR614"]),  # segmentation fault
        (Gather1({}), "5", "", "[]", []),  # one element: runs
        (Gather8({"batch_dims": 0}), "5", "", "[]", ["IR614"]),
        (Gather8({"batch_dims": 0}), "?,5", "2", "[?,?]", []),  # the axis read at run time
        (Gather8({"batch_dims": 1}), "3,5", "?,2", "[3,?]", []),
        (Gather1({}), "3,2..5", "2", "[?,?]", []),
    ],
)
def test_gather_axis_known_at_run_time(
    op: Op, shape: str, indices: str, expected: str, codes: list[str]
) -> None:
    reports: list[OpReport] = []
    context = LayerContext(frozenset(), reports.append, lambda *_: memoryview(b""))
    axis = TensorInfo(I64, Shape.of())  # a Parameter's, or computed from one
    inputs = [data(shape), TensorInfo(I64, parse(indices)), axis]
    outputs = op.infer(inputs, context)
    assert shapes(outputs) == [expected] and reports == []  # read_model takes it
    check_refusals(op, inputs, context)
    assert [r.code for r in reports] == codes


def test_gather_axis_irpool_does_not_know_is_not_reported() -> None:
    """An axis from a layer irpool does not check may be a constant OpenVINO folds: the
    Gather's declared outputs stand."""
    reports: list[OpReport] = []
    context = LayerContext(frozenset(), reports.append, lambda *_: memoryview(b""))
    axis = TensorInfo(I64, Shape.of(), unknown=True)
    with pytest.raises(NotInferable):
        Gather8({"batch_dims": 0}).infer([data("3,5"), TensorInfo(I64, parse("2")), axis], context)
    assert reports == []


@pytest.mark.parametrize(
    ("shape", "lengths", "expected"),
    [
        ("2,6", [2, -1], ["[2,2]", "[2,4]"]),
        ("2,6", [0, 6], ["[2,0]", "[2,6]"]),
        ("2,4..8", [2, -1], ["[2,2]", "[2,?]"]),
        ("2,4..8", [2, 9], ["[2,2]", "[2,9]"]),
        ("...", [2, 3], ["[...]", "[...]"]),
    ],
)
def test_variadic_split_pieces(shape: str, lengths: list[int], expected: list[str]) -> None:
    outputs = infer(VariadicSplit1({}), data(shape), const(1), const(lengths))
    assert shapes(outputs) == expected


@pytest.mark.parametrize(
    ("lengths", "message"),
    [
        ([2, -1, -1], "Cannot infer split with multiple -1 values at 1 and 2"),
        ([2, 3], "Total length of splits: 5 must match the length of the chosen axis: 6"),
        ([2, -2, 6], "Invalid value -2 in split lengths input. Should be >= -1."),
    ],
)
def test_variadic_split_refusals(lengths: list[int], message: str) -> None:
    with pytest.raises(ShapeError, match=message.replace(".", r"\.")):
        infer(VariadicSplit1({}), data("2,6"), const(1), const(lengths))


def test_variadic_split_lengths_beyond_the_axis_are_ir307() -> None:
    reports: list[OpReport] = []
    context = LayerContext(frozenset(), reports.append, lambda *_: memoryview(b""))
    outputs = VariadicSplit1({}).infer([data("2,6"), const(1), const([7, -1])], context)
    assert shapes(outputs) == ["[2,7]", "[2,?]"]
    assert [r.code for r in reports] == ["IR307"]


# --------------------------------------------------------------------------------------------
# Values as bounds (docs/shape-values.md#values-flow-as-bounds)
# --------------------------------------------------------------------------------------------


def test_shape_of_a_static_shape_is_a_value_and_of_a_dynamic_one_bounds() -> None:
    static = shape_of("2,3,4")
    assert static.value is not None and static.value.tolist() == [2, 3, 4]
    dynamic = shape_of("?,6..10,7")
    assert dynamic.value is None and dynamic.bounds is not None
    assert dynamic.bounds.lower == (0, 6, 7)
    assert pick(dynamic, [2]).value is not None  # an exact piece is a value


@pytest.mark.parametrize(
    ("op", "dim", "operand", "expected"),
    [
        (Divide1({"auto_broadcast": "numpy", "m_pythondiv": True}), "6..10", 2, "3..5"),
        (Divide1({"auto_broadcast": "numpy", "m_pythondiv": True}), "0..10", 4, "..2"),
        (Divide1({"auto_broadcast": "numpy", "m_pythondiv": True}), "4..", 3, "?"),
        (Mod1({"auto_broadcast": "numpy"}), "6..7", 4, "2..3"),
        (Mod1({"auto_broadcast": "numpy"}), "6..10", 4, "..3"),
        (Mod1({"auto_broadcast": "numpy"}), "6..10", 20, "6..10"),
        (Add1({"auto_broadcast": "numpy"}), "6..10", 1, "7..11"),
        (Add1({"auto_broadcast": "numpy"}), "?", 1, "?"),
        (Multiply1({"auto_broadcast": "numpy"}), "6..10", 2, "12..20"),
        (Multiply1({"auto_broadcast": "numpy"}), "4..", 3, "?"),
    ],
)
def test_arithmetic_bounds_as_openvino_evaluates_them(
    op: Op, dim: str, operand: int, expected: str
) -> None:
    (result,) = infer(op, pick(shape_of(f"2,{dim}"), [1]), const([operand]))
    assert result.bounds is not None
    assert [str(d) for d in result.bounds.dims()] == [expected]


@pytest.mark.parametrize(
    ("shape", "expected"),
    [("?,8,?,?", "[?,2,4,?,?]"), ("?,6..10,7,7", "[?,2,3..5,7,7]")],
)
def test_channel_shuffle_keeps_every_dim(shape: str, expected: str) -> None:
    """Reshape(x, Concat(ShapeOf[0], 2, ShapeOf[1] // 2, ShapeOf[2,3]))"""
    dims = shape_of(shape)
    half = Divide1({"auto_broadcast": "numpy", "m_pythondiv": True})
    (channels,) = infer(half, pick(dims, [1]), const([2]))
    parts = [pick(dims, [0]), const([2]), channels, pick(dims, [2, 3])]
    (pattern,) = infer(Concat1({"axis": 0}), *parts)
    (out,) = infer(Reshape1({"special_zero": False}), data(shape), pattern)
    assert str(out.shape) == expected


@pytest.mark.parametrize(
    ("shape", "expected"), [("?,3,4,5", "[?,?]"), ("1..8,3,2..4,5", "[1..8,4..480]")]
)
def test_flatten_from_shape_of_resolves_the_minus_one_on_intervals(
    shape: str, expected: str
) -> None:
    """Reshape(x, Concat(ShapeOf[0], -1))"""
    (pattern,) = infer(Concat1({"axis": 0}), pick(shape_of(shape), [0]), const([-1]))
    (out,) = infer(Reshape1({"special_zero": False}), data(shape), pattern)
    assert str(out.shape) == expected


def test_a_negative_bound_in_a_pattern_is_refused_as_openvino() -> None:
    half = Divide1({"auto_broadcast": "numpy", "m_pythondiv": True})
    (value,) = infer(half, pick(shape_of("6..10"), [0]), const([-2]))
    with pytest.raises(ShapeError, match=r"Output pattern dim\[0\] has invalid bounds: -5,-3"):
        infer(Reshape1({"special_zero": False}), data("6..10"), value)
