"""ReadValue-3/6 and Assign-3/6: the variable each declares, what read_model refuses of an
initializer, and what the CPU refuses of a variable (OpenVINO 2026.4.1, docs/ops/ReadValue.md).
The checks across layers are tests/test_variable_pairs.py's."""

from __future__ import annotations

import re

import pytest

from irpool.cpu.refusals import check_refusals
from irpool.element_types import element_type
from irpool.ops.base import LayerContext, OpReport, ShapeError, TensorInfo
from irpool.ops.variables import (
    Assign6,
    ReadValue3,
    ReadValue6,
    compatible,
    first_value_shape,
    relaxes,
)
from irpool.parse.values import read_partial_shape
from irpool.rules import (
    CPU_UNCOMPILED_ELEMENT_TYPE,
    CPU_VARIABLE_DYNAMIC_RANK,
    CPU_VARIABLE_ELEMENT_TYPE,
)
from irpool.shape import Shape
from tests.execute.running import quiet_context


def shape(text: str) -> Shape:
    value = read_partial_shape(text).value
    assert value is not None
    return value


def tensor(type_name: str, text: str) -> TensorInfo:
    return TensorInfo(element_type(type_name), shape(text))


def read_value6(type_name: str = "f32", shape_text: str = "1,2") -> ReadValue6:
    attrs = {"variable_id": "v", "variable_type": type_name, "variable_shape": shape(shape_text)}
    return ReadValue6(attrs)


@pytest.mark.parametrize(
    ("wide", "narrow", "relaxed", "compatible_"),
    [
        ("1,2", "1,2", True, True),
        ("?,2", "1,2", True, True),
        ("1,2", "?,2", False, True),  # read_model: "has to extend (relax)"
        ("1,2", "1,3", False, False),
        ("...", "1,2", True, True),
        ("1,2", "...", False, True),
        ("2..5,2", "3,2", True, True),
        ("2..5,2", "1..3,2", False, True),
        ("2..5,2", "6,2", False, False),
        ("1,2", "1,2,1", False, False),
    ],
)
def test_relaxes_and_compatible(wide: str, narrow: str, relaxed: bool, compatible_: bool) -> None:
    assert relaxes(shape(wide), shape(narrow)) is relaxed
    assert compatible(shape(wide), shape(narrow)) is compatible_


@pytest.mark.parametrize(
    ("declared", "init", "output"),
    [  # ReadValue-6's output: the variable it declares
        (("f32", "1,2"), ("f32", "1,2"), ("f32", "[1,2]")),
        (("f32", "?,2"), ("f32", "1,2"), ("f32", "[?,2]")),
        (("f32", "?,2"), None, ("f32", "[?,2]")),
        (("dynamic", "..."), ("boolean", ""), ("boolean", "[]")),  # wholly dynamic: the init's
        (("dynamic", "?,?"), ("f32", "1,2"), ("dynamic", "[?,?]")),
    ],
)
def test_read_value6_declares_the_variable(
    declared: tuple[str, str], init: tuple[str, str] | None, output: tuple[str, str]
) -> None:
    inputs = [tensor(*init)] if init else []
    (out,) = read_value6(*declared).infer(inputs, quiet_context())
    assert (out.element_type, str(out.shape)) == output


def test_read_value3_is_its_initializer() -> None:
    (out,) = ReadValue3({"variable_id": "v"}).infer([tensor("f16", "3,?")], quiet_context())
    assert (out.element_type, str(out.shape)) == ("f16", "[3,?]")


@pytest.mark.parametrize(
    ("declared", "init", "message"),
    [  # read_model's messages
        (("f32", "1,2"), ("f16", "1,2"), "Variable type: f32 Initialization type: f16"),
        (("i32", "1,2"), ("f32", "1,2"), "Variable type: i32 Initialization type: f32"),
        (("f32", "1,2"), ("f32", "1,3"), "Variable shape: [1,2] Initialization shape: [1,3]"),
        (("f32", "1,2"), ("f32", "?,2"), "Variable shape: [1,2] Initialization shape: [?,2]"),
    ],
)
def test_read_value6_refuses_an_initializer_it_does_not_relax(
    declared: tuple[str, str], init: tuple[str, str], message: str
) -> None:
    with pytest.raises(ShapeError, match=re.escape(message)):
        read_value6(*declared).infer([tensor(*init)], quiet_context())


@pytest.mark.parametrize(
    ("declared", "init", "first"),
    [  # what a run starts from: the initializer's shape, or zeros with a dynamic dim 0
        (("f32", "?,2"), ("f32", "3,2"), "[3,2]"),
        (("f32", "?,2"), None, "[0,2]"),
        (("f32", "2..4,2"), None, "[0,2]"),  # an interval's too (its Assign then fails)
    ],
)
def test_first_value_shape_at_run_time(
    declared: tuple[str, str], init: tuple[str, str] | None, first: str
) -> None:
    context = LayerContext(frozenset(), lambda _: None, lambda *_: b"", at_run_time=True)  # type: ignore[arg-type,return-value]
    (out,) = read_value6(*declared).infer([tensor(*init)] if init else [], context)
    assert str(out.shape) == first
    assert first_value_shape(shape("?,4,2..3")) == (0, 4, 0)


def test_assign_passes_its_input_on() -> None:
    (out,) = Assign6({"variable_id": "v"}).infer([tensor("f32", "?,8")], quiet_context())
    assert (out.element_type, str(out.shape)) == ("f32", "[?,8]")


@pytest.mark.parametrize(
    ("declared", "codes"),
    [
        (("f32", "1,2"), []),
        (("f16", "?,2"), []),
        (("i8", "2"), []),
        (("u8", "2"), []),
        (("boolean", "1"), []),
        (("i64", "2"), [CPU_VARIABLE_ELEMENT_TYPE]),
        (("u64", "2"), [CPU_VARIABLE_ELEMENT_TYPE]),
        (("i16", "2"), [CPU_VARIABLE_ELEMENT_TYPE]),
        (("u16", "2"), [CPU_VARIABLE_ELEMENT_TYPE]),
        (("u32", "2"), [CPU_VARIABLE_ELEMENT_TYPE]),
        (("f64", "2"), [CPU_VARIABLE_ELEMENT_TYPE]),
        (("f32", "..."), [CPU_VARIABLE_DYNAMIC_RANK]),
        (("dynamic", "1,2"), [CPU_UNCOMPILED_ELEMENT_TYPE]),
    ],
)
def test_what_the_cpu_refuses_of_a_variable(declared: tuple[str, str], codes: list[str]) -> None:
    reports: list[OpReport] = []
    context = LayerContext(frozenset({"variable_type"}), reports.append, lambda *_: b"")  # type: ignore[arg-type,return-value]
    check_refusals(read_value6(*declared), [], context)
    assert [report.code for report in reports] == codes
