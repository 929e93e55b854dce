"""Hostile `.xml` files: each gets a clear diagnostic and exit 1 (a BOM is fine), in bounded
time and memory, without a traceback, and without opening any file it references."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import etree

import irpool
from irpool.cli import cli
from irpool.parse import xml_reader
from tests.hardening import ir
from tests.hardening.watch import OpenWatch

SECONDS = 5.0  # per file, far above what any case takes


def body() -> str:
    """A valid model without its XML declaration, to put a hostile prolog in front of."""
    return ir.pool_model().split("\n", 1)[1]


@dataclass(frozen=True)
class Case:
    make: Callable[[Path], bytes]  # the file's bytes; may create files it references
    code: str
    message: str


def external_entity(directory: Path) -> bytes:
    secret = directory / "secret.txt"
    secret.write_text("root:x:0:0")
    doctype = f'<!DOCTYPE net [<!ENTITY x SYSTEM "file://{secret}">]>\n'
    return (
        '<?xml version="1.0"?>\n' + doctype + body().replace('name="pool"', 'name="&x;"')
    ).encode()


def entity_bomb(_: Path) -> bytes:
    levels = "".join(
        f'<!ENTITY e{i} "{f"&e{i - 1};" * 10}">' if i else '<!ENTITY e0 "lol">' for i in range(10)
    )
    return (
        f'<?xml version="1.0"?>\n<!DOCTYPE net [{levels}]>\n<net version="11">&e9;</net>'.encode()
    )


def external_dtd(directory: Path) -> bytes:
    dtd = directory / "evil.dtd"
    dtd.write_text('<!ENTITY x "expanded">')
    return (f'<?xml version="1.0"?>\n<!DOCTYPE net SYSTEM "file://{dtd}">\n' + body()).encode()


def parameter_entity_dtd(directory: Path) -> bytes:
    dtd = directory / "evil.dtd"
    dtd.write_text('<!ENTITY x "expanded">')
    doctype = f'<!DOCTYPE net [<!ENTITY % remote SYSTEM "{dtd}"> %remote;]>\n'
    return ('<?xml version="1.0"?>\n<!-- a comment first -->\n' + doctype + body()).encode()


def deep_nesting(_: Path) -> bytes:
    depth = 100_000
    inner = "<a>" * depth + "</a>" * depth
    return body().replace("<layers>", "<layers>" + inner, 1).encode()


def huge_attribute(_: Path) -> bytes:
    return body().replace('name="pool"', f'name="{"A" * (3 << 20)}"').encode()


def invalid_utf8(_: Path) -> bytes:
    return body().encode().replace(b'name="pool"', b'name="p\xff\xfeol"')


def nul_byte(_: Path) -> bytes:
    return body().encode().replace(b'name="pool"', b'name="p\x00ol"')


def windows_1252(_: Path) -> bytes:
    text = '<?xml version="1.0" encoding="windows-1252"?>\n' + body()
    return text.replace('name="pool"', 'name="p\u00f6ol"').encode("cp1252")


def utf16(_: Path) -> bytes:
    return ('<?xml version="1.0" encoding="UTF-16"?>\n' + body()).encode("utf-16")


def processing_instruction(_: Path) -> bytes:
    text = '<?xml version="1.0"?>\n<?xml-stylesheet href="http://example.com/a.xsl"?>\n'
    return (text + body()).encode()


def binary(_: Path) -> bytes:
    return b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 64


CASES = {
    "external_entity": Case(external_entity, "IR102", "the file has a DOCTYPE"),
    "entity_bomb": Case(entity_bomb, "IR102", "the file has a DOCTYPE"),
    "external_dtd": Case(external_dtd, "IR102", "the file has a DOCTYPE"),
    "parameter_entity_dtd": Case(parameter_entity_dtd, "IR102", "the file has a DOCTYPE"),
    "deep_nesting": Case(deep_nesting, "IR114", "nested more than 256 deep"),
    "huge_attribute": Case(huge_attribute, "IR114", "longer than 1 MiB"),
    "invalid_utf8": Case(invalid_utf8, "IR101", "invalid UTF-8"),
    "nul_byte": Case(nul_byte, "IR101", "NUL byte"),
    "windows_1252": Case(windows_1252, "IR114", 'encoding="windows-1252"'),
    "utf16": Case(utf16, "IR114", "the file is UTF-16"),
    "processing_instruction": Case(processing_instruction, "IR114", "processing instruction"),
    "binary": Case(binary, "IR101", "binary, not XML text"),
}


def validate(path: Path) -> tuple[int, str]:
    """Exit code and output of `irpool validate` on one file, in process."""
    result = CliRunner().invoke(cli, ["validate", "--isolated", "--format", "concise", str(path)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


@pytest.mark.parametrize("name", CASES)
def test_hostile_file_gets_a_clear_diagnostic(tmp_path: Path, name: str) -> None:
    case = CASES[name]
    path = tmp_path / f"{name}.xml"
    path.write_bytes(case.make(tmp_path))
    with OpenWatch(tmp_path) as watch:
        started = time.perf_counter()
        code, output = validate(path)
        elapsed = time.perf_counter() - started
    assert code == 1, output
    assert f"{case.code} error" in output and case.message in output, output
    assert "Traceback" not in output
    assert elapsed < SECONDS
    # Nothing it references (secret.txt, evil.dtd) was opened; only the file itself.
    assert set(watch.opened) <= {path, tmp_path}, watch.opened


def test_bom_is_fine(tmp_path: Path) -> None:
    path = ir.write(tmp_path, b"\xef\xbb\xbf" + ir.pool_model().encode())
    expected = "Checked 1 file: 0 errors, 0 warnings, 0 infos (3 of 3 layers checked).\n"
    assert validate(path) == (0, expected)


def test_latin1_is_read_as_openvino_reads_it(tmp_path: Path) -> None:
    """pugixml decodes latin-1 for exactly "ISO-8859-1" and "latin1", so irpool accepts them."""
    text = '<?xml version="1.0" encoding="ISO-8859-1"?>\n' + body()
    path = ir.write(tmp_path, text.replace('name="pool"', 'name="p\u00f6ol"').encode("latin-1"))
    assert irpool.load(path).layer("p\u00f6ol").type == "AvgPool"


@pytest.mark.parametrize("name", ["external_entity", "external_dtd", "parameter_entity_dtd"])
def test_the_parser_itself_never_opens_what_a_doctype_names(tmp_path: Path, name: str) -> None:
    """The second line of defence, behind the DOCTYPE check: lxml as irpool configures it."""
    data = CASES[name].make(tmp_path)
    with OpenWatch(tmp_path) as watch:
        try:
            text = etree.tostring(etree.fromstring(data, xml_reader.hardened_parser()))
        except etree.XMLSyntaxError as error:  # an entity left undefined, not its content
            text = str(error).encode()
    assert watch.opened == []
    assert b"expanded" not in text and b"root:x" not in text


@pytest.mark.parametrize(
    ("make", "kind"),
    [(os.mkfifo, "a FIFO"), (os.mkdir, "a directory")],
    ids=["fifo", "directory"],
)
def test_xml_that_is_not_a_regular_file(
    tmp_path: Path, make: Callable[[Path], None], kind: str
) -> None:
    path = tmp_path / "model.xml"
    make(path)
    found: list[irpool.Diagnostic] = []

    def load() -> None:
        with pytest.raises(irpool.IRError) as raised:
            irpool.load(path)
        found.extend(raised.value.diagnostics)

    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(SECONDS)  # a plain open of a FIFO would block here forever
    assert not worker.is_alive()
    assert [(d.code, d.message) for d in found] == [
        ("IR100", f"cannot read the file: it is {kind}")
    ]


def test_a_device_is_not_read(tmp_path: Path) -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    with pytest.raises(irpool.IRError) as raised:
        irpool.load("/dev/zero")
    assert "a character device" in raised.value.diagnostics[0].message


def test_file_over_the_size_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(xml_reader, "MAX_FILE_BYTES", 1 << 10)
    path = ir.write(tmp_path, ir.pool_model())
    with pytest.raises(irpool.IRError) as raised:
        irpool.load(path)
    assert [d.code for d in raised.value.diagnostics] == ["IR114"]
    assert "larger than" in raised.value.diagnostics[0].message


def test_huge_numbers_are_errors_not_crashes(tmp_path: Path) -> None:
    """Python refuses int() of more than 4,300 digits; OpenVINO refuses more than 64 bits."""
    digits = "9" * 10_000
    text = (
        ir.pool_model()
        .replace('kernel="1, 1"', f'kernel="{digits},1"')
        .replace("<dim>4</dim>", f"<dim>{digits}</dim>", 1)
        .replace('shape="1,2,4,4"', f'shape="1,2,{digits},4"')
    )
    diagnostics = irpool.load(ir.write(tmp_path, text)).validate()
    codes = {d.code for d in diagnostics}
    assert {"IR204", "IR111"} <= codes
    assert all(len(d.message) < 400 for d in diagnostics)  # long values are cut in messages


def test_all_hostile_files_in_one_real_run(tmp_path: Path) -> None:
    """The installed entry point, in its own process: bounded wall time and peak memory."""
    paths = []
    for name, case in CASES.items():
        directory = tmp_path / name
        directory.mkdir()
        paths.append(directory / "model.xml")
        paths[-1].write_bytes(case.make(directory))
    started = time.perf_counter()
    process = subprocess.run(
        [sys.executable, "-c", REPORTING_PEAK, "validate", "--isolated", "--format", "concise"]
        + [str(path) for path in paths],
        capture_output=True,
        timeout=60,
    )
    assert process.returncode == 1, process.stderr
    assert time.perf_counter() - started < 30
    assert b"Traceback" not in process.stdout + process.stderr
    assert process.stdout.count(b" error ") == len(CASES)
    peak = int(process.stderr.rsplit(b"peak=", 1)[1])
    assert peak < 500 << 20  # the largest file is 3 MiB


# irpool's entry point, printing the process's own peak memory (bytes) when it exits.
REPORTING_PEAK = """
import atexit, resource, sys
from irpool.cli import main
scale = 1 if sys.platform == "darwin" else 1024
atexit.register(
    lambda: print(f"peak={resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale}",
                  file=sys.stderr)
)
sys.argv[0] = "irpool"
main()
"""
