"""An attribute of a later version of the op, on an earlier version, which ignores it: IR212
(an info) when its value changes nothing (a list of the neutral item, or the later
version's default, which is what the earlier version does), IR208 otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

import irpool
from tests import ir

SHAPE = (1, 2, 4, 4)
POOLED = (1, 2, 2, 2)
WINDOW = [
    ("kernel", "2,2"),
    ("strides", "2,2"),
    ("pads_begin", "0,0"),
    ("pads_end", "0,0"),
    ("rounding_type", "floor"),
    ("auto_pad", "explicit"),
]


def pool(kind: str, attribute: tuple[str, str]) -> str:
    extra = [("exclude-pad", "true")] if kind == "AvgPool" else []
    attributes = ir.data([*WINDOW, *extra, attribute])
    layers = [
        ir.parameter(0, "x", SHAPE),
        ir.layer(1, "pool", kind, "opset1", attributes, [ir.port(0, SHAPE)], [ir.port(1, POOLED)]),
        ir.result(2, "out", POOLED),
    ]
    return ir.net(layers, [ir.edge(0, 0, 1, 0), ir.edge(1, 1, 2, 0)])


@pytest.mark.parametrize(
    ("kind", "attribute", "code"),
    [
        ("MaxPool", ("axis", "0"), "IR212"),
        ("MaxPool", ("index_element_type", "i64"), "IR212"),
        ("MaxPool", ("dilations", "1.0,1.0"), "IR212"),
        ("MaxPool", ("axis", "1"), "IR208"),
        ("MaxPool", ("index_element_type", "i32"), "IR208"),
        ("MaxPool", ("dilations", "2,2"), "IR208"),
        ("AvgPool", ("dilations", "1,1"), "IR212"),
        ("AvgPool", ("dilations", "1,2"), "IR208"),
    ],
)
def test_a_later_versions_attribute_is_ir212_where_it_changes_nothing(
    kind: str, attribute: tuple[str, str], code: str, tmp_path: Path
) -> None:
    path = tmp_path / "model.xml"
    path.write_text(pool(kind, attribute), encoding="utf-8")
    found = irpool.load(path).validate()
    assert [d.code for d in found] == [code]
    assert found[0].message.startswith(f"{attribute[0]} belongs to {kind}-")
