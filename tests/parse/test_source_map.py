"""Where start tags are: the scan for files without comments, CDATA, DOCTYPE or processing
instructions (every "<" not followed by "/" opens a tag) places every element where the
full token scan does."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from irpool.parse.source_map import SourceMap
from irpool.parse.xml_reader import hardened_parser

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(
    [
        *ROOT.glob("tests/rules/*.xml"),
        *ROOT.glob("examples/**/*.xml"),
        *ROOT.glob("tests/models/**/*.xml"),
    ]
)
# A comment after the root sends the scan down the full path and moves no element.
FULL_SCAN = b"<!-- full scan -->"


@pytest.mark.parametrize(
    "text",
    [
        '<?xml version="1.0"?>\n<net version="11"><layers/>\n</net>\n',
        '<net\n  version="11">é<a b="&lt;"/><c>&#60;</c></net>',
        '<?xml version="1.0"?><?pi x?><net/>',
        "<net><![CDATA[<x>]]><!-- <y> --></net>",
    ],
)
def test_small_documents(text: str) -> None:
    _same_places(text.encode())


def test_every_ir_file_of_the_repository() -> None:
    parsed = 0
    for path in FILES:
        data = path.read_bytes()
        try:
            etree.fromstring(data, hardened_parser())
        except (etree.XMLSyntaxError, ValueError):
            continue  # files written not to parse
        _same_places(data)
        parsed += 1
    assert parsed > 100


def _same_places(data: bytes) -> None:
    root = etree.fromstring(data, hardened_parser())
    plain, full = SourceMap(data, root, "utf-8"), SourceMap(data + FULL_SCAN, root, "utf-8")
    for element in root.iter(etree.Element):
        assert plain.element(element) == full.element(element), etree.tostring(element)[:80]
    # Placed by the scan (a start tag spans its characters), not by lxml's line alone.
    assert plain.element(root).end_column > 1
