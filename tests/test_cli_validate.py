"""`irpool validate` through click's CliRunner: output formats, exit codes, bad invocations."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from irpool.cli import cli
from irpool.rules import RULES

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SPEC_A = EXAMPLES / "spec" / "avgpool1_a_same_upper_k2s2.xml"


def test_clean_directory_exits_zero(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["validate", str(EXAMPLES / "valid")])
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("Checked 14 files: 0 errors, 0 warnings, 0 infos.")


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
    assert "Checked 38 files:" in result.output
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
