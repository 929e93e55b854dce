"""StringTensorUnpack-15 and StringTensorPack-15: the types and shapes read_model takes, with
its messages (OpenVINO 2026.4.1, docs/ops/StringTensorUnpack.md)."""

from __future__ import annotations

import pytest

from irpool.element_types import element_type
from irpool.ops.base import ShapeError, TensorInfo
from irpool.ops.string_tensors import StringTensorPack15, StringTensorUnpack15
from irpool.parse.values import read_partial_shape
from tests.execute.running import quiet_context


def tensor(type_name: str, text: str) -> TensorInfo:
    shape = read_partial_shape(text).value
    assert shape is not None
    return TensorInfo(element_type(type_name), shape)


@pytest.mark.parametrize(
    ("data", "outputs"),
    [
        ("2,3", ["i32 [2,3]", "i32 [2,3]", "u8 [?]"]),
        ("?,3", ["i32 [?,3]", "i32 [?,3]", "u8 [?]"]),
        ("", ["i32 []", "i32 []", "u8 [?]"]),
        ("2,0", ["i32 [2,0]", "i32 [2,0]", "u8 [0]"]),  # no string: no byte
        ("?,0", ["i32 [?,0]", "i32 [?,0]", "u8 [0]"]),
        ("..3", ["i32 [..3]", "i32 [..3]", "u8 [?]"]),
    ],
)
def test_unpack(data: str, outputs: list[str]) -> None:
    found = StringTensorUnpack15({}).infer([tensor("string", data)], quiet_context())
    assert [f"{info.element_type} {info.shape}" for info in found] == outputs


@pytest.mark.parametrize("type_name", ["f32", "u8", "dynamic"])
def test_unpack_takes_strings_only(type_name: str) -> None:
    with pytest.raises(ShapeError, match=f"string elements. Got: {type_name}"):
        StringTensorUnpack15({}).infer([tensor(type_name, "2")], quiet_context())


@pytest.mark.parametrize(
    ("begins", "ends", "symbols", "output"),
    [  # read_model's outputs
        (("i32", "2,3"), ("i32", "2,3"), ("u8", "10"), "[2,3]"),
        (("i64", "2"), ("i64", "2"), ("u8", "10"), "[2]"),
        (("i32", "?"), ("i32", "2"), ("u8", "?"), "[2]"),
        (("i32", "..."), ("i32", "2,3"), ("u8", "?"), "[2,3]"),
        (("i32", ""), ("i32", ""), ("u8", "4"), "[]"),
        (("i32", "2"), ("i32", "2"), ("u8", "..."), "[2]"),
    ],
)
def test_pack(
    begins: tuple[str, str], ends: tuple[str, str], symbols: tuple[str, str], output: str
) -> None:
    inputs = [tensor(*begins), tensor(*ends), tensor(*symbols)]
    (found,) = StringTensorPack15({}).infer(inputs, quiet_context())
    assert (found.element_type, str(found.shape)) == ("string", output)


@pytest.mark.parametrize(
    ("begins", "ends", "symbols", "message"),
    [  # read_model's messages
        (
            ("i32", "2"),
            ("i64", "2"),
            ("u8", "4"),
            "must match and be of i32 or i64 type. Got: i32 and i64",
        ),
        (("f32", "2"), ("f32", "2"), ("u8", "4"), "Got: f32 and f32"),
        (("u8", "2"), ("u8", "2"), ("u8", "4"), "Got: u8 and u8"),
        (("dynamic", "2"), ("i32", "2"), ("u8", "4"), "Got: dynamic and i32"),
        (("i32", "2"), ("i32", "3"), ("u8", "4"), "have to be compatible"),
        (("i32", "2"), ("i32", "2,1"), ("u8", "4"), "have to be compatible"),
        (("i32", "2"), ("i32", "2"), ("i8", "4"), "u8 elements. Got: i8"),
        (("i32", "2"), ("i32", "2"), ("dynamic", "4"), "u8 elements. Got: dynamic"),
        (("i32", "2"), ("i32", "2"), ("u8", "2,5"), "Symbols input must be 1D."),
        (("i32", "2"), ("i32", "2"), ("u8", ""), "Symbols input must be 1D."),
    ],
)
def test_pack_refusals(
    begins: tuple[str, str], ends: tuple[str, str], symbols: tuple[str, str], message: str
) -> None:
    inputs = [tensor(*begins), tensor(*ends), tensor(*symbols)]
    with pytest.raises(ShapeError, match=message):
        StringTensorPack15({}).infer(inputs, quiet_context())
