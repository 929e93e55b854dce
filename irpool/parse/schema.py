"""The IR skeleton check: every file is validated against schemas/ir.xsd."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

from lxml import etree

from irpool.diagnostics import Collector, Span
from irpool.parse.xml_reader import Document, hardened_parser


def schema_path(name: str) -> Path:
    """A file of schemas/: inside the installed wheel, or beside the package in a checkout."""
    packaged = resources.files("irpool").joinpath("schemas", name)
    if packaged.is_file():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[2] / "schemas" / name


# Schemas no thread is validating with. Validating writes the schema's error_log, so two
# threads sharing one object lose each other's findings; each validation takes an idle one
# (list.pop and append are atomic) and the pool grows to the number of threads at once.
_idle_schemas: list[etree.XMLSchema] = []


@contextmanager
def _ir_schema() -> Iterator[etree.XMLSchema]:
    try:
        schema = _idle_schemas.pop()
    except IndexError:
        schema = etree.XMLSchema(etree.parse(str(schema_path("ir.xsd")), hardened_parser()))
    try:
        yield schema
    finally:
        _idle_schemas.append(schema)


_ELEMENT_PREFIX = re.compile(r"^Element '([^']+)'(?:, attribute '([^']+)')?: ")


class StructureCheck:
    """The schema check of a document. libxml2 validates without holding the GIL, so `run`
    may go on a worker thread while the main thread reads the tree: the schema declares no
    IDs or defaults, so validating only reads the tree too (see `runs_beside`)."""

    def __init__(self, doc: Document) -> None:
        self._doc = doc
        self._errors: list[etree._LogEntry] = []
        self._error: BaseException | None = None

    @property
    def runs_beside(self) -> bool:
        """Whether `run` only reads the tree. The runtime accepts <Net> (the reader reports
        the spelling itself) and the schema must see <net>: renaming writes to the tree."""
        return bool(self._doc.root.tag == "net")

    def run(self) -> None:
        """Validate; never raises (an error is raised again by `report`)."""
        root = self._doc.root
        spelled = root.tag
        try:
            if spelled != "net":
                root.tag = "net"
            with _ir_schema() as schema:
                if not schema.validate(root.getroottree()):
                    self._errors = list(schema.error_log)
        except BaseException as error:  # handed to the main thread by report()
            self._error = error
        finally:
            if spelled != "net":
                root.tag = spelled

    def report(self, sink: Collector) -> None:
        """Report what `run` found."""
        if self._error is not None:
            raise self._error
        doc = self._doc
        tree = doc.root.getroottree()
        for entry in self._errors:
            found = tree.xpath(entry.path) if entry.path else []
            element = found[0] if found and isinstance(found[0], etree._Element) else None
            message = _ELEMENT_PREFIX.sub(_describe_prefix, entry.message.strip())
            layer = _layer_of(element)
            if element is None:
                span = Span.at_line(entry.line)
            else:
                attribute = _ELEMENT_PREFIX.match(entry.message)
                name = attribute.group(2) if attribute else None
                span = doc.source.attribute(element, name) if name else doc.source.element(element)
            sink.add("IR105", message, span, layer)


def _describe_prefix(match: re.Match[str]) -> str:
    element, attribute = match.groups()
    return f"<{element}> attribute {attribute}: " if attribute else f"<{element}>: "


def _layer_of(element: etree._Element | None) -> tuple[str | None, str | None]:
    while element is not None:
        if element.tag == "layer":
            return element.get("id"), element.get("name")
        element = element.getparent()
    return None, None
