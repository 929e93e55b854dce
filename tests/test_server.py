"""`irpool server` driven as an editor drives it: a real client (pytest-lsp) starts
`python -m irpool server`, opens, edits and queries documents over stdio, and checks what
comes back against `irpool validate` on the same files."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

pytest_lsp = pytest.importorskip("pytest_lsp")
lsp = pytest.importorskip("lsprotocol.types")

from irpool.cli import cli  # noqa: E402

# One server for the module, as an editor keeps one: each test opens its own documents.
pytestmark = pytest.mark.asyncio(loop_scope="module")
EXAMPLES = Path(__file__).parent.parent / "examples"
SPEC_A = EXAMPLES / "spec" / "avgpool1_a_same_upper_k2s2.xml"
PUBLISHED = "textDocument/publishDiagnostics"


@pytest_lsp.fixture(
    scope="module",
    config=pytest_lsp.ClientServerConfig(server_command=[sys.executable, "-m", "irpool", "server"]),
)
async def client(lsp_client: pytest_lsp.LanguageClient):  # type: ignore[no-untyped-def]
    await lsp_client.initialize_session(
        lsp.InitializeParams(capabilities=pytest_lsp.client_capabilities("visual-studio-code"))
    )
    yield
    await lsp_client.shutdown_session()


def copy(source: Path, folder: Path, name: str | None = None) -> Path:
    target = folder / (name or source.name)
    shutil.copyfile(source, target)
    return target


async def open_document(client: pytest_lsp.LanguageClient, path: Path, text: str | None = None):  # type: ignore[no-untyped-def]
    """Open a document (with `text` as its unsaved content) and wait for its diagnostics."""
    uri = path.as_uri()
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(
                uri=uri,
                language_id="xml",
                version=1,
                text=path.read_text() if text is None else text,
            )
        )
    )
    await client.wait_for_notification(PUBLISHED)
    return uri, list(client.diagnostics[uri])


def validate_json(path: Path) -> list[dict[str, object]]:
    result = CliRunner().invoke(cli, ["validate", "--isolated", "--format", "json", str(path)])
    records: list[dict[str, object]] = json.loads(result.stdout)
    return records


def position(line: int, character: int) -> lsp.Position:
    return lsp.Position(line=line, character=character)


def ident(uri: str) -> lsp.TextDocumentIdentifier:
    return lsp.TextDocumentIdentifier(uri=uri)


def apply_edits(text: str, edits: list[lsp.TextEdit]) -> str:
    """Apply edits that stay within one line each (all --fix edits do), last first."""
    lines = text.split("\n")
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character))[::-1]:
        start, end = edit.range.start, edit.range.end
        assert start.line == end.line
        line = lines[start.line]
        lines[start.line] = line[: start.character] + edit.new_text + line[end.character :]
    return "\n".join(lines)


async def test_open_reports_what_validate_reports_at_the_same_positions(client, tmp_path):  # type: ignore[no-untyped-def]
    path = copy(SPEC_A, tmp_path)
    _, diagnostics = await open_document(client, path)
    expected = validate_json(path)
    got = [
        (
            d.code,
            d.severity,
            d.source,
            d.range.start.line + 1,
            d.range.start.character + 1,
            d.range.end.line + 1,
            d.range.end.character + 1,
        )
        for d in diagnostics
    ]
    severities = {"error": 1, "warning": 2, "info": 3}
    assert got == [
        (
            r["code"],
            severities[str(r["severity"])],
            "irpool",
            r["line"],
            r["column"],
            r["end_line"],
            r["end_column"],
        )
        for r in expected
    ]
    assert [d.code for d in diagnostics] == ["IR213", "IR301", "IR301", "IR301", "IR301"]
    first = diagnostics[1]
    assert first.message == (
        'output port 1 dim 2: declared 32, inferred 16 (shape [1,3,16,16]) [layer 1 "pool"]'
    )
    assert first.code_description is not None
    assert first.code_description.href.endswith("/rules/IR301.md")


async def test_columns_are_utf16_units_after_characters_outside_the_bmp(client, tmp_path):  # type: ignore[no-untyped-def]
    """validate counts characters; LSP's default counts UTF-16 units: 😋 is two."""
    text = SPEC_A.read_text().replace(
        '<data auto_pad="same_upper"', '<data note="😋😋" auto_pad="same_upper"'
    )
    path = tmp_path / "wide.xml"
    path.write_text(text)
    _, diagnostics = await open_document(client, path)
    by_code = {d.code: d for d in diagnostics}
    record = next(r for r in validate_json(path) if r["code"] == "IR213")
    assert isinstance(record["column"], int)
    assert by_code["IR213"].range.start.character == record["column"] - 1 + 2


async def test_changes_are_validated_from_the_unsaved_buffer_once_typing_pauses(client, tmp_path):  # type: ignore[no-untyped-def]
    path = copy(SPEC_A, tmp_path)
    uri, before = await open_document(client, path)
    assert len(before) == 5
    lines = path.read_text().split("\n")
    wrong = [28, 29, 38, 39]  # the four dims IR301 finds (0-based lines)

    def typed(width: str, count: int) -> str:
        edited = list(lines)
        for index in wrong[:count]:
            edited[index] = edited[index].replace("32", width)
        return "\n".join(edited)

    # Three quick edits, as keystrokes arrive: one validation follows, of the last text.
    for version, text in enumerate([typed("1", 1), typed("16", 1), typed("16", 4)], start=2):
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                [lsp.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
    await client.wait_for_notification(PUBLISHED)
    first = client.diagnostics[uri]
    await asyncio.sleep(0.8)  # past the debounce: a second publication would be here by now
    assert client.diagnostics[uri] is first
    assert [d.code for d in first] == ["IR213"]
    assert "<dim>32</dim>" in path.read_text()


async def test_weights_come_from_the_bin_beside_the_document_s_path(client, tmp_path):  # type: ignore[no-untyped-def]
    source = EXAMPLES / "valid" / "reduce_mean_global.xml"
    with_weights = copy(source, tmp_path)
    copy(source.with_suffix(".bin"), tmp_path)
    _, clean = await open_document(client, with_weights, source.read_text())
    assert clean == []
    alone = tmp_path / "elsewhere.xml"
    alone.write_text("")  # on disk it is empty: only the buffer holds the model
    _, missing = await open_document(client, alone, source.read_text())
    assert "IR401" in {d.code for d in missing}


async def test_saving_reads_the_weights_again_and_closing_clears_the_findings(client, tmp_path):  # type: ignore[no-untyped-def]
    source = EXAMPLES / "valid" / "reduce_mean_global.xml"
    path = copy(source, tmp_path)
    uri, missing = await open_document(client, path)
    assert "IR401" in {d.code for d in missing}
    copy(source.with_suffix(".bin"), tmp_path)  # the .bin arrives; the text is unchanged
    client.text_document_did_save(lsp.DidSaveTextDocumentParams(text_document=ident(uri)))
    await client.wait_for_notification(PUBLISHED)
    assert list(client.diagnostics[uri]) == []
    uri, findings = await open_document(client, tmp_path / "spec.xml", SPEC_A.read_text())
    assert findings
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=ident(uri)))
    await client.wait_for_notification(PUBLISHED)
    assert list(client.diagnostics[uri]) == []


async def test_configuration_and_inline_suppressions_are_honoured(client, tmp_path):  # type: ignore[no-untyped-def]
    (tmp_path / "pyproject.toml").write_text('[tool.irpool]\nignore = ["IR301"]\n')
    models = tmp_path / "models"
    models.mkdir()
    path = copy(SPEC_A, models)
    _, diagnostics = await open_document(client, path)
    assert [d.code for d in diagnostics] == ["IR213"]
    suppressed = path.read_text().replace(
        "\t\t\t<data auto_pad", "\t\t\t<!-- irpool: ignore IR213 -->\n\t\t\t<data auto_pad"
    )
    _, diagnostics = await open_document(client, models / "suppressed.xml", suppressed)
    assert diagnostics == []


async def test_force_exclude_leaves_an_excluded_file_unchecked(client, tmp_path):  # type: ignore[no-untyped-def]
    config = '[tool.irpool]\nforce-exclude = true\nextend-exclude = ["vendor"]\n'
    (tmp_path / "pyproject.toml").write_text(config)
    (tmp_path / "vendor").mkdir()
    _, diagnostics = await open_document(client, copy(SPEC_A, tmp_path / "vendor"))
    assert diagnostics == []
    _, diagnostics = await open_document(client, copy(SPEC_A, tmp_path))
    assert len(diagnostics) == 5


async def test_a_broken_configuration_is_shown_and_the_defaults_apply(client, tmp_path):  # type: ignore[no-untyped-def]
    (tmp_path / "pyproject.toml").write_text('[tool.irpool]\nignore = ["IR999"]\n')
    path = copy(SPEC_A, tmp_path)
    _, diagnostics = await open_document(client, path)
    assert len(diagnostics) == 5
    await asyncio.sleep(0.1)
    assert any("IR999" in m.message for m in client.messages)


async def test_quick_fixes_are_the_fix_edits_and_fix_all_writes_what_fix_writes(client, tmp_path):  # type: ignore[no-untyped-def]
    path = copy(SPEC_A, tmp_path)
    uri, diagnostics = await open_document(client, path)
    dim = diagnostics[1]
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            text_document=ident(uri),
            range=dim.range,
            context=lsp.CodeActionContext(diagnostics=[dim]),
        )
    )
    assert actions is not None
    quick = [a for a in actions if a.kind == lsp.CodeActionKind.QuickFix]
    assert len(quick) == 1
    assert quick[0].title == "Fix IR301: <dim>32</dim> -> <dim>16</dim>"
    assert quick[0].edit is not None and quick[0].edit.changes is not None
    assert list(quick[0].edit.changes[uri]) == [lsp.TextEdit(range=dim.range, new_text="16")]

    only_all = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            text_document=ident(uri),
            range=lsp.Range(start=position(0, 0), end=position(0, 0)),
            context=lsp.CodeActionContext(diagnostics=[], only=[lsp.CodeActionKind.SourceFixAll]),
        )
    )
    assert only_all is not None and [a.kind for a in only_all] == ["source.fixAll.irpool"]
    assert only_all[0].title == "irpool: fix all (5 findings)"
    edit = only_all[0].edit
    assert edit is not None and edit.changes is not None
    fixed_in_editor = apply_edits(path.read_text(), edit.changes[uri])
    result = CliRunner().invoke(cli, ["validate", "--isolated", "--fix", str(path)])
    assert result.exit_code == 0, result.output
    assert fixed_in_editor == path.read_text()


async def test_hover_on_a_dim_a_port_a_layer_and_an_attribute(client, tmp_path):  # type: ignore[no-untyped-def]
    path = copy(SPEC_A, tmp_path)
    uri, _ = await open_document(client, path)

    async def hover_text(line: int, character: int) -> str:
        found = await client.text_document_hover_async(
            lsp.HoverParams(text_document=ident(uri), position=position(line - 1, character - 1))
        )
        assert found is not None and isinstance(found.contents, lsp.MarkupContent)
        return found.contents.value

    dim = await hover_text(29, 11)  # the "32" of output port 1's dim 2
    assert "dim 2: declared `32`, inferred `16`" in dim
    assert "declared `[1,3,32,32]`, inferred `[1,3,16,16]` (f32)" in dim
    port = await hover_text(36, 8)  # the Result's input port: what flows into it
    assert "**input port 0** of layer 2" in port and "inferred `[1,3,16,16]`" in port
    layer = await hover_text(15, 20)
    assert layer.startswith('**AvgPool-1** layer 1 "pool" (version `opset1`)')
    assert "outputs: inferred `[1,3,16,16]`; declared `[1,3,32,32]` **(differs)**" in layer
    # The effective pads of same_upper, with the declared ones beside them, as explain shows.
    assert "| 0 | 32 | 2 | 2 | 1 | 0,0 (declared 0,1) | 16 |" in layer
    attribute = await hover_text(16, 85)  # pads_end
    assert attribute.startswith("`pads_end` of AvgPool-1: list of unsigned integers")
    assert "replaced by the runtime when auto_pad is" in attribute
    assert "[IR213](" in attribute and "/rules/IR213.md) `overwritten-pads` (info)" in attribute
    lines = path.read_text().split("\n")
    edge_line = next(i for i, line in enumerate(lines) if 'from-layer="1"' in line)
    edge = await hover_text(edge_line + 1, lines[edge_line].index("<edge") + 3)
    assert edge == 'layer 1 "pool" port 1 -> layer 2 port 0: `[1,3,16,16] f32`'
    unknown = await client.text_document_hover_async(
        lsp.HoverParams(text_document=ident(uri), position=position(0, 3))  # the XML declaration
    )
    assert unknown is None


async def test_definition_goes_from_an_edge_to_its_layer_and_port(client, tmp_path):  # type: ignore[no-untyped-def]
    path = copy(SPEC_A, tmp_path)
    uri, _ = await open_document(client, path)
    lines = path.read_text().split("\n")
    edge_line = next(i for i, line in enumerate(lines) if 'from-layer="1"' in line)
    edge = lines[edge_line]

    async def target(attribute: str) -> lsp.Location:
        column = edge.index(attribute) + 2
        found = await client.text_document_definition_async(
            lsp.DefinitionParams(text_document=ident(uri), position=position(edge_line, column))
        )
        assert isinstance(found, lsp.Location) and found.uri == uri
        return found

    layer = await target("from-layer")
    assert lines[layer.range.start.line].strip().startswith('<layer id="1" name="pool"')
    output = await target("from-port")
    assert lines[output.range.start.line].strip() == '<port id="1" precision="FP32" names="output">'
    assert output.range.start.line == 25
    to_port = await target("to-port")
    assert to_port.range.start.line == 35  # the Result's <input> port 0
    to_layer = await target("to-layer")
    assert 'name="output"' in lines[to_layer.range.start.line]


async def test_document_symbols_outline_the_layers_and_their_ports(client, tmp_path):  # type: ignore[no-untyped-def]
    path = copy(SPEC_A, tmp_path)
    uri, _ = await open_document(client, path)
    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(text_document=ident(uri))
    )
    assert symbols is not None
    assert [(s.name, s.detail) for s in symbols] == [
        ("input", "Parameter opset1 id 0"),
        ("pool", "AvgPool opset1 id 1"),
        ("output", "Result opset1 id 2"),
    ]
    pool = symbols[1]
    assert isinstance(pool, lsp.DocumentSymbol) and pool.children is not None
    assert [(c.name, c.detail) for c in pool.children] == [
        ("input port 0", "[1,3,32,32] FP32"),
        ("output port 1", "[1,3,32,32] FP32"),
    ]
    assert (pool.range.start.line, pool.range.end.line) == (14, 32)


async def test_malformed_text_while_typing_is_an_xml_finding_and_queries_answer_nothing(
    client, tmp_path
):  # type: ignore[no-untyped-def]
    path = tmp_path / "typing.xml"
    text = SPEC_A.read_text()
    path.write_text(text)
    uri, diagnostics = await open_document(client, path, text[: text.index("</layers>")])
    assert [d.code for d in diagnostics] == validate_json_codes(text[: text.index("</layers>")])
    found = await client.text_document_hover_async(
        lsp.HoverParams(text_document=ident(uri), position=position(15, 5))
    )
    assert found is None


def validate_json_codes(text: str) -> list[str]:
    result = CliRunner().invoke(
        cli, ["validate", "--isolated", "--format", "json", "-"], input=text.encode()
    )
    return [str(record["code"]) for record in json.loads(result.stdout)]
