"""`[tool.irpool]`: discovery, every key, per-file-ignores globs, and bad configurations
(exit 2 naming the key), through the API and through `irpool validate`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from irpool.cli import cli
from irpool.config import Config, ConfigError, discover, glob_matches, load_config, resolve
from irpool.rules import RULES, Severity

SPEC_A = (
    Path(__file__).resolve().parent.parent / "examples" / "spec" / "avgpool1_a_same_upper_k2s2.xml"
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with models/a.xml and models/legacy/b.xml (4 IR301 errors, 1 IR213 info
    each), the working directory at its root."""
    for relative in ("models/a.xml", "models/legacy/b.xml"):
        target = tmp_path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(SPEC_A.read_bytes())
    monkeypatch.chdir(tmp_path)
    return tmp_path


def configure(project: Path, body: str, name: str = "pyproject.toml") -> Path:
    path = project / name
    path.write_text(body, encoding="utf-8")
    return path


def codes(runner: CliRunner, *args: str) -> tuple[int, dict[str, list[str]], str]:
    """Exit code, {path: [code...]} from the JSON report, and stderr."""
    result = runner.invoke(cli, ["validate", "--format", "json", *args])
    found: dict[str, list[str]] = {}
    for record in json.loads(result.stdout or "[]"):
        found.setdefault(record["path"], []).append(record["code"])
    return result.exit_code, found, result.stderr


def test_no_configuration_reports_everything(runner: CliRunner, project: Path) -> None:
    code, found, _ = codes(runner, "models")
    assert code == 1
    assert found["models/a.xml"] == ["IR213", "IR301", "IR301", "IR301", "IR301"]


def test_select_ignore_and_per_file_ignores(runner: CliRunner, project: Path) -> None:
    configure(
        project,
        """
[tool.irpool]
select = ["IR2", "IR301"]
ignore = ["overwritten-pads"]
[tool.irpool.per-file-ignores]
"models/legacy/**" = ["IR3"]
""",
    )
    code, found, _ = codes(runner, "models")
    assert code == 1
    assert found == {"models/a.xml": ["IR301"] * 4}


def test_per_file_ignores_glob_without_slash_matches_the_file_name(
    runner: CliRunner, project: Path
) -> None:
    configure(project, '[tool.irpool.per-file-ignores]\n"b.xml" = ["IR"]\n')
    _, found, _ = codes(runner, "models")
    assert "models/legacy/b.xml" not in found and "models/a.xml" in found


def test_severity_overrides_and_fail_on(runner: CliRunner, project: Path) -> None:
    configure(project, '[tool.irpool.severity]\nIR3 = "warning"\n')
    code, _, _ = codes(runner, "models")
    assert code == 0  # only warnings and infos remain
    configure(
        project, '[tool.irpool]\nfail-on = "warning"\n[tool.irpool.severity]\nIR3 = "warning"\n'
    )
    code, _, _ = codes(runner, "models")
    assert code == 1


def test_the_most_specific_severity_selector_wins() -> None:
    config = Config(severity=(("IR301", Severity.INFO), ("IR3", Severity.WARNING)))
    assert config.severity_of("IR301") is Severity.INFO
    assert config.severity_of("IR302") is Severity.WARNING
    assert config.severity_of("IR101") is Severity.ERROR


def test_severity_override_shows_in_the_report(runner: CliRunner, project: Path) -> None:
    configure(project, '[tool.irpool.severity]\noverwritten-pads = "error"\n')
    result = runner.invoke(cli, ["validate", "--format", "json", "models/a.xml"])
    levels = {r["code"]: r["severity"] for r in json.loads(result.stdout)}
    assert levels == {"IR213": "error", "IR301": "error"}


def test_format_from_configuration_and_command_line_wins(runner: CliRunner, project: Path) -> None:
    configure(project, '[tool.irpool]\nformat = "github"\n')
    result = runner.invoke(cli, ["validate", "models/a.xml"])
    assert result.stdout.startswith("::")
    result = runner.invoke(cli, ["validate", "--format", "concise", "models/a.xml"])
    assert result.stdout.startswith("models/a.xml:")


def test_command_line_select_and_ignore_override_the_file(runner: CliRunner, project: Path) -> None:
    configure(project, '[tool.irpool]\nselect = ["IR213"]\n')
    _, found, _ = codes(runner, "--select", "IR3", "--ignore", "IR302", "models/a.xml")
    assert found == {"models/a.xml": ["IR301"] * 4}


A_ONLY = {"models/a.xml": ["IR213", "IR301", "IR301", "IR301", "IR301"]}
BOTH = {**A_ONLY, "models/legacy/b.xml": A_ONLY["models/a.xml"]}


@pytest.mark.parametrize(
    ("table", "args", "expected"),
    [
        # Each setting of the file is its option's default (click's default_map) ...
        ("ignore = ['IR301']", ["models/a.xml"], {"models/a.xml": ["IR213"]}),
        ("exclude = ['legacy']", ["models"], A_ONLY),
        # ... and the option, given, replaces it.
        (
            "ignore = ['IR301']",
            ["--ignore", "IR213", "models/a.xml"],
            {"models/a.xml": ["IR301"] * 4},
        ),
        ("exclude = ['legacy']", ["--exclude", "", "models"], BOTH),
        ("force-exclude = true\nexclude = ['a.xml']", ["models/a.xml"], {}),
        ("force-exclude = true\nexclude = ['a.xml']", ["--exclude", "", "models/a.xml"], A_ONLY),
        # extend-exclude on the command line extends the file's instead.
        ("extend-exclude = ['legacy']", ["--extend-exclude", "nothing", "models"], A_ONLY),
    ],
)
def test_the_file_gives_the_options_defaults_and_the_command_line_wins(
    runner: CliRunner, project: Path, table: str, args: list[str], expected: dict[str, list[str]]
) -> None:
    configure(project, f"[tool.irpool]\n{table}\n")
    _, found, stderr = codes(runner, *args)
    assert found == expected, stderr


@pytest.mark.parametrize(("args", "expected_code"), [([], 1), (["--fail-on", "error"], 0)])
def test_fail_on_from_the_file_unless_given(
    runner: CliRunner, project: Path, args: list[str], expected_code: int
) -> None:
    configure(
        project, "[tool.irpool]\nfail-on = 'warning'\n[tool.irpool.severity]\nIR3 = 'warning'\n"
    )
    code, _, stderr = codes(runner, *args, "models")
    assert code == expected_code, stderr


def test_the_file_s_selectors_are_not_checked_again_as_the_command_line_s(
    runner: CliRunner, project: Path
) -> None:
    """A rule name in the file's `select` is valid there; only the option's own value is
    reported as `--select`."""
    configure(project, "[tool.irpool]\nselect = ['overwritten-pads']\n")
    code, found, stderr = codes(runner, "models/a.xml")
    assert code == 0 and found == {"models/a.xml": ["IR213"]}, stderr


def test_closest_pyproject_with_a_tool_irpool_table_wins(project: Path) -> None:
    configure(project, '[tool.irpool]\nignore = ["IR213"]\n')
    (project / "models" / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    legacy = configure(project / "models" / "legacy", '[tool.irpool]\nignore = ["IR301"]\n')
    assert discover(project / "models") == project / "pyproject.toml"
    assert discover(project / "models" / "legacy") == legacy
    assert load_config(None, False, project / "models" / "legacy").ignore == ("IR301",)


def test_configuration_is_found_from_a_subdirectory(
    runner: CliRunner, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(project, '[tool.irpool]\nignore = ["IR301"]\n')
    monkeypatch.chdir(project / "models" / "legacy")
    _, found, _ = codes(runner, "b.xml")
    assert found == {"b.xml": ["IR213"]}


def test_isolated_ignores_configuration(runner: CliRunner, project: Path) -> None:
    configure(project, '[tool.irpool]\nselect = ["IR213"]\nunknown-key = 1\n')
    code, found, _ = codes(runner, "--isolated", "models/a.xml")
    assert code == 1 and found["models/a.xml"].count("IR301") == 4


def test_explicit_config_file_any_name(runner: CliRunner, project: Path) -> None:
    configure(project, '[tool.irpool]\nselect = ["IR301"]\n')
    other = configure(project, 'select = ["IR213"]\n', name="irpool.toml")
    _, found, _ = codes(runner, "--config", str(other), "models/a.xml")
    assert found == {"models/a.xml": ["IR213"]}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("[tool.irpool]\nselct = ['IR301']\n", "unknown key 'selct'"),
        ("[tool.irpool]\nfail-on = 'info'\n", "'fail-on' must be one of error, warning"),
        ("[tool.irpool]\nformat = 'yaml'\n", "'format' must be one of"),
        ("[tool.irpool]\nselect = 'IR301'\n", "'select' must be a list"),
        ("[tool.irpool]\nper-file-ignores = ['a']\n", "'per-file-ignores' must be a table"),
        ("[tool.irpool.severity]\nIR301 = 'fatal'\n", "'severity.IR301' must be one of"),
        ("[tool.irpool\n", "not valid TOML"),
        ("[tool]\nirpool = 3\n", "tool.irpool must be a table"),
        # A selector that names no rule would check less than written, as in ruff.
        ("[tool.irpool]\nignore = ['IR999', 'IR213']\n", "'ignore' names no rule: 'IR999'"),
        ("[tool.irpool]\nselect = ['IR9']\n", "'select' names no rule: 'IR9'"),
        ("[tool.irpool]\nselect = []\n", "'select' is empty, so nothing would be checked"),
        (
            "[tool.irpool.per-file-ignores]\n'*.xml' = ['overwriten-pads']\n",
            "'per-file-ignores.*.xml' names no rule: 'overwriten-pads'",
        ),
        ("[tool.irpool.severity]\nIR3O1 = 'error'\n", "'severity' names no rule: 'IR3O1'"),
        ("[tool.irpool]\nexclude = 'build'\n", "'exclude' must be a list of glob patterns"),
        ("[tool.irpool]\nrespect-gitignore = 'no'\n", "'respect-gitignore' must be true or"),
    ],
)
def test_bad_configuration_exits_two_naming_the_problem(
    runner: CliRunner, project: Path, body: str, message: str
) -> None:
    configure(project, body)
    result = runner.invoke(cli, ["validate", "models/a.xml"])
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "pyproject.toml" in result.stderr
    assert "Traceback" not in result.output


def test_explicit_pyproject_without_the_table_exits_two(runner: CliRunner, project: Path) -> None:
    path = configure(project, "[project]\nname = 'x'\n")
    result = runner.invoke(cli, ["validate", "--config", str(path), "models/a.xml"])
    assert result.exit_code == 2 and "no [tool.irpool] table" in result.stderr


def test_selectors_accept_codes_prefixes_and_names() -> None:
    assert resolve(["IR301"]) == {"IR301"}
    assert resolve(["ir30"]) == {code for code in RULES if code.startswith("IR30")}
    assert resolve(["IR"]) == set(RULES)
    assert resolve(["declared-dim-mismatch", "IR999"]) == {"IR301"}


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("models/legacy/**", "models/legacy/a/b.xml", True),
        ("models/legacy/**", "models/other/b.xml", False),
        ("**/legacy/*.xml", "legacy/b.xml", True),
        ("**/legacy/*.xml", "x/y/legacy/b.xml", True),
        ("**/legacy/*.xml", "x/legacy/deeper/b.xml", False),
        ("models/*.xml", "models/sub/a.xml", False),
        ("*.xml", "models/sub/a.xml", True),  # no slash: the file name alone
        ("model_?.xml", "model_a.xml", True),
        ("model_[ab].xml", "model_c.xml", False),
        ("model_[!ab].xml", "model_c.xml", True),
        ("a.b", "axb", False),  # dots are literal
    ],
)
def test_glob_matching(pattern: str, path: str, expected: bool) -> None:
    assert glob_matches(pattern, path) is expected


def test_a_file_that_cannot_be_read_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.toml", False, tmp_path)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ignore", "IR213,IR999"], "--ignore names no rule: 'IR999'"),
        (["--select", "IR999"], "--select names no rule: 'IR999'"),
        (["--select", "IR7,dim-mismatch"], "--select names no rule: 'IR7', 'dim-mismatch'"),
        (["--select", ""], "--select names no rule, so nothing would be checked"),
        (["--select", " , "], "--select names no rule, so nothing would be checked"),
        (["--config", "pyproject.toml", "--isolated"], "pick one"),
    ],
)
def test_a_command_line_that_would_check_less_is_a_usage_error(
    runner: CliRunner, project: Path, args: list[str], message: str
) -> None:
    configure(project, "[tool.irpool]\n")
    result = runner.invoke(cli, ["validate", *args, "models/a.xml"])
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.output
