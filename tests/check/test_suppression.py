"""Inline suppression (irpool/check/suppression.py): which element a comment covers, and
IR117 for a suppression at fault. The model is examples/spec's same_upper pool, whose
findings are IR213 on layer 1's <data>, IR301 on two dims of layer 1's output and IR301 on
two dims of layer 2's input."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import irpool
from irpool.cli import cli

SOURCE = (
    Path(__file__).resolve().parents[2] / "examples" / "spec" / "avgpool1_a_same_upper_k2s2.xml"
).read_text(encoding="utf-8")
POOL = '\t\t<layer id="1" name="pool"'
RESULT_TAG = 'output_names="output">'
POOL_LAST_DIM = '<dim>32</dim>\n\t\t\t\t</port>\n\t\t\t</output>\n\t\t</layer>\n\t\t<layer id="2"'
EVERYTHING = ["IR213", "IR301", "IR301", "IR301", "IR301"]


def findings(tmp_path: Path, *edits: tuple[str, str]) -> list[tuple[str, int]]:
    text = SOURCE
    for old, new in edits:
        assert old in text
        text = text.replace(old, new, 1)
    path = tmp_path / "model.xml"
    path.write_text(text, encoding="utf-8")
    return [(d.code, d.line) for d in irpool.load(path).validate()]


def codes(found: list[tuple[str, int]]) -> list[str]:
    return [code for code, _ in found]


@pytest.mark.parametrize(
    ("edit", "left"),
    [
        # A comment line before a layer covers the whole layer; several codes, any spacing.
        ((POOL, "\t\t<!-- irpool: ignore IR213, IR301 -->\n" + POOL), ["IR301", "IR301"]),
        ((POOL, "\t\t<!--irpool:ignore IR213,IR301-->\n" + POOL), ["IR301", "IR301"]),
        ((POOL, "\t\t<!-- irpool: ignore ir213 ir301 -->\n" + POOL), ["IR301", "IR301"]),
        # Before <net>: the whole file.
        ("<net ", []),
        # Right after a start tag, on its line: that element.
        ((RESULT_TAG, RESULT_TAG + " <!-- irpool: ignore IR301 -->"), ["IR213", "IR301", "IR301"]),
        # Ending the line of an element: that element only, not its siblings.
        (
            (
                POOL_LAST_DIM,
                POOL_LAST_DIM.replace("</dim>", "</dim> <!-- irpool: ignore IR301 -->"),
            ),
            ["IR213", "IR301", "IR301", "IR301"],
        ),
        # A comment line before a <dim>: that dim only.
        (
            (POOL_LAST_DIM, "<!-- irpool: ignore IR301 -->\n\t\t\t\t\t" + POOL_LAST_DIM),
            ["IR213", "IR301", "IR301", "IR301"],
        ),
        # Comments that are not suppressions.
        ((POOL, "\t\t<!-- note: irpool: ignore IR213 -->\n" + POOL), EVERYTHING),
        ((POOL, "\t\t<!-- ignore IR213 -->\n" + POOL), EVERYTHING),
    ],
)
def test_what_a_suppression_covers(
    tmp_path: Path, edit: tuple[str, str] | str, left: list[str]
) -> None:
    if isinstance(edit, str):  # before the root element
        edit = (edit, "<!-- irpool: ignore IR213 IR301 -->\n" + edit)
    assert codes(findings(tmp_path, edit)) == left


@pytest.mark.parametrize(
    ("comment", "message"),
    [
        ("<!-- irpool: ignore IR213 IR305 -->", 'IR305 is suppressed on <layer id="1">, but'),
        ("<!-- irpool: ignore IR213, IR999 -->", "IR999 in this suppression is not an irpool"),
        ("<!-- irpool: ignore IR213, -->", None),  # a trailing separator is fine
        ("<!-- irpool: ignore -->", 'must read "irpool: ignore CODE[, CODE...]"'),
        ("<!-- irpool: IR213 -->", 'must read "irpool: ignore CODE[, CODE...]"'),
    ],
)
def test_faulty_suppressions_are_reported(
    tmp_path: Path, comment: str, message: str | None
) -> None:
    path = tmp_path / "model.xml"
    path.write_text(SOURCE.replace(POOL, f"\t\t{comment}\n{POOL}", 1), encoding="utf-8")
    found = [d for d in irpool.load(path).validate() if d.code == "IR117"]
    if message is None:
        assert found == []
        return
    (unused,) = found
    assert message in unused.message and (unused.line, unused.column) == (15, 3)
    assert unused.severity is irpool.Severity.WARNING


def test_a_suppression_with_no_element_after_it(tmp_path: Path) -> None:
    found = findings(tmp_path, ("\t</edges>", "\t\t<!-- irpool: ignore IR301 -->\n\t</edges>"))
    assert ("IR117", 48) in found and codes(found).count("IR301") == 4


def test_the_command_line_sees_the_same(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "model.xml"
    path.write_text(
        SOURCE.replace(POOL, "\t\t<!-- irpool: ignore IR213 IR305 -->\n" + POOL, 1),
        encoding="utf-8",
    )
    result = runner.invoke(cli, ["validate", "--isolated", "--format", "concise", str(path)])
    assert "IR213" not in result.stdout.replace("ignore IR213", "")
    assert ':15:3: IR117 warning IR305 is suppressed on <layer id="1">' in result.stdout
    assert result.stdout.count(" IR301 error ") == 4


def test_fix_deletes_suppressions_that_are_wholly_stale(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "model.xml"
    stale_line = "\t\t<!-- irpool: ignore IR305 -->\n"
    trailing = " <!-- irpool: ignore IR999 -->"
    mixed = "\t\t<!-- irpool: ignore IR213 IR305 -->\n"  # IR213 is in use: left alone
    text = SOURCE.replace(POOL, mixed + POOL, 1).replace(RESULT_TAG, RESULT_TAG + trailing, 1)
    text = text.replace("\t<edges>\n", "\t<edges>\n" + stale_line, 1)
    path.write_text(text, encoding="utf-8")

    result = runner.invoke(cli, ["validate", "--isolated", "--fix", "--select", "IR117", str(path)])
    assert result.exit_code == 0, result.output
    assert path.read_text(encoding="utf-8") == SOURCE.replace(POOL, mixed + POOL, 1)
    remaining = [d for d in irpool.load(path).validate() if d.code == "IR117"]
    assert [d.message.split()[0] for d in remaining] == ["IR305"]  # the mixed comment's

    again = runner.invoke(cli, ["validate", "--isolated", "--fix", "--select", "IR117", str(path)])
    assert again.exit_code == 0 and "Fixed" not in again.output
