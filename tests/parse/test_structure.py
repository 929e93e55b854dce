"""Elements IR does not define are skipped by OpenVINO 2026.4.1 wherever they are (each row
checked with `read_model` and a CPU compile, which run the model as if they were absent), so
they are IR115 warnings. A repeated section of <net>, which the reader skips whole, is an
IR118 error when it holds anything and an IR119 warning when it is empty."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import irpool
from irpool.cli import cli
from irpool.parse.xml_reader import _LONG_RUN, MAX_RUN_BYTES, _may_hold_long_run
from tests.ir import pool_model, write

EDGE = '<edge from-layer="0" from-port="0" to-layer="1" to-port="0" />'
UNKNOWN = {
    "in net": ("<layers>", "<foo/><layers>"),
    "in layers": ("<layers>", "<layers><foo/>"),
    "in layer": ("<data kernel", "<foo/><data kernel"),
    "in output": ("<output>", "<output><foo/>"),
    "in port": ('names="input">', 'names="input"><foo/>'),
    "in dim": ("<dim>1</dim>", "<dim>1<foo/></dim>"),
    "in edges": ("<edges>", "<edges><foo/>"),
    "in edge": (EDGE, EDGE.replace(" />", "><foo/></edge>")),
    "misspelt layer": ("<layers>", '<layers><Layer id="9" name="x" type="Relu" version="opset1"/>'),
    "namespaced": ("<layers>", '<ir:data xmlns:ir="urn:example"/><layers>'),
}


def diagnose(tmp_path: Path, text: str) -> list[tuple[str, int, int]]:
    try:
        found = irpool.load(write(tmp_path, text)).validate()
    except irpool.IRError as error:
        found = error.diagnostics
    return [(d.code, d.line, d.column) for d in found]


def codes(tmp_path: Path, text: str) -> list[str]:
    return [code for code, _, _ in diagnose(tmp_path, text)]


def changed(old: str, new: str) -> str:
    text = pool_model()
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(("old", "new"), UNKNOWN.values(), ids=list(UNKNOWN))
def test_unknown_element_is_a_warning_at_its_tag(tmp_path: Path, old: str, new: str) -> None:
    text = changed(old, new)
    tag = text.index(new) + min(new.index(m) for m in ("<foo", "<Layer", "<ir:") if m in new)
    line = text.count("\n", 0, tag) + 1
    column = tag - text.rfind("\n", 0, tag)
    assert diagnose(tmp_path, text) == [("IR115", line, column)]


def test_unknown_element_does_not_hide_a_later_error(tmp_path: Path) -> None:
    text = changed(*UNKNOWN["in net"]).replace(EDGE, EDGE.replace(' to-port="0"', ""), 1)
    assert {"IR115", "IR105"} <= set(codes(tmp_path, text))


FIRST_EDGE = '\t\t<edge from-layer="0" from-port="0" to-layer="1" to-port="0" />\n'
LAST_EDGE = '\t\t<edge from-layer="1" from-port="1" to-layer="2" to-port="0" />\n'
RT_INFO = '\t<rt_info>\n\t\t<info name="{}" value="1" />\n\t</rt_info>\n'
# A repeated section -> (old, new, the codes irpool reports); measured with OpenVINO 2026.4.1
# (read_model, CPU compile f32, infer), which reads only the first of each.
REPEATED = {
    "empty second edges": ("\t</edges>\n", "\t</edges>\n\t<edges/>\n", ["IR119"]),
    "empty second layers": ("\t</layers>\n", "\t</layers>\n\t<layers/>\n", ["IR119"]),
    "empty layers before edges": ("<edges>", "<layers/><edges>", ["IR119"]),
    "empty second rt_info": ("</net>", RT_INFO.format("a") + "\t<rt_info/>\n</net>", ["IR119"]),
    # the second holds the edge the first already has: dropped, and the model runs alike
    "second edges repeating an edge": (
        "\t</edges>\n",
        f"\t</edges>\n\t<edges>\n{FIRST_EDGE}\t</edges>\n",
        ["IR118"],
    ),
    "second rt_info": ("</net>", RT_INFO.format("a") + RT_INFO.format("b") + "</net>", ["IR118"]),
    "rt_info after an empty one": (
        "</net>",
        "\t<rt_info/>\n" + RT_INFO.format("a") + "</net>",
        ["IR118"],
    ),
    # OpenVINO reads the first, empty, <edges>: the Result is fed by nothing
    "edges after an empty one": ("\t<edges>\n", "\t<edges/>\n\t<edges>\n", ["IR118", "IR503"]),
    "edges split in two": (
        LAST_EDGE + "\t</edges>\n",
        "\t</edges>\n\t<edges>\n" + LAST_EDGE + "\t</edges>\n",
        ["IR118", "IR503"],
    ),
}


def repeated(case: str) -> str:
    old, new, _ = REPEATED[case]
    return changed(old, new)


@pytest.mark.parametrize("case", REPEATED)
def test_repeated_section(tmp_path: Path, case: str) -> None:
    errors_and_warnings = {"IR118", "IR119", "IR503"}
    found = [code for code in codes(tmp_path, repeated(case)) if code in errors_and_warnings]
    assert sorted(set(found)) == REPEATED[case][2]


@pytest.mark.oracle
@pytest.mark.parametrize("case", REPEATED)
def test_repeated_section_openvino_agrees(tmp_path: Path, case: str) -> None:
    """OpenVINO loads and runs every file irpool gives only warnings, and only those; a
    dropped section that changes nothing (IR118 alone) loads too: it is a reinterpretation."""
    ov = pytest.importorskip("openvino")
    core = ov.Core()
    try:
        compiled = core.compile_model(
            core.read_model(write(tmp_path, repeated(case))),
            "CPU",
            {"INFERENCE_PRECISION_HINT": "f32"},
        )
        compiled({0: np.ones((1, 2, 4, 4), np.float32)})
    except RuntimeError:
        accepted = False
    else:
        accepted = True
    assert accepted == ("IR503" not in REPEATED[case][2])


def test_repeated_section_messages_say_what_openvino_does(tmp_path: Path) -> None:
    found = irpool.load(write(tmp_path, repeated("edges split in two"))).validate()
    dropped = next(d for d in found if d.code == "IR118")
    assert dropped.message == (
        "a second <edges>: OpenVINO reads only the first <edges> (line 45) and drops this one "
        "with its 1 edge"
    )


# <net version> as written -> what IR104 says, or None: OpenVINO reads it (measured: strtoull
# skips a leading blank and refuses anything after the number; "opset11" fails in stoll).
VERSIONS = {
    "11": None,
    " 11": None,
    "11 ": "IR version is \"11 \": it ends with ' ', which OpenVINO refuses as not an integer",
    "10\t": "IR version is \"10\t\": it ends with '\\t', which OpenVINO refuses",
    "opset11": "an IR version is a bare number, not an opset name ('opset11'); write 10 or 11",
    "opset11 ": "it ends with ' ', which OpenVINO refuses as not an integer; an IR version is a "
    "bare number, not an opset name ('opset11')",
    "12": 'IR version is "12"; OpenVINO reads only 10 and 11',
}


def with_version(version: str) -> str:
    # A tab is written as a character reference: XML turns a literal one into a space.
    return changed('version="11"', f'version="{version.replace(chr(9), "&#9;")}"')


@pytest.mark.parametrize("version", VERSIONS)
def test_ir_version_message_names_what_is_wrong(tmp_path: Path, version: str) -> None:
    try:
        found = irpool.load(write(tmp_path, with_version(version))).validate()
    except irpool.IRError as error:
        found = error.diagnostics
    expected = VERSIONS[version]
    assert [d.code for d in found] == ([] if expected is None else ["IR104"])
    if expected is not None:
        assert expected in found[0].message


@pytest.mark.oracle
@pytest.mark.parametrize("version", VERSIONS)
def test_ir_version_openvino_agrees(tmp_path: Path, version: str) -> None:
    ov = pytest.importorskip("openvino")
    try:
        ov.Core().read_model(write(tmp_path, with_version(version)))
    except RuntimeError:
        accepted = False
    else:
        accepted = True
    assert accepted == (VERSIONS[version] is None)


EMPTY_REPEATS = [case for case, (_, _, found) in REPEATED.items() if found == ["IR119"]]


@pytest.mark.parametrize("case", EMPTY_REPEATS)
def test_fix_deletes_an_empty_repeated_section(tmp_path: Path, case: str) -> None:
    old, new, _ = REPEATED[case]
    path = write(tmp_path, repeated(case))
    result = CliRunner().invoke(cli, ["validate", "--fix", str(path)])
    assert result.exit_code == 0, result.output
    assert path.read_text() == changed(old, re.sub(r"\t?<\w+/>\n?", "", new, count=1))


@pytest.mark.parametrize(
    "section", ["\t<edges></edges>\n", "\t<edges >\n\t</edges >\n", "\t<edges\n\t/>\n"]
)
def test_fix_deletes_every_spelling_of_an_empty_section(tmp_path: Path, section: str) -> None:
    path = write(tmp_path, changed("</net>", section + "</net>"))
    CliRunner().invoke(cli, ["validate", "--fix", str(path)])
    assert path.read_text() == pool_model()


def test_an_empty_section_holding_a_comment_is_left_to_a_person(tmp_path: Path) -> None:
    text = changed("</net>", "\t<edges><!-- keep me --></edges>\n</net>")
    path = write(tmp_path, text)
    result = CliRunner().invoke(cli, ["validate", "--fix", str(path)])
    assert "IR119" in result.output and path.read_text() == text


@pytest.mark.parametrize("length", [MAX_RUN_BYTES - 1, MAX_RUN_BYTES])
@pytest.mark.parametrize("start", [1, 2, 8, (1 << 19) - 1, 1 << 19, (1 << 19) + 1, 3 << 19])
def test_the_long_run_pre_check_never_hides_a_run(start: int, length: int) -> None:
    """`_may_hold_long_run` only spares the regular expression: wherever a run of bytes
    without "<" starts relative to the blocks it looks at, a run the expression finds is let
    through to it."""
    data = b"<" * start + b"x" * length + b"<" * 100
    found = _LONG_RUN.search(data) is not None
    assert found == (length == MAX_RUN_BYTES)
    assert _may_hold_long_run(data) or not found
    assert not _may_hold_long_run(b"<a/>" * 1_000_000)
