"""The pre-commit hooks this repository publishes: first each hook's `entry` run directly with
the staged files its `files` and `types` select (fast), then the real `pre-commit` tool on the
README's snippet as pasted, against a local clone of this repository. pre-commit builds the
hook's environment with pip as configured on the machine (here, local package indexes; pip
gives up on any unreachable index at once), so no network is needed where pip's indexes are
local."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
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
    assert hook["types"] == ["xml"] and hook["files"] == r"\.xml$"  # identify tags *.xml as xml
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


@pytest.mark.slow
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


SNIPPET = re.compile(r"```yaml\n(# \.pre-commit-config\.yaml\n.*?)```", re.S)
PUBLISHED = "https://github.com/OWNER/irpool"


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This repository as users fetch it: a clone whose `main` is the commit under test."""
    pytest.importorskip("pre_commit")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("not a git checkout of irpool")
    clone = tmp_path_factory.mktemp("published") / "irpool.git"
    git(ROOT, "clone", "-q", "--bare", str(ROOT), str(clone))
    git(clone, "update-ref", "refs/heads/main", head.stdout.strip())
    return clone


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for the module, so the hook's environment is built once."""
    return tmp_path_factory.mktemp("pre-commit-home")


def pre_commit_run(repo: Path, config: str, home: Path) -> subprocess.CompletedProcess[str]:
    (repo / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "pre-commit")
    env = os.environ | {"PRE_COMMIT_HOME": str(home), "PIP_RETRIES": "0", "PIP_TIMEOUT": "5"}
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
@pytest.mark.parametrize("document", ["README.md", "docs/linter.md"])
def test_the_documented_snippet_works_when_pasted(
    repo: Path, published: Path, pre_commit_home: Path, document: str
) -> None:
    (snippet,) = SNIPPET.findall((ROOT / document).read_text(encoding="utf-8"))
    assert PUBLISHED in snippet and "rev: main" in snippet
    run = pre_commit_run(repo, snippet.replace(PUBLISHED, str(published)), pre_commit_home)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "models/pool.xml:29:11: IR301 error" in run.stdout
    assert "Checked 1 file" in run.stdout and "pom.xml" not in run.stdout


def test_the_hook_passes_only_xml_files(repo: Path, published: Path, pre_commit_home: Path) -> None:
    """identify tags .svg and .xsd as xml too; the hook's `files` keeps them out."""
    (repo / "pom.xml").unlink()
    (repo / "diagram.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>\n')
    (repo / "ir.xsd").write_text('<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"/>\n')
    (repo / "notes.txt").write_text("<net/>\n")
    config = f"repos:\n  - repo: {published}\n    rev: main\n    hooks:\n      - id: irpool\n"
    run = pre_commit_run(repo, config, pre_commit_home)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Checked 1 file" in run.stdout and "models/pool.xml" in run.stdout


def test_autoupdate_pins_the_newest_commit_as_the_snippet_says(
    repo: Path, published: Path, pre_commit_home: Path
) -> None:
    (snippet,) = SNIPPET.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    assert "`pre-commit autoupdate --bleeding-edge --freeze` pins a sha" in snippet
    config = repo / ".pre-commit-config.yaml"
    config.write_text(snippet.replace(PUBLISHED, str(published)), encoding="utf-8")
    env = os.environ | {"PRE_COMMIT_HOME": str(pre_commit_home)}
    subprocess.run(
        [sys.executable, "-m", "pre_commit", "autoupdate", "--bleeding-edge", "--freeze"],
        cwd=repo,
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    head = git(published, "rev-parse", "HEAD").strip()
    assert f"    rev: {head}\n" in config.read_text(encoding="utf-8")  # no tag: a bare sha


WORKFLOW = re.compile(r"```yaml\n(# \.github/workflows/irpool\.yml\n.*?)```", re.S)
PIP_INSTALL = re.compile(r"- run: pip install (.+)")


@pytest.mark.slow
def test_the_workflow_snippet_installs_irpool_from_the_repository(
    published: Path, tmp_path: Path
) -> None:
    """irpool is not on the package index: the Actions job installs it from the repository
    (here a clone of it), and what that installs is irpool."""
    (workflow,) = WORKFLOW.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    (requirement,) = PIP_INSTALL.findall(workflow)
    # file://localhost/...: pip 23's requirement parser wants a host in the URL.
    requirement = requirement.strip('"').replace(PUBLISHED, f"file://localhost{published}")
    assert requirement.startswith("irpool @ git+file://localhost/")
    target = tmp_path / "site"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            requirement,
        ],
        env=os.environ | {"PIP_RETRIES": "0", "PIP_TIMEOUT": "5"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    assert (target / "irpool" / "cli" / "validate.py").is_file()
