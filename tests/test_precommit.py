"""The pre-commit hooks this repository publishes, run end to end the way pre-commit runs
them: each hook's `entry` with the staged files its `types` select, in a temporary git
repository. (pre-commit itself needs the network to build its environment, so the test runs
the hook definition directly.)"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPEC_A = ROOT / "examples" / "spec" / "avgpool1_a_same_upper_k2s2.xml"
REQUIRED = ("id", "name", "entry", "language")

yaml = pytest.importorskip("yaml")
if shutil.which("git") is None:
    pytest.skip("git is not installed", allow_module_level=True)


def hooks() -> dict[str, dict[str, Any]]:
    loaded = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    return {hook["id"]: hook for hook in loaded}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def run_hook(
    repo: Path, hook: dict[str, Any], files_pattern: str
) -> subprocess.CompletedProcess[str]:
    """As pre-commit does: staged files matching `files` and the hook's types, appended to
    the entry and its args."""
    assert hook["types"] == ["xml"]  # identify tags *.xml as xml
    staged = git(repo, "ls-files").split()
    selected = [f for f in staged if f.endswith(".xml") and re.search(files_pattern, f)]
    command = shlex.split(hook["entry"]) + hook.get("args", []) + selected
    if shutil.which(command[0]) is None:  # not installed as a script: use the module
        command = [sys.executable, "-m", "irpool", *command[1:]]
    return subprocess.run(command, cwd=repo, capture_output=True, text=True, timeout=120)


def test_hook_definitions_have_what_pre_commit_requires() -> None:
    defined = hooks()
    assert set(defined) == {"irpool", "irpool-fix"}
    for hook in defined.values():
        assert all(isinstance(hook[key], str) and hook[key] for key in REQUIRED)
        assert hook["language"] == "python" and hook["entry"].startswith("irpool validate")
    assert "--fix" in defined["irpool-fix"]["entry"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "pool.xml").write_bytes(SPEC_A.read_bytes())
    (tmp_path / "pom.xml").write_text("<project/>\n")  # XML that is not IR: left out by files:
    (tmp_path / "pyproject.toml").write_text('[tool.irpool]\nignore = ["IR213"]\n')
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "models")
    return tmp_path


def test_validate_hook_fails_on_wrong_dims_then_fix_hook_repairs_them(repo: Path) -> None:
    defined = hooks()
    checked = run_hook(repo, defined["irpool"], r"^models/")
    assert checked.returncode == 1, checked.stderr
    assert "models/pool.xml:29:11: IR301 error" in checked.stdout
    assert "IR213" not in checked.stdout  # the repository's [tool.irpool] applies

    fixed = run_hook(repo, defined["irpool-fix"], r"^models/")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "Fixed 4 problems in 1 file." in fixed.stdout
    changed = git(repo, "diff", "--stat")
    assert "models/pool.xml" in changed  # pre-commit fails the hook: the files changed
    git(repo, "add", ".")

    assert run_hook(repo, defined["irpool"], r"^models/").returncode == 0
    again = run_hook(repo, defined["irpool-fix"], r"^models/")
    assert again.returncode == 0 and git(repo, "diff") == ""  # idempotent: nothing to redo
