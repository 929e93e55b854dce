"""`irpool server`: the Language Server Protocol over stdin/stdout, with pygls.

Each open document is validated as `irpool validate` validates its file (irpool.lsp.analysis)
when it is opened or saved, and after every change once the typing pauses (DEBOUNCE_SECONDS),
from the editor's unsaved text. Diagnostics carry the rule code, its severity, `irpool` as
their source and the rule's page; quick fixes are `--fix`'s edits; hover, definition and the
outline answer from the same model.
"""

from __future__ import annotations

import asyncio
import bisect
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.workspace.position_codec import PositionCodec

from irpool import __version__
from irpool.diagnostics import Diagnostic, Span
from irpool.fix import Fix
from irpool.lsp.analysis import Analysis, Symbol, analyse
from irpool.report.sarif import help_uri
from irpool.report.text import layer_suffix
from irpool.rules import Severity

# Long enough that a burst of keystrokes is validated once, short enough to feel immediate.
DEBOUNCE_SECONDS = 0.3
FIX_ALL = f"{lsp.CodeActionKind.SourceFixAll.value}.irpool"
SEVERITIES = {
    Severity.ERROR: lsp.DiagnosticSeverity.Error,
    Severity.WARNING: lsp.DiagnosticSeverity.Warning,
    Severity.INFO: lsp.DiagnosticSeverity.Information,
}


class Positions:
    """Converts irpool's spans (1-based lines, columns in characters) and character offsets to
    LSP positions (0-based, columns in the code units the client and server agreed on) and
    back. Lines end at "\\n", as irpool counts them."""

    def __init__(self, text: str, codec: PositionCodec) -> None:
        self.lines = text.split("\n")
        self.codec = codec
        self.starts = [0]
        for line in self.lines[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)

    def position(self, line: int, column: int) -> lsp.Position:
        index = min(max(line, 1), len(self.lines)) - 1
        units = self.codec.client_num_units(self.lines[index][: max(column, 1) - 1])
        return lsp.Position(line=index, character=units)

    def range(self, span: Span) -> lsp.Range:
        start = self.position(span.line, span.column)
        return lsp.Range(start=start, end=self.position(span.end_line, span.end_column))

    def offset_range(self, start: int, end: int) -> lsp.Range:
        return lsp.Range(start=self._at(start), end=self._at(end))

    def _at(self, offset: int) -> lsp.Position:
        index = bisect.bisect_right(self.starts, offset) - 1
        return self.position(index + 1, offset - self.starts[index] + 1)

    def offset(self, position: lsp.Position) -> int:
        """The character offset of a client position (past the end: the end)."""
        if position.line >= len(self.lines):
            return self.starts[-1] + len(self.lines[-1])
        server = self.codec.position_from_client_units(self.lines, position)
        return self.starts[position.line] + server.character


class IrpoolServer(LanguageServer):
    """Keeps the last analysis of each document and the pending (debounced) validations."""

    def __init__(self) -> None:
        super().__init__("irpool", __version__)
        self.analyses: dict[str, Analysis] = {}
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.problems_shown: set[str] = set()

    def analysis(self, uri: str) -> Analysis:
        """The analysis of the document's current text (made now if the text changed)."""
        document = self.workspace.get_text_document(uri)
        known = self.analyses.get(uri)
        if known is None or known.text != document.source:
            known = analyse(Path(document.path), document.source)
            self.analyses[uri] = known
        return known

    def positions(self, analysis: Analysis) -> Positions:
        return Positions(analysis.text, self.workspace.position_codec)

    def publish(self, uri: str) -> None:
        self.pending.pop(uri, None)
        analysis = self.analysis(uri)
        problem = analysis.config_problem
        if problem is not None and problem not in self.problems_shown:
            self.problems_shown.add(problem)
            message = f"irpool: {problem}; using the default settings"
            self.window_show_message(
                lsp.ShowMessageParams(type=lsp.MessageType.Error, message=message)
            )
        positions = self.positions(analysis)
        diagnostics = [to_lsp(d, positions) for d in analysis.diagnostics]
        version = self.workspace.get_text_document(uri).version
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )

    def schedule(self, uri: str) -> None:
        """Validate once the changes stop for DEBOUNCE_SECONDS."""
        waiting = self.pending.pop(uri, None)
        if waiting is not None:
            waiting.cancel()
        loop = asyncio.get_running_loop()
        self.pending[uri] = loop.call_later(DEBOUNCE_SECONDS, self.publish, uri)

    def forget(self, uri: str) -> None:
        waiting = self.pending.pop(uri, None)
        if waiting is not None:
            waiting.cancel()
        self.analyses.pop(uri, None)
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )


def to_lsp(diagnostic: Diagnostic, positions: Positions) -> lsp.Diagnostic:
    span = Span(diagnostic.line, diagnostic.column, diagnostic.end_line, diagnostic.end_column)
    url = help_uri(diagnostic.code)
    return lsp.Diagnostic(
        range=positions.range(span),
        message=f"{diagnostic.message}{layer_suffix(diagnostic)}",
        severity=SEVERITIES[diagnostic.severity],
        code=diagnostic.code,
        code_description=None if url is None else lsp.CodeDescription(href=url),
        source="irpool",
    )


def _edit(uri: str, fixes: list[Fix], positions: Positions) -> lsp.WorkspaceEdit:
    edits = [
        lsp.TextEdit(range=positions.offset_range(f.start, f.end), new_text=f.text) for f in fixes
    ]
    return lsp.WorkspaceEdit(changes={uri: edits})


def _wanted(kind: str, only: list[str] | None) -> bool:
    """Whether a code action kind is asked for: `only` lists kinds and their parents."""
    return only is None or any(kind == o or kind.startswith(f"{o}.") for o in only)


def _touches(a: lsp.Range, b: lsp.Range) -> bool:
    start_a, end_a = (a.start.line, a.start.character), (a.end.line, a.end.character)
    start_b, end_b = (b.start.line, b.start.character), (b.end.line, b.end.character)
    return start_a <= end_b and start_b <= end_a


def _symbol(symbol: Symbol, positions: Positions) -> lsp.DocumentSymbol:
    return lsp.DocumentSymbol(
        name=symbol.name,
        detail=symbol.detail,
        kind=lsp.SymbolKind.Class if symbol.is_layer else lsp.SymbolKind.Field,
        range=positions.range(symbol.span),
        selection_range=positions.range(symbol.selection),
        children=[_symbol(child, positions) for child in symbol.children],
    )


server = IrpoolServer()


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: IrpoolServer, params: lsp.DidOpenTextDocumentParams) -> None:
    ls.publish(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: IrpoolServer, params: lsp.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: IrpoolServer, params: lsp.DidSaveTextDocumentParams) -> None:
    """The .bin beside the file may have changed with it: validate again now."""
    ls.analyses.pop(params.text_document.uri, None)
    ls.publish(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: IrpoolServer, params: lsp.DidCloseTextDocumentParams) -> None:
    ls.forget(params.text_document.uri)


@server.feature(
    lsp.TEXT_DOCUMENT_CODE_ACTION,
    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix, FIX_ALL]),
)
def code_action(ls: IrpoolServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    """A quick fix per finding `--fix` settles under the cursor, and "fix all" (what
    `irpool validate --fix` writes) for the whole document."""
    uri = params.text_document.uri
    analysis = ls.analysis(uri)
    positions = ls.positions(analysis)
    only = [str(kind) for kind in params.context.only] if params.context.only else None
    actions = []
    if _wanted(lsp.CodeActionKind.QuickFix.value, only):
        for diagnostic in analysis.diagnostics:
            fix = analysis.fix_of(diagnostic)
            shown = to_lsp(diagnostic, positions)
            if fix is None or not _touches(shown.range, params.range):
                continue
            actions.append(
                lsp.CodeAction(
                    title=f"Fix {diagnostic.code}: {fix.message}",
                    kind=lsp.CodeActionKind.QuickFix,
                    diagnostics=[shown],
                    edit=_edit(uri, [fix], positions),
                    is_preferred=True,
                )
            )
    everything = analysis.fix_all() if _wanted(FIX_ALL, only) else []
    if everything:
        settled = sum(len(fix.resolves) for fix in everything)
        actions.append(
            lsp.CodeAction(
                title=f"irpool: fix all ({settled} finding{'s' if settled != 1 else ''})",
                kind=FIX_ALL,
                edit=_edit(uri, everything, positions),
            )
        )
    return actions


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
def hover(ls: IrpoolServer, params: lsp.HoverParams) -> lsp.Hover | None:
    analysis = ls.analysis(params.text_document.uri)
    positions = ls.positions(analysis)
    found = analysis.hover(positions.offset(params.position))
    if found is None:
        return None
    contents = lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=found.markdown)
    return lsp.Hover(contents=contents, range=positions.range(found.span))


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
def definition(ls: IrpoolServer, params: lsp.DefinitionParams) -> lsp.Location | None:
    uri = params.text_document.uri
    analysis = ls.analysis(uri)
    positions = ls.positions(analysis)
    span = analysis.definition(positions.offset(params.position))
    return None if span is None else lsp.Location(uri=uri, range=positions.range(span))


@server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbol(ls: IrpoolServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
    analysis = ls.analysis(params.text_document.uri)
    positions = ls.positions(analysis)
    return [_symbol(symbol, positions) for symbol in analysis.symbols()]


def serve() -> None:
    server.start_io()
