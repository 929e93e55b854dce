"""Layers and edges read from the source text while lxml parses (graph.source_text): taken for
what OpenVINO's serializer writes, refused wherever the text could say something other than the
tree, and in every case the same reading as the plain reader's; the schema check is skipped only
where the text proves it would find nothing."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

import irpool
from irpool.diagnostics import Collector
from irpool.graph import source_text
from irpool.graph.source_text import SourceReading, read_source
from irpool.parse import xml_reader
from irpool.parse.schema import StructureCheck
from irpool.parse.source_map import decode_source
from irpool.parse.xml_reader import hardened_parser
from tests.graph.chains import write_chain
from tests.graph.plain_reader import plain_reading, source_text_reading
from tests.graph.readings import FILES, Reading, reading
from tests.scale import examples

ROOT = Path(__file__).resolve().parents[2]
# Written by OpenVINO's serializer (tools/gen_golden.py and the other corpus generators).
SERIALIZED = sorted(
    [*ROOT.glob("tests/golden/models/*.xml"), *ROOT.glob("tests/models/torchvision/*/*.xml")]
)


@pytest.fixture(autouse=True)
def _read_every_share(monkeypatch: pytest.MonkeyPatch) -> None:
    """The files here are small, their layers mostly unlike: read from the text all the same,
    as a large file's whose layers repeat."""
    monkeypatch.setattr(source_text, "MOST_DISTINCT_SHARE", 1.0)


def _early(text: str) -> tuple[SourceReading | None, etree._Element]:
    """What `load` reads from the text (None: nothing), and the tree."""
    early = read_source(text)
    root = etree.fromstring(text.encode(), hardened_parser())
    if early is None or not early.fits(next(root.iterchildren("layers"), None)):
        return None, root
    return early, root


def taken(text: str) -> bool:
    """Whether `load` would use the layers read from this text."""
    return _early(text)[0] is not None


def proven(text: str) -> bool:
    """Whether `load` would skip the schema check for this text."""
    early, root = _early(text)
    edges = next(root.iterchildren("edges"), None)
    return early is not None and early.proves_skeleton(
        root, edges is None or early.edges_fit(edges)
    )


def test_there_are_serialized_files() -> None:
    assert len(SERIALIZED) > 100


@pytest.mark.parametrize("path", SERIALIZED, ids=lambda p: str(p.relative_to(ROOT)))
def test_what_the_serializer_writes_is_read_from_the_text(path: Path) -> None:
    text = decode_source(path.read_bytes(), "utf-8")
    early = read_source(text)
    assert early is not None and early.heads is not None and early.edge_columns is not None
    assert taken(text) and proven(text)


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
    "text between layers": (_replace("\t\t" + _layer_start(2), "stray " + _layer_start(2)), True),
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
    "each layer inside an element": (
        lambda text: text.replace("\t\t<layer ", "<group><layer ").replace(
            "</layer>", "</layer></group>"
        ),
        False,
    ),
    "data with children": (
        _replace('exclude-pad="true" />', 'exclude-pad="true"><x/></data>'),
        True,
    ),
}


def _changed_chain(tmp_path: Path, change: Callable[[str], str]) -> tuple[Path, str]:
    """A chain of three pools written with `change`, and its text."""
    path = tmp_path / "chain.xml"
    write_chain(path, 3, named=True)
    text = change(path.read_text(encoding="utf-8"))
    path.write_bytes(text.encode())
    return path, text


def _read_both_ways(path: Path, monkeypatch: pytest.MonkeyPatch) -> Reading:
    """What `load` reads with the text read beside the parse (as for a large file), checked
    to be what the plain reader reads."""
    source_text_reading(monkeypatch)
    early = reading(path)
    plain_reading(monkeypatch)
    assert reading(path) == early
    return early


@pytest.mark.parametrize("name", VARIANTS)
def test_the_text_reading_is_taken_only_where_it_reads_as_the_tree(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    change, expected = VARIANTS[name]
    path, text = _changed_chain(tmp_path, change)
    assert taken(text) is expected
    _read_both_ways(path, monkeypatch)


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
    source_text_reading(monkeypatch)
    assert "IR508" in {d.code for d in irpool.load(path).validate()}


def test_a_malformed_file_is_reported_as_without_the_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "chain.xml"
    write_chain(path, 3)
    path.write_text(path.read_text(encoding="utf-8").replace("</input>", "</inptu>", 1))
    before = reading(path)
    source_text_reading(monkeypatch)
    assert reading(path) == before
    assert before[0][0][0] == "IR101"


# name -> (change to the chain's text that the schema check reports, the rule it reports)
SKELETON_FINDINGS: dict[str, tuple[Callable[[str], str], str]] = {
    "port without id": (
        _replace('<port id="1" precision="FP32"', '<port precision="FP32"'),
        "IR105",
    ),
    "dim with an element": (_replace("<dim>5</dim>", "<dim>5<x/></dim>"), "IR115"),
    "two <data>": (_replace('exclude-pad="true" />', 'exclude-pad="true" /><data/>'), "IR105"),
    "unknown element in a layer": (_replace("<input>", "<blobs/><input>"), "IR115"),
    "layer id not a number": (_replace('<layer id="2" ', '<layer id="2.0" '), "IR105"),
    "layer id negative": (_replace('<layer id="2" ', '<layer id="-2" '), "IR105"),
    "layer id in other digits": (_replace('<layer id="2" ', '<layer id="２" '), "IR105"),
    "edge number in other digits": (_replace('to-layer="2"', 'to-layer="２"'), "IR105"),
    "layer without a type": (_replace(' type="AvgPool" version', " version"), "IR105"),
    "edge without to-port": (_replace(' to-port="0" />', " />"), "IR105"),
    "edge with a negative port": (_replace('from-port="1"', 'from-port="-1"'), "IR105"),
    "edge with a child": (_replace(' to-port="0" />', ' to-port="0"><x/></edge>'), "IR115"),
    "element in <edges>": (_replace("\t</edges>", "\t<info/>\n\t</edges>"), "IR115"),
    "each edge inside an element": (
        lambda text: text.replace("<edge ", "<group><edge ").replace(
            'to-port="0" />', 'to-port="0" /></group>'
        ),
        "IR115",
    ),
    "unknown section of <net>": (_replace("\t<edges>", "\t<blobs/>\n\t<edges>"), "IR115"),
    "a second <rt_info>": (_replace("</net>", "<rt_info/><rt_info/></net>"), "IR119"),
    "no <layers>": (
        lambda text: text[: text.index("\t<layers>")] + text[text.index("\t<edges>") :],
        "IR105",
    ),
}


@pytest.mark.parametrize("name", SKELETON_FINDINGS)
def test_the_schema_check_is_skipped_only_where_it_finds_nothing(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    change, code = SKELETON_FINDINGS[name]
    path, text = _changed_chain(tmp_path, change)
    assert not proven(text)
    early = _read_both_ways(path, monkeypatch)
    assert code in {finding[0] for finding in early[0]}


ALL_FILES = sorted({*FILES, *SERIALIZED})


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_proven_skeleton_is_one_the_schema_check_finds_nothing_in(path: Path) -> None:
    text = decode_source(path.read_bytes(), "utf-8")
    try:
        is_proven = proven(text)
    except etree.XMLSyntaxError:
        return  # malformed: never read from the text
    if is_proven:
        sink = Collector("file")
        try:
            document = xml_reader.start_document(path, sink).document()
        except irpool.IRError:
            return  # not read as IR: no graph is built

        check = StructureCheck(document)
        check.run()
        check.report(sink)
        assert sink.diagnostics == []


def test_a_latin_1_file_reads_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The text is decoded as the file declares, so non-ASCII names read as lxml reads them."""
    path = tmp_path / "chain.xml"
    write_chain(path, 3, named=True)
    text = (
        path.read_text(encoding="utf-8")
        .replace('<?xml version="1.0"?>', '<?xml version="1.0" encoding="ISO-8859-1"?>')
        .replace('name="pool 1"', 'name="poolé 1"')
        .replace('names="tensor 2"', 'names="tensör 2"')
    )
    path.write_bytes(text.encode("latin-1"))
    parse = xml_reader.DocumentParse(path.read_bytes(), path, Collector("chain.xml"))
    assert read_source(parse.text()) is not None
    early = _read_both_ways(path, monkeypatch)
    assert ("1", "poolé 1") in {(d[5], d[6]) for d in early[0]}


def test_layers_mostly_unlike_are_read_from_the_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading the text beside the parse pays only where layers repeat: when distinct bodies
    are more than MOST_DISTINCT_SHARE of the text, the tree is read instead."""
    monkeypatch.undo()
    path = tmp_path / "chain.xml"
    write_chain(path, 40, named=True)
    alike = path.read_text(encoding="utf-8")
    assert read_source(alike) is not None
    count = iter(range(100))
    unlike = re.sub("</layer>", lambda _: f'<rt_info n="{next(count)}"/></layer>', alike)
    assert read_source(unlike) is None


# Pieces that change what the text says, inserted anywhere: most make the file malformed
# (both readers then report the same syntax error), some a file that reads otherwise.
PIECES = [
    "<!-- c -->",
    "<x/>",
    "<group>",
    "</group>",
    "</layer>",
    '<layer id="9" name="n" type="Parameter" version="opset1">',
    '<edge from-layer="0" from-port="0" to-layer="1" to-port="0" />',
    "<dim>3</dim>",
    ' names="tensor 1"',
    " x='1'",
    "&amp;",
    ">",
    '"',
    "\t",
    "\n",
    "\r",
    " ",
]


@settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    changes=st.lists(st.tuples(st.floats(0, 1), st.sampled_from(PIECES)), min_size=1, max_size=3)
)
def test_any_change_reads_as_the_plain_reader_reads_it(
    changes: list[tuple[float, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def insert(text: str) -> str:
        for where, piece in changes:
            at = int(where * len(text))
            text = text[:at] + piece + text[at:]
        return text

    path, _ = _changed_chain(tmp_path, insert)
    with monkeypatch.context() as patched:
        _read_both_ways(path, patched)
