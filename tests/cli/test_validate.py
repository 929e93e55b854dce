"""`irpool validate` through click's CliRunner: output formats, exit codes, bad invocations."""

from __future__ import annotations

import errno
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from irpool.cli import EXIT_INTERNAL, cli
from irpool.cli.settings import wants_colour
from irpool.report.text import one_line
from irpool.rules import RULES

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SPEC_A = EXAMPLES / "spec" / "avgpool1_a_same_upper_k2s2.xml"


def test_clean_directory_exits_zero(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["validate", str(EXAMPLES / "valid")])
    assert result.exit_code == 0, result.output
    count = len(list((EXAMPLES / "valid").glob("*.xml")))
    totals = f"Checked {count} files: 0 errors, 0 warnings, 0 infos"
    # Every layer of these models is one irpool checks: the summary says all were.
    assert re.search(rf"{totals} \((\d+) of \1 layers checked\)\.$", result.output.strip())


def test_text_format_names_path_line_column_code_and_layer(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # reports show paths relative to the working directory
    result = runner.invoke(cli, ["validate", str(SPEC_A)])
    assert result.exit_code == 1
    assert (
        "examples/spec/avgpool1_a_same_upper_k2s2.xml:29:11: IR301 error output port 1 dim 2: "
        'declared 32, inferred 16 (shape [1,3,16,16]) [layer 1 "pool"]'
    ) in result.output.splitlines()


def test_directory_is_searched_recursively_and_every_file_reported(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["validate", str(EXAMPLES)])
    assert result.exit_code == 1
    assert f"Checked {len(list(EXAMPLES.glob('*/*.xml')))} files:" in result.output
    assert "malformed_xml.xml" in result.output and "avgpool1_b_same_upper" in result.output


def test_json_is_a_bare_array_matching_the_published_schema(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["validate", "--format", "json", str(EXAMPLES / "spec")])
    assert result.exit_code == 1
    records = json.loads(result.stdout)
    schema = json.loads((ROOT / "schemas" / "diagnostics.schema.json").read_text())
    jsonschema.validate(records, schema)
    assert {r["code"] for r in records} == {"IR212", "IR213", "IR301"}
    first = records[0]
    assert first["severity"] in ("error", "warning", "info") and first["line"] >= 1
    assert "Checked 6 files" in result.stderr and "Checked" not in result.stdout


def test_rules_lists_every_code(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["rules"])
    assert result.exit_code == 0
    listed = [line.split()[0] for line in result.output.splitlines()]
    assert listed == list(RULES)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["validate", "no/such/file.xml"], "does not exist"),
        (["validate", "--format", "yaml", str(SPEC_A)], "'yaml' is not one of"),
        (["validate", "--weights", str(SPEC_A), str(SPEC_A), str(SPEC_A)], "exactly one"),
        (["validate", "--bogus", str(SPEC_A)], "No such option"),
    ],
)
def test_usage_errors_exit_two(runner: CliRunner, args: list[str], message: str) -> None:
    result = runner.invoke(cli, args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_empty_directory_is_a_usage_error(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(cli, ["validate", str(tmp_path)])
    assert result.exit_code == 2
    assert "no .xml files" in result.output


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (b"\x00\x01\x02\xff binary", "IR101"),
        (b"", "IR101"),
        (b"<model version='11'/>", "IR103"),
        (b"<net version='12'><layers/></net>", "IR104"),
        (b"<net version='11.0'><layers/></net>", "IR104"),
        (b'<!DOCTYPE net [<!ENTITY x "y">]><net version="11">&x;</net>', "IR102"),
    ],
)
def test_unreadable_files_are_diagnostics_not_tracebacks(
    runner: CliRunner, tmp_path: Path, content: bytes, code: str
) -> None:
    path = tmp_path / "model.xml"
    path.write_bytes(content)
    result = runner.invoke(cli, ["validate", str(path)])
    assert result.exit_code == 1
    assert f" {code} error " in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_explicit_weights_file_is_used(runner: CliRunner, tmp_path: Path) -> None:
    model = EXAMPLES / "valid" / "adaptive_avg_pool8_4d.xml"
    copy = tmp_path / "model.xml"
    copy.write_bytes(model.read_bytes())
    missing = runner.invoke(cli, ["validate", str(copy)])
    assert missing.exit_code == 1 and "IR401" in missing.output
    given = runner.invoke(cli, ["validate", "--weights", str(model.with_suffix(".bin")), str(copy)])
    assert given.exit_code == 0, given.output


CLEAN = EXAMPLES / "valid" / "avgpool1_4d.xml"
WITH_WEIGHTS = EXAMPLES / "valid" / "adaptive_avg_pool8_4d.xml"


@pytest.mark.parametrize("output_format", ["text", "concise", "json", "github", "sarif"])
def test_a_fifo_or_a_device_is_reported_never_read(tmp_path: Path, output_format: str) -> None:
    """A FIFO blocks a plain open forever and /dev/zero never ends: each is opened once,
    without blocking, and refused as not a regular file, in every format. A real process,
    since a hang is what this guards against (the timeout only stops a regression)."""
    fifo, zero = tmp_path / "fifo.xml", tmp_path / "zero.xml"
    os.mkfifo(fifo)
    zero.symlink_to("/dev/zero")
    args = ["validate", "--output-format", output_format, "fifo.xml", "zero.xml"]
    result = subprocess.run(
        [sys.executable, "-m", "irpool", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert "it is a FIFO" in result.stdout and "it is a character device" in result.stdout
    assert "internal error" not in result.stderr


def test_an_unreadable_directory_is_an_error_not_skipped(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """root reads a mode-000 directory, so the refusal is simulated where the walk lists it."""
    (tmp_path / "open").mkdir()
    (tmp_path / "open" / "a.xml").write_bytes(CLEAN.read_bytes())
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "broken.xml").write_bytes(b"<net")
    real_scandir = os.scandir

    def scandir(path: Any) -> Any:
        if Path(path).name == "locked":
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(cli, ["validate", "--output-format", "concise", "."])
    assert result.exit_code == 1, result.output
    assert (
        "locked:1:1: IR100 error cannot read the directory: Permission denied; "
        "the files in it are not checked"
    ) in result.stdout
    assert "Checked 1 file: 1 error" in result.stdout
    ignored = runner.invoke(cli, ["validate", "--ignore", "IR100", "."])
    assert ignored.exit_code == 0, ignored.output


@pytest.mark.parametrize("output_format", ["text", "concise", "github"])
def test_a_layer_name_with_a_newline_stays_on_one_line(
    runner: CliRunner, tmp_path: Path, output_format: str
) -> None:
    model = tmp_path / "model.xml"
    model.write_text(SPEC_A.read_text().replace('name="pool"', 'name="po&#10;ol&#13;&#x85;x"'))
    result = runner.invoke(cli, ["validate", "--output-format", output_format, str(model)])
    assert result.exit_code == 1
    findings = [line for line in result.stdout.split("\n") if " IR301 " in line]
    assert len(findings) == 4
    assert all(line.startswith(("::error ", str(model))) for line in findings)
    expected = r"po\nol\r\x85x" if output_format != "github" else "po%0Aol%0D\x85x"
    assert all(expected in line for line in findings if "layer 1" in line)


@pytest.mark.slow
@given(st.text())
def test_one_line_never_breaks_a_line_and_keeps_printable_text(name: str) -> None:
    shown = one_line(name)
    assert len(shown.splitlines()) <= 1 and "\x1b" not in shown
    if name.isprintable():
        assert shown == name


def test_stdin_is_read_as_the_named_file_with_its_weights(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "m.bin").write_bytes(WITH_WEIGHTS.with_suffix(".bin").read_bytes())
    monkeypatch.chdir(tmp_path)
    named = ["validate", "-", "--stdin-filename", "models/m.xml"]
    clean = runner.invoke(cli, named, input=WITH_WEIGHTS.read_bytes())
    assert clean.exit_code == 0, clean.output
    assert "Checked 1 file: 0 errors" in clean.stdout
    broken = runner.invoke(cli, [*named, "--output-format", "concise"], input=SPEC_A.read_bytes())
    assert broken.exit_code == 1
    assert broken.stdout.startswith("models/m.xml:16:")
    unnamed = runner.invoke(cli, ["validate", "--format", "concise", "-"], input=b"<net")
    assert unnamed.exit_code == 1 and unnamed.stdout.startswith("-:1:")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-", str(SPEC_A)], "cannot be mixed"),
        (["--fix", "-"], "--fix cannot rewrite stdin"),
        (["--stdin-filename", "a.xml", str(SPEC_A)], "give `-`"),
        (["--fix", "--diff", str(SPEC_A)], "pick one"),
    ],
)
def test_stdin_misuse_is_a_usage_error(runner: CliRunner, args: list[str], message: str) -> None:
    result = runner.invoke(cli, ["validate", *args], input=b"")
    assert result.exit_code == 2 and message in result.output


def test_no_path_means_the_working_directory(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "model.xml").write_bytes(SPEC_A.read_bytes())
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(cli, ["validate", "--output-format", "concise"])
    assert result.exit_code == 1
    assert result.stdout.startswith("sub/model.xml:") and "Checked 1 file" in result.stdout


@pytest.mark.parametrize("spelling", ["--output-format", "--format"])
def test_output_format_and_its_alias(runner: CliRunner, spelling: str) -> None:
    result = runner.invoke(cli, ["validate", spelling, "json", str(SPEC_A)])
    assert result.exit_code == 1 and json.loads(result.stdout)


@pytest.mark.parametrize("output_format", ["text", "concise", "json"])
def test_quiet_prints_the_findings_only(runner: CliRunner, output_format: str) -> None:
    loud = runner.invoke(cli, ["validate", "--output-format", output_format, str(SPEC_A)])
    quiet = runner.invoke(cli, ["validate", "-q", "--output-format", output_format, str(SPEC_A)])
    assert quiet.exit_code == loud.exit_code == 1
    assert "Checked" in loud.output and "Checked" not in quiet.output
    assert quiet.stdout and quiet.stdout in loud.stdout


@pytest.mark.parametrize(
    ("environment", "coloured"),
    [
        ({}, False),  # CliRunner's stdout is not a terminal
        ({"FORCE_COLOR": "1"}, True),
        ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
        ({"FORCE_COLOR": ""}, False),  # an empty value does not count (no-color.org)
    ],
)
@pytest.mark.parametrize("output_format", ["text", "concise"])
def test_colour_follows_no_color_and_force_color(
    runner: CliRunner, environment: dict[str, str], coloured: bool, output_format: str
) -> None:
    clear = {"NO_COLOR": None, "FORCE_COLOR": None}
    args = ["validate", "--output-format", output_format, str(SPEC_A)]
    result = runner.invoke(cli, args, env={**clear, **environment})
    assert result.exit_code == 1
    assert ("\x1b[1;31mIR301\x1b[0m" in result.stdout) is coloured
    assert ("\x1b" in result.stdout) is coloured


@pytest.mark.parametrize(
    ("environment", "is_terminal", "expected"),
    [
        ({}, True, True),
        ({}, False, False),
        ({"TERM": "dumb"}, True, False),
        ({"NO_COLOR": "1"}, True, False),
        ({"FORCE_COLOR": "1"}, False, True),
    ],
)
def test_a_terminal_gets_colour(
    monkeypatch: pytest.MonkeyPatch, environment: dict[str, str], is_terminal: bool, expected: bool
) -> None:
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert wants_colour(is_terminal) is expected


def test_colour_never_goes_to_a_report_file(runner: CliRunner, tmp_path: Path) -> None:
    report = tmp_path / "report.txt"
    args = ["validate", "-o", str(report), str(SPEC_A)]
    result = runner.invoke(cli, args, env={"FORCE_COLOR": "1", "NO_COLOR": None})
    assert result.exit_code == 1 and "\x1b" not in report.read_text()


# The entry point in a real process, with validation made to fail as a bug in irpool would.
FAILING_MAIN = """
import atexit, sys
import irpool.cli.validate
from irpool.cli import main

def broken(job):
    raise RuntimeError("a bug")

irpool.cli.validate.lint = broken
atexit.register(lambda: print("atexit ran", file=sys.stderr))
sys.argv[0] = "irpool"
main()
"""


def test_an_internal_error_exits_with_its_code_and_the_process_ends_normally() -> None:
    """The process ends as Python ends it: atexit callbacks run and nothing is lost."""
    result = subprocess.run(
        [sys.executable, "-c", FAILING_MAIN, "validate", "--isolated", str(CLEAN)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == EXIT_INTERNAL
    assert "irpool: internal error: RuntimeError: a bug" in result.stderr
    assert result.stderr.rstrip().endswith("atexit ran")
    assert "Traceback" not in result.stderr


def test_a_misspelt_attribute_is_shown_under_its_name_before_what_it_causes(
    runner: CliRunner,
) -> None:
    """`stides` leaves strides empty (IR209), which makes it shorter than the kernel (IR207):
    the caret is under the misspelt name, and the cause is listed before its effect, which
    points at the value meant for strides."""
    path = ROOT / "tests" / "rules" / "IR207_strides_left_empty_by_a_misspelling.xml"
    result = runner.invoke(cli, ["validate", "--isolated", str(path)])
    lines = result.output.splitlines()
    assert [line.split()[1] for line in lines if ": IR2" in line] == ["IR209", "IR207"]
    source = lines[1].split(" | ", 1)[1]
    name, value = source.index("stides"), source.index('"2, 2"') + 1
    assert lines[2] == "   | " + " " * name + "^" * len("stides")
    assert lines[7] == "   | " + " " * value + "^" * len("2, 2")


def test_a_binary_file_gets_its_finding_without_an_excerpt_of_raw_bytes(
    runner: CliRunner, tmp_path: Path
) -> None:
    binary = tmp_path / "weights.xml"
    binary.write_bytes(b"\x93NUMPY\x01\x00v\x00{'descr': '<f4'}\x1b[2J\x85\xc2\x9b" + bytes(256))
    result = runner.invoke(cli, ["validate", "--isolated", str(binary)])
    assert result.exit_code == 1
    assert result.output.splitlines()[1:] == [
        "  = rule: xml-syntax (irpool rule IR101)",
        "",
        "Checked 1 file: 1 error, 0 warnings, 0 infos.",
    ]
    assert "NUL byte: it is binary" in result.output


def test_an_excerpt_shows_c1_control_characters_as_replacements(
    runner: CliRunner, tmp_path: Path
) -> None:
    """U+009B is a terminal's one-character CSI: it must never reach the terminal raw."""
    model = tmp_path / "model.xml"
    text = (ROOT / "examples" / "spec" / "avgpool1_a_same_upper_k2s2.xml").read_text()
    model.write_text(text.replace("<dim>32</dim>", "<dim>32</dim>\u009b"))
    result = runner.invoke(cli, ["validate", "--isolated", str(model)])
    assert "\u009b" not in result.output
    assert "<dim>32</dim>\ufffd" in result.output


# Counts each model freed, even during the interpreter's teardown (os.write needs no sys.stdout).
COUNTING_MAIN = """
import os, sys
from irpool.cli import app
from irpool.model import Model
Model.__del__ = lambda self: os.write(1, b"freed\\n")
sys.argv[0] = "irpool"
app.main()
"""


@pytest.mark.parametrize("entry", ["main", "in-process"])
def test_the_process_exit_frees_no_model_but_a_longer_run_frees_all_but_the_last(
    entry: str, runner: CliRunner
) -> None:
    """Freeing a large model costs tens of milliseconds that ending the process gives back
    anyway: `main` keeps the last model to the exit and releases each earlier one, so many
    files never pile up; called in process, as here through CliRunner, every model is freed."""
    files = [str(path) for path in sorted((EXAMPLES / "valid").glob("*.xml"))[:3]]
    if entry == "main":
        result = subprocess.run(
            [sys.executable, "-c", COUNTING_MAIN, "validate", "--isolated", *files],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout.count("freed") == len(files) - 1
        assert "Checked 3 files: 0 errors" in result.stdout
    else:
        import gc

        from irpool.model import Model

        freed: list[int] = []
        gc.collect()  # models that earlier tests in this process left in cycles are not counted
        original = getattr(Model, "__del__", None)
        Model.__del__ = lambda self: freed.append(1)  # type: ignore[attr-defined]
        try:
            assert runner.invoke(cli, ["validate", "--isolated", *files]).exit_code == 0
            gc.collect()
        finally:
            if original is None:
                del Model.__del__  # type: ignore[attr-defined]
            else:
                Model.__del__ = original  # type: ignore[attr-defined]
        assert len(freed) == len(files)
