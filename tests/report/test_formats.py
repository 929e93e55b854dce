"""Every report format against golden output, the SARIF log against the SARIF 2.1.0 schema,
and the promises of each format: only the document on stdout for machine formats, escaped
GitHub annotations, carets under the exact columns.

Regenerate the golden files with
`IRPOOL_UPDATE_GOLDEN=1 python -m pytest tests/report/test_formats.py` and review the diff.
"""

from __future__ import annotations

import importlib.util
import json
import os
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from irpool.cli import cli
from irpool.config import FORMATS
from irpool.diagnostics import Diagnostic
from irpool.report import fingerprint, github, sarif, text
from irpool.rules import FAMILIES, RULES, Severity
from tests.report.sarif_schema import sarif_schema

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path("tests") / "formats"  # relative: reports show paths relative to the cwd
EXPECTED = ROOT / FIXTURES / "expected"
UPDATE = os.environ.get("IRPOOL_UPDATE_GOLDEN") == "1"


@pytest.fixture(autouse=True)
def _in_repository_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def validate(runner: CliRunner, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(cli, ["validate", "--isolated", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout, result.stderr


def matches_golden(name: str, actual: str) -> None:
    # SARIF names the working directory as %SRCROOT%; the golden file names a fixed one.
    actual = actual.replace(ROOT.as_uri() + "/", "file:///SRCROOT/")
    path = EXPECTED / name
    if UPDATE:
        path.write_text(actual, encoding="utf-8")
    assert actual == path.read_text(encoding="utf-8"), f"{name} differs from the golden file"


@pytest.mark.parametrize("output_format", FORMATS)
def test_golden_output(runner: CliRunner, output_format: str) -> None:
    code, stdout, stderr = validate(runner, "--format", output_format, str(FIXTURES))
    assert code == 1
    matches_golden(f"{output_format}.stdout", stdout)
    matches_golden(f"{output_format}.stderr", stderr)


def test_the_fixture_has_errors_warnings_and_infos(runner: CliRunner) -> None:
    _, stdout, _ = validate(runner, "--format", "json", str(FIXTURES))
    assert {r["severity"] for r in json.loads(stdout)} == {"error", "warning", "info"}


@pytest.mark.parametrize("output_format", ["json", "github", "sarif"])
def test_machine_formats_put_only_the_document_on_stdout(
    runner: CliRunner, output_format: str
) -> None:
    _, stdout, stderr = validate(runner, "--format", output_format, "--statistics", str(FIXTURES))
    assert "Checked 2 files" in stderr and "Checked" not in stdout
    assert "declared-dim-mismatch" in stderr  # the statistics are part of the human summary
    if output_format == "github":
        assert all(line.startswith("::") for line in stdout.splitlines())
    else:
        json.loads(stdout)


def test_sarif_is_valid_sarif_2_1_0_with_what_code_scanning_needs(runner: CliRunner) -> None:
    _, stdout, _ = validate(runner, "--format", "sarif", str(FIXTURES))
    log = json.loads(stdout)
    sarif_schema().validate(log)
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    fired = {result["ruleId"] for result in run["results"]}
    assert [rule["id"] for rule in rules] == [code for code in RULES if code in fired]
    for rule in rules:
        assert rule["name"] == RULES[rule["id"]].name
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert RULES[rule["id"]].wrong in rule["help"]["text"]
        assert rule["helpUri"] == f"{sarif.docs_url()}/rules/{rule['id']}.md"
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": ROOT.as_uri() + "/"}}
    for result in run["results"]:
        assert result["level"] in ("error", "warning", "note")
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"] == {
            "uri": "tests/formats/model.xml",
            "uriBaseId": "%SRCROOT%",
        }
        region = location["region"]
        assert set(region) == {"startLine", "startColumn", "endLine", "endColumn"}
        assert (region["endLine"], region["endColumn"]) > (
            region["startLine"],
            region["startColumn"],
        )


def test_help_uri_comes_from_the_documentation_url_in_pyproject() -> None:
    with (ROOT / "pyproject.toml").open("rb") as stream:
        urls = tomllib.load(stream)["project"]["urls"]
    assert sarif.docs_url() == urls["Documentation"]
    assert sarif.help_uri("IR301") == urls["Documentation"] + "/rules/IR301.md"


def test_rule_reference_pages_are_generated_from_the_catalog() -> None:
    """docs/rules/ is what tools/gen_rule_docs.py writes; rerun it after changing a rule."""
    spec = importlib.util.spec_from_file_location(
        "gen_rule_docs", ROOT / "tools" / "gen_rule_docs.py"
    )
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    expected = generator.pages()
    committed = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "docs" / "rules").glob("*")}
    families = {f"{alias}.md" for alias in FAMILIES if alias.startswith("IR")}
    assert set(committed) == set(expected) == {"README.md"} | families | {f"{c}.md" for c in RULES}
    for name, content in expected.items():
        assert committed[name] == content, f"docs/rules/{name} is stale: run tools/gen_rule_docs.py"


def _fingerprints(runner: CliRunner, path: Path) -> list[tuple[str, str]]:
    _, stdout, _ = validate(runner, "--format", "sarif", str(path))
    return [
        (result["ruleId"], result["partialFingerprints"]["irpool/element/v1"])
        for result in json.loads(stdout)["runs"][0]["results"]
    ]


def test_fingerprints_do_not_move_with_lines(runner: CliRunner, tmp_path: Path) -> None:
    source = (ROOT / FIXTURES / "model.xml").read_text(encoding="utf-8")
    before, after = tmp_path / "before.xml", tmp_path / "after.xml"
    before.write_text(source, encoding="utf-8")
    # Lines above every finding, and a start tag and an attribute list split over lines.
    moved = source.replace("<layers>", "<!-- a\ncomment -->\n\n<layers>\n", 1)
    moved = moved.replace('<layer id="1"', '<layer\n\t\t\tid="1"').replace(' foo="1"', '\n foo="1"')
    after.write_text(moved, encoding="utf-8")
    first, second = _fingerprints(runner, before), _fingerprints(runner, after)
    assert len(first) == 8 and first == second
    assert len({fingerprint for _, fingerprint in first}) == len(first)  # one per finding


@pytest.mark.parametrize(
    ("text", "at", "expected"),
    [
        ('<layers><layer id="7"><data kernel="2"/>', '2"', "layers[1]/layer[id=7]/data[1]@kernel"),
        ("<layers><layer id='7'><data  />", "  />", "layers[1]/layer[id=7]/data[1]"),
        (
            "<edges><edge from-layer='0' to-layer='2' to-port='1'/>",
            "from",
            "edges[1]/edge[to-layer=2,to-port=1]@from-layer",
        ),
        ("<x><a/><a/><!-- <a/> --><a><b>3</b></a></x>", "3", "x[1]/a[3]/b[1]"),
        ("<x><a/></x>", "</x", "x[1]"),
    ],
)
def test_element_locators(text: str, at: str, expected: str) -> None:
    offset = text.index(at)
    assert fingerprint.locate(text, [offset]) == {offset: expected}


def test_sarif_of_a_clean_run_is_valid_and_empty(runner: CliRunner) -> None:
    code, stdout, _ = validate(runner, "--format", "sarif", str(FIXTURES / "clean.xml"))
    assert code == 0
    log = json.loads(stdout)
    sarif_schema().validate(log)
    assert log["runs"][0]["results"] == [] and log["runs"][0]["tool"]["driver"]["rules"] == []


def _diagnostic(message: str, path: str = "a.xml", end_line: int = 3) -> Diagnostic:
    return Diagnostic("IR301", Severity.ERROR, message, path, 3, 5, end_line, 9, "1", "pool")


def test_github_annotations_escape_data_and_properties() -> None:
    line = github.render_line(_diagnostic("100% off\r\nnext", path="dir,x/a:b.xml"))
    assert line.startswith("::error file=dir%2Cx/a%3Ab.xml,line=3,col=5,endLine=3,endColumn=9,")
    assert "title=irpool IR301 (declared-dim-mismatch)::" in line
    assert line.endswith('::dir,x/a:b.xml:3:5: 100%25 off%0D%0Anext [layer 1 "pool"]')
    assert "\n" not in line and "\r" not in line


def test_github_drops_columns_for_a_range_over_several_lines() -> None:
    line = github.render_line(_diagnostic("m", end_line=5))
    assert ",line=3,endLine=5,title=" in line and "col=" not in line


def test_github_severities_map_to_error_warning_notice(runner: CliRunner) -> None:
    _, stdout, _ = validate(runner, "--format", "github", str(FIXTURES))
    assert {line.split(" ", 1)[0] for line in stdout.splitlines()} == {
        "::error",
        "::warning",
        "::notice",
    }


@pytest.mark.parametrize(
    ("line", "column", "end_column", "caret"),
    [
        ("\t\t<dim>32</dim>", 8, 10, "        | " + " " * 13 + "^^"),
        ("<dim>7</dim>", 6, 7, "        | " + " " * 5 + "^"),
        ("<a b='x'/>", 6, 6, "        | " + " " * 5 + "^"),  # an empty range still gets a caret
        ("<a/>", 3, 99, "        | " + " " * 2 + "^^"),  # a range past the end stops there
    ],
)
def test_caret_sits_under_the_exact_columns(
    line: str, column: int, end_column: int, caret: str
) -> None:
    diagnostic = Diagnostic("IR301", Severity.ERROR, "m", "a.xml", 2, column, 2, end_column)
    shown = text.excerpt(f"first\n{line}\r\nlast".split("\n"), diagnostic, gutter=8)
    assert shown[0] == "      2 | " + line.expandtabs(text.TAB_WIDTH)
    assert shown[1] == caret


def test_excerpt_of_a_long_line_is_cut_around_the_caret() -> None:
    line = "<data " + "x" * 500 + ' kernel="3" />'
    column = line.index("3") + 1
    diagnostic = Diagnostic("IR205", Severity.ERROR, "m", "a.xml", 1, column, 1, column + 1)
    source_line, caret_line = text.excerpt([line], diagnostic, gutter=2)
    assert len(source_line) < 200 and source_line.startswith("1 | ...")
    assert source_line[caret_line.index("^")] == "3"


def test_excerpt_of_binary_garbage_is_printable(runner: CliRunner, tmp_path: Path) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_bytes(b"\x00\x01\x1b[31m<net>")
    code, stdout, _ = validate(runner, str(bad))
    assert code == 1 and "IR101" in stdout and "\x1b" not in stdout and "\x00" not in stdout


def test_output_file_receives_the_report(runner: CliRunner, tmp_path: Path) -> None:
    target = tmp_path / "irpool.sarif"
    code, stdout, stderr = validate(runner, "--format", "sarif", "-o", str(target), str(FIXTURES))
    assert code == 1 and stdout == ""
    assert json.loads(target.read_text(encoding="utf-8"))["version"] == "2.1.0"
    assert "Checked 2 files" in stderr


def test_output_file_that_cannot_be_written_is_a_usage_error(
    runner: CliRunner, tmp_path: Path
) -> None:
    code, _, stderr = validate(runner, "-o", str(tmp_path / "no" / "dir.txt"), str(FIXTURES))
    assert code == 2 and "cannot write" in stderr


def test_statistics_count_findings_per_rule(runner: CliRunner) -> None:
    code, stdout, _ = validate(runner, "--statistics", str(FIXTURES))
    assert code == 1
    assert "     4  IR301  [*] declared-dim-mismatch" in stdout.splitlines()
    assert "     1  IR305      declared-precision-mismatch" in stdout.splitlines()
    assert "^" not in stdout  # the table replaces the individual diagnostics


def test_exit_zero_keeps_the_report(runner: CliRunner) -> None:
    code, stdout, _ = validate(runner, "--exit-zero", "--format", "concise", str(FIXTURES))
    assert code == 0 and "IR301" in stdout


def test_every_diagnostic_names_its_rule(runner: CliRunner) -> None:
    _, stdout, _ = validate(runner, str(FIXTURES))
    headers = [line for line in stdout.splitlines() if line.startswith("tests/formats/")]
    rule_lines = [line.strip() for line in stdout.splitlines() if "= rule: " in line]
    assert len(headers) == len(rule_lines) == 8
    for header, rule_line in zip(headers, rule_lines, strict=True):
        code = header.split()[1]
        assert rule_line == f"= rule: {RULES[code].name} (irpool rule {code})"


def test_parallel_jobs_give_the_same_output_in_the_same_order(runner: CliRunner) -> None:
    serial = validate(runner, "examples")
    parallel = validate(runner, "--jobs", "2", "examples")
    assert serial == parallel
    count = len(list((ROOT / "examples").glob("*/*.xml")))
    assert serial[0] == 1 and f"Checked {count} files" in serial[1]


def test_directory_run_prints_a_per_file_summary(runner: CliRunner) -> None:
    _, stdout, _ = validate(runner, "examples/spec")
    table = stdout[stdout.index("  errors  warnings  infos  file") :].splitlines()
    assert "       4         0      1  examples/spec/avgpool1_a_same_upper_k2s2.xml" in table
    assert "2 other files had no findings" in table


def test_rules_as_json_list_the_whole_catalog(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["rules", "--format", "json"])
    assert result.exit_code == 0
    catalog = json.loads(result.stdout)
    assert [entry["code"] for entry in catalog] == list(RULES)
    keys = {"code", "name", "severity", "runtime", "summary", "fixable"}
    for entry, rule in zip(catalog, RULES.values(), strict=True):
        assert set(entry) == keys
        assert all(entry[key] == getattr(rule, key) for key in keys)
