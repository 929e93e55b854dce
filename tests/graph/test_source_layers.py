"""Layers read from the source text while lxml parses (graph.layers.read_source_layers): taken
for what OpenVINO's serializer writes, refused wherever the text could say something other than
the tree, and in every case the same reading as the plain reader's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from lxml import etree

import irpool
from irpool.graph.layers import read_source_layers
from irpool.parse import xml_reader
from irpool.parse.source_map import decode_source
from irpool.parse.xml_reader import hardened_parser
from tests.graph.plain_reader import plain_reading
from tests.graph.test_reader_paths import reading
from tests.graph.test_repeated_layers import write_chain

ROOT = Path(__file__).resolve().parents[2]
# Written by OpenVINO's serializer (tools/make_golden.py and the corpus tools).
SERIALIZED = sorted(
    [*ROOT.glob("tests/golden/models/*.xml"), *ROOT.glob("tests/models/torchvision/*/*.xml")]
)


def taken(text: str) -> bool:
    """Whether `load` would use the layers read from this text."""
    early = read_source_layers(text)
    if early is None:
        return False
    root = etree.fromstring(text.encode(), hardened_parser())
    return early.fits(next(root.iterchildren("layers"), None))


def test_there_are_serialized_files() -> None:
    assert len(SERIALIZED) > 100


@pytest.mark.parametrize("path", SERIALIZED, ids=lambda p: str(p.relative_to(ROOT)))
def test_what_the_serializer_writes_is_read_from_the_text(path: Path) -> None:
    text = decode_source(path.read_bytes(), "utf-8")
    early = read_source_layers(text)
    assert early is not None and early.heads is not None
    assert taken(text)


def _replace(old: str, new: str, count: int = 1) -> Callable[[str], str]:
    def change(text: str) -> str:
        assert old in text
        return text.replace(old, new, count)

    return change


def _layer_start(layer_id: int) -> str:
    return f'<layer id="{layer_id}" name="pool {layer_id}" type="AvgPool" version="opset1">'


# name -> (change to the chain's text, whether the text reading is taken)
VARIANTS: dict[str, tuple[Callable[[str], str], bool]] = {
    "as written": (lambda text: text, True),
    "comment before <net>": (_replace("<net ", "<!-- <layers> --><net "), False),
    "comment after <layers>": (_replace("\t<edges>", "\t<!-- edges -->\n\t<edges>"), True),
    "layer tag in a comment after <layers>": (
        _replace("\t<edges>", "\t<!-- <layer id='9'> -->\n\t<edges>"),
        False,
    ),
    "comment between layers": (
        _replace("\t\t" + _layer_start(2), "<!-- x -->" + _layer_start(2)),
        False,
    ),
    "layer tag in a comment": (
        _replace("<input>", '<input><!-- <layer id="9" name="n" type="t" version="v"> -->'),
        False,
    ),
    "layer tag in CDATA": (_replace("<input>", '<input><![CDATA[<layer id="9">]]>'), False),
    "processing instruction": (_replace("<input>", "<input><?pi <layer id='9'> ?>"), False),
    "namespace declared": (_replace("<net ", '<net xmlns:ir="urn:ir" '), False),
    "xml:space preserve": (_replace("<net ", '<net xml:space="preserve" '), False),
    "carriage returns": (lambda text: text.replace("\n", "\r\n"), False),
    "tab in a name": (_replace('name="pool 1"', 'name="pool\t1"'), True),
    "line feed in a name": (_replace('name="pool 1"', 'name="pool\n1"'), True),
    "line feed between attributes": (_replace('id="1" name=', 'id="1"\n name='), True),
    "single quotes": (_replace('<layer id="1" name="pool 1"', "<layer id='1' name='pool 1'"), True),
    "spaces around =": (_replace('<layer id="2" name', '<layer id = "2" name'), True),
    "> in a name": (_replace('name="pool 1"', 'name="pool>1"'), True),
    "escape in a name": (_replace('name="pool 1"', 'name="pool &amp; 1"'), True),
    "character reference in a dim": (_replace("<dim> 4</dim>", "<dim>&#32;4</dim>"), True),
    "empty layer": (
        _replace(
            _layer_start(2),
            '<layer id="9" name="x" type="Const" version="opset1"/>' + _layer_start(2),
        ),
        False,
    ),
    "element before the first layer": (_replace("<layers>", "<layers><info/>"), False),
    "element between layers": (
        _replace("\t\t" + _layer_start(2), "<info/>" + _layer_start(2)),
        False,
    ),
    "text between layers": (_replace("\t\t" + _layer_start(2), "stray " + _layer_start(2)), False),
    "a second <layers>": (_replace("\t<edges>", "\t<layers/>\n\t<edges>"), False),
    "<layers2> before <layers>": (_replace("\t<layers>", "\t<layers2/>\n\t<layers>"), False),
    "layer with a tab after its tag name": (
        _replace(_layer_start(2), _layer_start(2).replace(" ", "\t", 1)),
        False,
    ),
    "layer nested in a layer's rt_info": (
        _replace(
            "<input>", '<rt_info><layer id="9" name="n" type="t" version="v"/></rt_info><input>'
        ),
        False,
    ),
    "data with children": (
        _replace('exclude-pad="true" />', 'exclude-pad="true"><x/></data>'),
        True,
    ),
}


@pytest.mark.parametrize("name", VARIANTS)
def test_the_text_reading_is_taken_only_where_it_reads_as_the_tree(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "chain.xml"
    write_chain(path, 3, named=True)
    change, expected = VARIANTS[name]
    text = change(path.read_text(encoding="utf-8"))
    path.write_bytes(text.encode())
    assert taken(decode_source(text.encode(), "utf-8")) is expected
    monkeypatch.setattr(xml_reader, "PARSE_ON_WORKER_BYTES", 0)
    early = reading(path)
    plain_reading(monkeypatch)
    assert reading(path) == early


@pytest.mark.parametrize("quote", ['"', "'"])
@pytest.mark.parametrize("blank", [" ", "\t", "\n", " \n\t"])
def test_every_written_tensor_name_is_seen(
    quote: str, blank: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name given twice is found however the second names attribute is written."""
    path = tmp_path / "chain.xml"
    write_chain(path, 3, named=True)
    text = path.read_text(encoding="utf-8").replace(
        ' names="tensor 2"', f"{blank}names ={quote}tensor 1{quote}"
    )
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(xml_reader, "PARSE_ON_WORKER_BYTES", 0)
    assert "IR508" in {d.code for d in irpool.load(path).validate()}


def test_a_malformed_file_is_reported_as_without_the_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "chain.xml"
    write_chain(path, 3)
    path.write_text(path.read_text(encoding="utf-8").replace("</input>", "</inptu>", 1))
    before = reading(path)
    monkeypatch.setattr(xml_reader, "PARSE_ON_WORKER_BYTES", 0)
    assert reading(path) == before
    assert before[0][0][0] == "IR101"
