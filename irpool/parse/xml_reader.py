"""Stage 1: bytes -> a hardened lxml tree with a source map, or diagnostics saying why not.

The file is data from a stranger, so reading is bounded before lxml sees a byte: only a
regular file of at most MAX_FILE_BYTES is read, it must be UTF-8 text, it must not have a
DOCTYPE (so no entity and no DTD is ever declared, let alone expanded or fetched), and no tag
or text may exceed MAX_RUN_BYTES. lxml then parses with entity resolution, DTD loading and
network access off (a second line of defence), and with libxml2's own limits, of which the
nesting depth (xml_errors.MAX_DEPTH) is the one a file can reach. docs/hardening.md lists
the limits.
"""

from __future__ import annotations

import codecs
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, NoReturn

from lxml import etree

from irpool.diagnostics import Collector, IRError, Span
from irpool.parse.source_map import SourceMap, decode_source
from irpool.parse.values import ASCII_BLANKS, read_unsigned, show
from irpool.parse.xml_errors import report_processing_instructions, report_syntax
from irpool.rules import (
    FILE_UNREADABLE,
    NON_CANONICAL_SPELLING,
    ROOT_NOT_NET,
    UNSAFE_XML,
    UNSUPPORTED_IR_VERSION,
    UNSUPPORTED_XML,
    XML_SYNTAX,
    Code,
)

SUPPORTED_IR_VERSIONS = (10, 11)

# 2.7x the 100,000-layer benchmark model; validating takes about 18 bytes of memory per byte
# of XML, so at most about 2.3 GiB.
MAX_FILE_BYTES = 128 << 20
MAX_RUN_BYTES = 1 << 20  # the longest tag (with its attributes) or text between two tags
# Files at least this large are also read from their text on another thread while lxml
# parses them (DocumentParse.text, graph/source_text.py).
READ_SOURCE_BESIDE_BYTES = 256 << 10


def hardened_parser(encoding: str = "utf-8") -> etree.XMLParser:
    """No entity expansion, no DTD, no network, libxml2's limits on, and the encoding the
    reader checked (libxml2 never picks one from the bytes on its own)."""
    return etree.XMLParser(
        encoding=encoding,
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_blank_text=True,  # indentation is not data; dropping it makes the tree smaller
        remove_comments=False,
        # Not collect_ids=False: with it, lxml 6.1 opens a DOCTYPE's external DTD after all
        # (tests/hardening/test_hostile_xml.py shows it with inotify).
    )


@dataclass(frozen=True, slots=True)
class Document:
    path: Path
    display_path: str
    root: etree._Element
    source: SourceMap
    ir_version: int


def start_document(path: Path, sink: Collector, data: bytes | None = None) -> DocumentParse:
    """An IR `.xml` checked and ready to parse (`document()`); raises IRError (with
    diagnostics) when it cannot be read as IR, here or when parsed.

    `data` is the file's content when the caller already read it (with `read_bounded` or
    `read_stream`), so the path is never opened twice. Findings that do not stop reading (a
    `<Net>` root) go to `sink`. In two steps, so that another thread can read the text while
    lxml parses (see DocumentParse).
    """
    return DocumentParse(read_bounded(path, sink) if data is None else data, path, sink)


_FILE_KINDS = {
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def read_bounded(path: Path, sink: Collector) -> bytes:
    """The bytes of a regular file of at most MAX_FILE_BYTES.

    Opened without blocking and checked on the open descriptor: a plain open of a FIFO
    blocks forever, a device never ends, and checking the path first would race.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        _stop(
            sink, FILE_UNREADABLE, f"cannot read the file: {error.strerror or error}", "unreadable"
        )
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = _FILE_KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
            _stop(sink, FILE_UNREADABLE, f"cannot read the file: it is {kind}", "unreadable")
        if info.st_size > MAX_FILE_BYTES:
            _too_large(sink)
    except IRError:
        os.close(fd)
        raise
    with open(fd, "rb") as handle:
        # Sized by the file, not the limit (read(n) reserves n bytes); one byte more shows
        # a file that grew meanwhile.
        data = handle.read(info.st_size + 1)
    if len(data) > info.st_size:
        _stop(
            sink, FILE_UNREADABLE, "cannot read the file: it grew while it was read", "unreadable"
        )
    return data


def read_stream(stream: BinaryIO, sink: Collector) -> bytes:
    """At most MAX_FILE_BYTES from a stream (stdin), which has no size to check first."""
    data = stream.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        _too_large(sink)
    return data


def _too_large(sink: Collector) -> NoReturn:
    _stop(
        sink,
        UNSUPPORTED_XML,
        f"the file is larger than {MAX_FILE_BYTES >> 20} MiB, the most irpool reads "
        "(docs/hardening.md)",
        "too large",
    )


def _stop(
    sink: Collector, code: Code, message: str, reason: str, span: Span | None = None
) -> NoReturn:
    sink.add(code, message, span or Span.at_line(1))
    raise IRError(f"{sink.path}: {reason}", sink.diagnostics)


class DocumentParse:
    """The parse of an IR file's bytes: checked at once (IRError for what must never reach
    the parser), parsed by lxml when `document()` is asked for (IRError for what is not IR).
    libxml2 parses without the GIL, so another thread can meanwhile read the source
    `text()`: worth it for a `large` file (on a small one a thread costs what it saves)."""

    def __init__(self, data: bytes, path: Path, sink: Collector) -> None:
        self._data = data
        self._path = path
        self._sink = sink
        self._codec = _check_bytes(data, sink)
        self.large = len(data) >= READ_SOURCE_BESIDE_BYTES

    def text(self) -> str:
        """The decoded source."""
        return decode_source(self._data, self._codec)

    def document(self) -> Document:
        parser = hardened_parser(self._codec)
        data, sink = self._data, self._sink
        try:
            root = etree.fromstring(data, parser)
        except etree.XMLSyntaxError as error:
            report_syntax(data, error, list(parser.error_log), sink)
            raise IRError(f"{sink.path}: malformed XML", sink.diagnostics) from None
        source = SourceMap(data, root, self._codec)
        if data.find(b"<?", _declaration_end(data)) >= 0:  # a cheap test before walking the tree
            report_processing_instructions(root, source, sink)

        tag = etree.QName(root).localname if isinstance(root.tag, str) else ""
        if tag.lower() != "net":
            sink.add(ROOT_NOT_NET, f"the root element is <{tag}>, not <net>", source.element(root))
            raise IRError(f"{sink.path}: not an OpenVINO IR file", sink.diagnostics)
        if tag != "net":
            sink.add(
                NON_CANONICAL_SPELLING,
                f"the root element is spelled <{tag}>; write <net>",
                source.element(root),
            )

        version_text = root.get("version")
        version = read_unsigned(version_text) if version_text is not None else None
        if version not in SUPPORTED_IR_VERSIONS:
            span = (
                source.element(root) if version_text is None else source.attribute(root, "version")
            )
            sink.add(UNSUPPORTED_IR_VERSION, _version_message(version_text), span)
            raise IRError(f"{sink.path}: unsupported IR version", sink.diagnostics)
        assert version is not None
        return Document(self._path, sink.path, root, source, version)


def _version_message(text: str | None) -> str:
    """Why OpenVINO refuses a `<net version>`, naming a trailing blank (it reads the number
    with strtoull and refuses what follows it; a leading blank is skipped) or an opset name."""
    if text is None:
        return "IR version is missing; OpenVINO reads only 10 and 11"
    number = text.rstrip(ASCII_BLANKS)
    problems = []
    if number != text:
        blanks = text[len(number) :]
        problems.append(f"it ends with {blanks!r}, which OpenVINO refuses as not an integer")
    if number.lower().startswith("opset"):
        problems.append(f"an IR version is a bare number, not an opset name ({number!r})")
    if not problems:
        return f"IR version is {show(text)}; OpenVINO reads only 10 and 11"
    return f"IR version is {show(text)}: {'; '.join(problems)}; write 10 or 11"


# Encodings that would hide markup from the byte-level checks below: UTF-16 and UTF-32
# announce themselves by a byte order mark or by the NULs around "<", EBCDIC by "<?xm".
_WIDE_ENCODINGS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
    (b"<\0\0\0", "UTF-32"),
    (b"\0\0\0<", "UTF-32"),
    (b"<\0", "UTF-16"),
    (b"\0<", "UTF-16"),
    (b"\x4c\x6f\xa7\x94", "EBCDIC"),
)
_DECLARED_ENCODING = re.compile(rb"<\?xml\s[^>]*?\bencoding\s*=\s*([\"'])([^\"'>]*)\1")
# OpenVINO's reader (pugixml) decodes latin-1 when the declaration, at the very start of a
# file without a BOM, says exactly one of these names (any case); anything else as UTF-8.
_OPENVINO_LATIN1 = ("iso-8859-1", "latin1")
# The prolog may hold only the declaration, comments, processing instructions and blanks
# before a DOCTYPE. Atomic groups: no backtracking, so the scan is linear however it ends.
_PROLOG_DOCTYPE = re.compile(rb"(?>\s|<\?.*?\?>|<!--.*?-->)*+<!DOCTYPE", re.S)
_LONG_RUN = re.compile(rb"<[^<]{%d}" % MAX_RUN_BYTES)


def _may_hold_long_run(data: bytes) -> bool:
    """False only when `_LONG_RUN` cannot match: any MAX_RUN_BYTES bytes in a row cover an
    aligned block of half that size, and a "<" in each block (memchr speed) breaks every run.
    Spares the expression's 5 ms on a 4.7 MB file."""
    block = MAX_RUN_BYTES // 2
    starts = range(0, len(data) - block + 1, block)
    return any(data.find(b"<", at, at + block) < 0 for at in starts)


def _check_bytes(data: bytes, sink: Collector) -> str:
    """Refuse, before any parsing, what must never reach the XML parser; returns the codec
    the file is read with (utf-8, or latin-1 where OpenVINO reads latin-1 too)."""
    bom = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    for mark, name in _WIDE_ENCODINGS:
        if data.startswith(mark, bom):
            _stop(sink, UNSUPPORTED_XML, f"the file is {name}; IR is UTF-8", "not UTF-8")
    codec = _declared_codec(data, bom, sink)
    nul = data.find(b"\0")
    if nul >= 0:
        _stop(
            sink,
            XML_SYNTAX,
            "the file contains a NUL byte: it is binary, not XML text",
            "not XML",
            _position(data, nul, nul + 1, codec),
        )
    doctype = _PROLOG_DOCTYPE.match(data, bom)
    if doctype is not None:
        start = doctype.end() - len(b"<!DOCTYPE")
        _stop(
            sink,
            UNSAFE_XML,
            "the file has a DOCTYPE; IR never needs one, and irpool does not read DTDs or "
            "expand entities",
            "unsafe XML",
            _position(data, start, doctype.end(), codec),
        )
    first_tag = data.find(b"<")
    long_run = _LONG_RUN.search(data) if _may_hold_long_run(data) else None
    if first_tag > MAX_RUN_BYTES or (first_tag < 0 and len(data) > MAX_RUN_BYTES):
        start = 0
    elif long_run is not None:
        start = long_run.start()
    else:
        return codec
    _stop(
        sink,
        UNSUPPORTED_XML,
        f"a tag or text longer than {MAX_RUN_BYTES >> 20} MiB starts here; irpool reads "
        "values of at most that size (docs/hardening.md)",
        "too large",
        _position(data, start, start + 1, codec),
    )


def _declared_codec(data: bytes, bom: int, sink: Collector) -> str:
    """utf-8, or iso8859-1 when both OpenVINO and irpool read the file as latin-1; any
    other declared encoding is refused, since the two readers would see different text."""
    declared = _DECLARED_ENCODING.match(data, bom)
    if declared is None:
        return "utf-8"
    name = declared.group(2).decode("ascii", "replace")
    try:
        codec = codecs.lookup(name).name
    except LookupError:
        codec = ""
    if codec in ("utf-8", "ascii"):
        return "utf-8"
    if not bom and name.lower() in _OPENVINO_LATIN1:
        return "iso8859-1"
    _stop(
        sink,
        UNSUPPORTED_XML,
        f"the file declares encoding={show(name)}; irpool reads UTF-8 (and latin-1 declared "
        'as "ISO-8859-1", which OpenVINO reads the same way), since other encodings are '
        "decoded differently by OpenVINO and by other XML readers",
        "not UTF-8",
        _position(data, declared.start(2), declared.end(2), "utf-8"),
    )


def _declaration_end(data: bytes) -> int:
    """The offset just after the XML declaration, or 0 when there is none."""
    bom = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    return data.find(b"?>", bom) + 2 if data.startswith(b"<?xml", bom) else 0


def _position(data: bytes, start: int, end: int, codec: str) -> Span:
    """The span of a byte range, in the characters the source map counts (BOM excluded)."""
    line_start = data.rfind(b"\n", 0, start) + 1
    line = data.count(b"\n", 0, start) + 1
    skip = len(codecs.BOM_UTF8) if line == 1 and data.startswith(codecs.BOM_UTF8) else 0
    column = len(data[line_start + skip : start].decode(codec, "replace")) + 1
    width = len(data[start:end].decode(codec, "replace"))
    return Span(line, column, line, column + max(width, 1))
