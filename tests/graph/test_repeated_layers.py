"""Layers written alike are read and checked once (graph.bodies, check.layer_checker): every one of
them must still get its own findings, at its own positions, with its own id and name."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

import irpool
from irpool.graph.bodies import PORT_NAMES
from irpool.graph.graph import Children
from irpool.graph.layers import body_text, cut_layers
from irpool.parse.xml_reader import hardened_parser
from tests.graph.chains import write_chain


@pytest.mark.parametrize("named", [False, True])
def test_each_repeated_layer_gets_its_own_findings(tmp_path: Path, named: bool) -> None:
    starts = write_chain(tmp_path / "chain.xml", 5, named)
    findings = irpool.load(tmp_path / "chain.xml").validate()
    by_layer: dict[str | None, list[tuple[str, int, int, str]]] = {}
    for d in findings:
        by_layer.setdefault(d.layer_name, []).append((d.code, d.line, d.column, d.message))
    assert sorted(by_layer, key=str) == [f"pool {index}" for index in range(1, 6)]
    relative = {
        name: sorted(
            (code, line - starts[int(name.split()[1]) - 1], column, message)
            for code, line, column, message in found
        )
        for name, found in by_layer.items()
        if name is not None
    }
    # The first pool's findings, exactly: the " 4" and the 5 (lines 7 and 15 after <layer>).
    assert [(code, line, column) for code, line, column, _ in relative["pool 1"]] == [
        ("IR113", 7, 11),
        ("IR301", 15, 11),
    ]
    assert all(found == relative["pool 1"] for found in relative.values())
    assert {d.layer_id for d in findings} == {str(index) for index in range(1, 6)}


def test_port_names_are_left_out_of_the_body_key_but_nothing_else() -> None:
    body = '<data names="a"/><output><port id="1" precision="FP32" names="t, u"><dim>1</dim>'
    assert PORT_NAMES.sub(r"\1", body) == (
        '<data names="a"/><output><port id="1" precision="FP32"><dim>1</dim>'
    )


def test_findings_in_repeated_ports_point_into_each_layer(tmp_path: Path) -> None:
    """Port findings of a shared body are placed per layer, and so are the shape checks."""
    path = tmp_path / "chain.xml"
    write_chain(path, 2)
    text = path.read_text(encoding="utf-8").replace(
        '<port id="1" precision="FP32">', '<port id="1" precision="FP32">\n\t\t\t\t\t<dim>7x</dim>'
    )
    path.write_text(text, encoding="utf-8")
    findings = irpool.load(path).validate()
    reinterpreted = [(d.layer_name, d.line) for d in findings if d.code == "IR112"]
    lines = text.splitlines()
    assert [name for name, _ in reinterpreted] == ["pool 1", "pool 2"]
    assert all("7x" in lines[line - 1] for _, line in reinterpreted)


def layers_of(xml: str) -> etree._Element:
    root = etree.fromstring(xml.encode(), hardened_parser())
    layers = root.find("layers")
    assert layers is not None
    return layers


PLAIN = (
    '<net version="11"><layers>'
    '<layer id="0" name="a&gt;b" type="Parameter"><data shape="1" /></layer>'
    '<layer id="1" name="c" type="Result"><input><port id="0"><dim>1</dim></port></input></layer>'
    '<layer id="2" name="d" type="Result"/>'
    "</layers></net>"
)


def serialized(container: etree._Element) -> str:
    return str(etree.tostring(container, with_tail=False, encoding="unicode"))


def test_cut_gives_each_layers_own_body() -> None:
    container = layers_of(PLAIN)
    elements = list(container)
    cut = cut_layers(serialized(container), container)
    assert cut is not None
    assert cut[0] == [body_text(e) for e in elements]
    assert body_text(elements[0]) == '<data shape="1"/></layer>'
    assert body_text(elements[2]) == ""
    assert cut[1] is None  # no version: the heads are read element by element


def test_cut_takes_question_and_exclamation_marks_in_values() -> None:
    """Dynamic shapes write "?"; only "<?" and "<!--" make the cut unsafe."""
    container = layers_of(PLAIN.replace('shape="1"', 'shape="?,1!"'))
    cut = cut_layers(serialized(container), container)
    assert cut is not None
    assert cut[0] == [body_text(e) for e in container]


HEADS = (
    '<net version="11"><layers>'
    '<layer id="0" name="in" type="Parameter" version="opset1"><data shape="1" /></layer>'
    '<layer id="1" name="out" type="Result" version="opset1" output_names="x"/>'
    "</layers></net>"
)


@pytest.mark.parametrize(
    ("change", "read_from_text"),
    [
        (("", ""), True),
        (('name="in"', 'name="a&amp;b"'), False),  # an escape: lxml's reading is the truth
        (('id="0" name="in"', 'name="in" id="0"'), False),  # not the serializer's order
        ((' version="opset1" output', " output"), False),  # a layer without a version
    ],
)
def test_cut_reads_heads_only_as_the_serializer_writes_them(
    change: tuple[str, str], read_from_text: bool
) -> None:
    container = layers_of(HEADS.replace(*change))
    cut = cut_layers(serialized(container), container)
    assert cut is not None
    expected = [
        tuple(e.get(name, "") for name in ("id", "name", "type", "version")) for e in container
    ]
    assert cut[1] == (expected if read_from_text else None)


@pytest.mark.parametrize(
    "change",
    [
        ('<layer id="1"', '<!-- a <layer id="9"> --><layer id="1"'),  # a comment could hold one
        ('<layer id="1"', '<?pi <layer ?><layer id="1"'),
        ('<layer id="1"', '<layer xmlns:x="urn:x" id="1"'),  # bodies would lose their context
        ('<layer id="1"', '<other/><layer id="1"'),  # a child that is not a layer
        ("<dim>1</dim>", '<layer id="5"/>'),  # a layer inside a layer
        ('<layer id="2" name="d" type="Result"/>', "<layer/>"),  # no attributes: no "<layer "
    ],
)
def test_cut_refuses_what_could_cut_wrong(change: tuple[str, str]) -> None:
    container = layers_of(PLAIN.replace(*change))
    assert cut_layers(serialized(container), container) is None


@pytest.mark.parametrize("uniform", [False, True])
def test_children_finds_each_position_from_either_end(uniform: bool) -> None:
    layers = "".join(f'<layer id="{i}" name="l{i}"/>' for i in range(9))
    container = layers_of(f'<net version="11"><layers>{layers}</layers></net>')
    children = Children(container, "layer", uniform)
    positions = (0, 3, 4, 5, 8, 8, 0, 1, 2, 6, 7, 8)  # more than WALKS: listed after those
    assert [children[i].get("name") for i in positions] == [f"l{i}" for i in positions]
    assert [element.get("name") for element in children.all()] == [f"l{i}" for i in range(9)]
