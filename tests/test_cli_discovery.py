"""Which files `irpool validate` checks: default and configured excludes, .gitignore (asked
of git), explicit files, and XML that is not IR."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from irpool.cli import cli
from irpool.cli.discovery import root_is_not_net

SPEC_A = (
    Path(__file__).resolve().parent.parent / "examples" / "spec" / "avgpool1_a_same_upper_k2s2.xml"
)
# Folders a real repository has that hold .xml files that are not the project's models.
NOT_WALKED = (
    ".venv/lib/model.xml",
    "venv/lib/model.xml",
    "node_modules/pkg/model.xml",
    "build/model.xml",
    "dist/model.xml",
    "src/__pycache__/model.xml",
    ".git/model.xml",
    ".hg/model.xml",
    ".idea/model.xml",
    "models/.hidden.xml",
)
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture
def repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """models/a.xml, plus a model in each folder a walk skips; the working directory at the
    root."""
    for relative in ("models/a.xml", *NOT_WALKED):
        target = tmp_path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(SPEC_A.read_bytes())
    monkeypatch.chdir(tmp_path)
    return tmp_path


def checked(runner: CliRunner, *args: str) -> tuple[int, set[str], str]:
    """Exit code, the paths with findings (every model here has some), and stderr."""
    result = runner.invoke(cli, ["validate", "--output-format", "json", *args])
    paths = {record["path"] for record in json.loads(result.stdout or "[]")}
    return result.exit_code, paths, result.stderr


def test_default_excludes_skip_hidden_tool_and_build_folders(
    runner: CliRunner, repository: Path
) -> None:
    assert checked(runner, ".")[1] == {"models/a.xml"}
    assert checked(runner)[1] == {"models/a.xml"}  # no path means "."


def test_a_file_named_explicitly_is_checked_unless_force_exclude(
    runner: CliRunner, repository: Path
) -> None:
    assert checked(runner, ".venv/lib/model.xml")[1] == {".venv/lib/model.xml"}
    assert checked(runner, "build")[1] == {"build/model.xml"}  # a named folder is walked
    code, paths, _ = checked(runner, "--force-exclude", ".venv/lib/model.xml", "models/a.xml")
    assert code == 1 and paths == {"models/a.xml"}


def test_exclude_replaces_the_defaults_and_extend_exclude_adds(
    runner: CliRunner, repository: Path
) -> None:
    everything = {"models/a.xml", *NOT_WALKED}
    assert checked(runner, "--exclude", "nothing-matches")[1] == everything
    assert checked(runner, "--extend-exclude", "models/a.xml")[0] == 2  # nothing left
    only_build = checked(runner, "--exclude", "build,.git", "--extend-exclude", "*.hidden.xml")
    assert only_build[1] == everything - {"build/model.xml", ".git/model.xml", "models/.hidden.xml"}


def test_exclude_from_the_configuration(runner: CliRunner, repository: Path) -> None:
    (repository / "models" / "legacy").mkdir()
    (repository / "models" / "legacy" / "b.xml").write_bytes(SPEC_A.read_bytes())
    (repository / "pyproject.toml").write_text(
        '[tool.irpool]\nextend-exclude = ["models/legacy"]\n', encoding="utf-8"
    )
    assert checked(runner)[1] == {"models/a.xml"}
    (repository / "pyproject.toml").write_text(
        '[tool.irpool]\nexclude = ["models/legacy", ".git"]\n', encoding="utf-8"
    )
    assert checked(runner)[1] == {"models/a.xml", *NOT_WALKED} - {".git/model.xml"}


@needs_git
def test_gitignored_files_are_skipped_unless_asked(runner: CliRunner, repository: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=repository, check=True)
    (repository / ".gitignore").write_text("generated/\n*.tmp.xml\n!keep.tmp.xml\n")
    for relative in ("generated/g.xml", "models/scratch.tmp.xml", "models/keep.tmp.xml"):
        (repository / relative).parent.mkdir(exist_ok=True)
        (repository / relative).write_bytes(SPEC_A.read_bytes())
    kept = {"models/a.xml", "models/keep.tmp.xml"}
    assert checked(runner)[1] == kept
    assert checked(runner, "models")[1] == kept  # .gitignore applies from a subfolder too
    ignored = {"generated/g.xml", "models/scratch.tmp.xml"}
    assert checked(runner, "--no-respect-gitignore")[1] == kept | ignored
    assert checked(runner, "generated/g.xml")[1] == {"generated/g.xml"}
    assert checked(runner, "generated")[1] == {"generated/g.xml"}  # named: its files wanted
    assert checked(runner, "--force-exclude", "generated/g.xml", "models/a.xml")[1] == {
        "models/a.xml"
    }
    (repository / "pyproject.toml").write_text("[tool.irpool]\nrespect-gitignore = false\n")
    assert checked(runner)[1] == kept | ignored


@needs_git
def test_an_ignored_folder_is_never_listed(
    runner: CliRunner, repository: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A gitignored folder is dropped before the walk lists it (a data/ with 100,000 files
    costs nothing). Tests run as root, which lists a mode-000 folder, so listing data/cache is
    refused where the walk lists it: entering it would be an IR100 error. A file git tracks
    in an ignored folder is still checked, since git never ignores it."""
    subprocess.run(["git", "init", "-q"], cwd=repository, check=True)
    (repository / ".gitignore").write_text("data/\n")
    for relative in ("data/cache/c.xml", "data/tracked/t.xml"):
        (repository / relative).parent.mkdir(parents=True)
        (repository / relative).write_bytes(SPEC_A.read_bytes())
    subprocess.run(["git", "add", "-f", "data/tracked/t.xml"], cwd=repository, check=True)
    listed: list[str] = []
    real_scandir = os.scandir

    def scandir(path: Any) -> Any:
        listed.append(Path(path).as_posix())
        if Path(path).name == "cache":
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    assert checked(runner)[:2] == (1, {"models/a.xml", "data/tracked/t.xml"})
    assert "data/tracked" in listed and "data/cache" not in listed
    assert "data/cache" in checked(runner, "--no-respect-gitignore")[1]  # entered: IR100


@needs_git
def test_git_is_asked_once_per_level_of_the_tree(
    runner: CliRunner, repository: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not once per folder: zoo/ has 20 groups of 3 models, so asking per folder would
    call git 81 times."""
    subprocess.run(["git", "init", "-q"], cwd=repository, check=True)
    for group in range(20):
        for model in range(3):
            path = repository / "zoo" / f"group{group}" / f"model{model}" / "m.xml"
            path.parent.mkdir(parents=True)
            path.write_bytes(SPEC_A.read_bytes())
    asked: list[list[str]] = []
    real_run = subprocess.run

    def run(args: list[str], **kwargs: Any) -> Any:
        if "check-ignore" in args:
            asked.append(args)
        return real_run(args, **kwargs)

    monkeypatch.setattr(subprocess, "run", run)
    code, paths, _ = checked(runner, "zoo")
    assert code == 1 and len(paths) == 60
    assert len(asked) <= 4  # about zoo itself (named), then its groups, models and files


def test_outside_a_git_work_tree_nothing_is_gitignored(runner: CliRunner, repository: Path) -> None:
    (repository / ".gitignore").write_text("models/\n")
    _, paths, stderr = checked(runner)
    assert paths == {"models/a.xml"} and "irpool: warning" not in stderr


def test_xml_that_is_not_ir_is_skipped_when_walked_and_counted(
    runner: CliRunner, repository: Path
) -> None:
    (repository / "models" / "workspace.xml").write_text('<?xml version="1.0"?>\n<project/>\n')
    (repository / "models" / "icon.xml").write_text("<!-- drawn -->\n<svg:svg xmlns:svg='x'/>")
    result = runner.invoke(cli, ["validate", "--output-format", "concise", "models"])
    assert result.exit_code == 1
    assert "workspace" not in result.stdout and "icon" not in result.stdout
    assert result.stdout.splitlines()[-1] == (
        "Checked 1 file: 4 errors, 0 warnings, 1 info (3 of 3 layers checked). "
        "Skipped 2 .xml files whose root element is not <net>."
    )
    named = runner.invoke(cli, ["validate", "models/workspace.xml"])
    assert named.exit_code == 1 and " IR103 error the root element is <project>" in named.stdout
    (repository / "models" / "a.xml").unlink()
    nothing = runner.invoke(cli, ["validate", "models"])
    assert nothing.exit_code == 2 and "no IR to check" in nothing.output


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'<?xml version="1.0"?><net name="m" version="11">', False),
        (b"\xef\xbb\xbf<!-- c --><?pi x?>\n <Net version='11'>", False),
        (b"<ir:net xmlns:ir='urn:x'>", False),
        (b"<!DOCTYPE net [<!ENTITY x 'y'>]><net>", False),  # checked: IR102 is reported
        (b"", False),  # not plainly anything: checked, so the diagnostics say why
        (b"\x00\x01binary", False),
        (b"<net", False),
        (b"<project version='4'>", True),
        (b"<?xml version='1.0'?>\n<!-- x -->\n<svg xmlns='http://www.w3.org/2000/svg'/>", True),
        (b"<!DOCTYPE html><html>", True),
        (b"<network/>", True),
    ],
)
def test_the_root_element_is_read_from_the_first_bytes(data: bytes, expected: bool) -> None:
    assert root_is_not_net(data) is expected


def test_force_exclude_judges_only_folders_inside_the_project(
    runner: CliRunner, repository: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A hidden folder above the project (~/.cache/...) must not exclude a file named in it."""
    outside = tmp_path_factory.mktemp("elsewhere") / ".cache" / "model.xml"
    outside.parent.mkdir()
    outside.write_bytes(SPEC_A.read_bytes())
    code, paths, _ = checked(runner, "--force-exclude", str(outside))
    assert code == 1 and paths == {outside.as_posix()}


def test_the_xml_suffix_is_matched_in_any_case(runner: CliRunner, repository: Path) -> None:
    """Models exported on Windows are often MODEL.XML."""
    for name in ("UPPER.XML", "Mixed.Xml"):
        (repository / "models" / name).write_bytes(SPEC_A.read_bytes())
    (repository / "models" / "notes.xmlx").write_bytes(SPEC_A.read_bytes())
    assert checked(runner, ".")[1] == {"models/a.xml", "models/UPPER.XML", "models/Mixed.Xml"}
