"""The README says what is true today: the outputs it shows, the Python it shows, the ops it
lists, the files it links; and it stays a page for users (at most 300 lines)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from irpool.cli import cli

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
SHOWN = re.findall(r"```text\n\$ irpool (.+?)\n(.*?)```", README, re.S)
PYTHON = re.findall(r"```python\n(.*?)```", README, re.S)
# `print(value)  # what it prints, then a remark`: the comment starts with what is printed.
PRINTED = re.compile(r"^print\((?P<value>.+)\)  # (?P<comment>.+)$", re.M)


def test_readme_is_at_most_300_lines() -> None:
    assert len(README.splitlines()) <= 300


def test_readme_shows_command_outputs() -> None:
    assert len(SHOWN) >= 2


@pytest.mark.parametrize(("command", "output"), SHOWN, ids=[c for c, _ in SHOWN])
def test_shown_output_is_current(
    command: str, output: str, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    result = runner.invoke(cli, command.split())
    assert result.output == output


def test_shown_python_prints_what_its_comments_say(monkeypatch: pytest.MonkeyPatch) -> None:
    """The blocks run in order in one namespace, as a reader pastes them."""
    monkeypatch.chdir(ROOT)
    checked = 0

    def prints(value: object, comment: str) -> None:
        nonlocal checked
        assert comment.startswith(str(value)), (value, comment)
        checked += 1

    namespace: dict[str, object] = {"_prints": prints}
    with contextlib.redirect_stdout(io.StringIO()):
        for block in PYTHON:
            code = PRINTED.sub(lambda m: f"_prints({m['value']}, {m['comment']!r})", block)
            exec(compile(code, "README.md", "exec"), namespace)
    assert checked >= 3


@pytest.mark.parametrize("target", sorted(set(re.findall(r"\]\(([^)#]+)", README))))
def test_linked_file_exists(target: str) -> None:
    assert (ROOT / target).exists()


def test_the_requirements_line_names_the_python_pyproject_requires() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    minimum = project["requires-python"].removeprefix(">=")
    line = next(line for line in README.splitlines() if line.startswith("Requirements:"))
    assert f"Python ≥ {minimum};" in line
    assert "git" in line


def test_the_test_extra_stays_light_and_torch_has_its_own() -> None:
    """`pip install -e '.[test]'` (the README's first command) must not pull PyTorch, whose
    default Linux build is several GB; CI installs the `torch-oracle` extra besides."""
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert not [r for r in extras["test"] if r.startswith("torch")]
    assert extras["torch-oracle"] == ["torch==2.13.0"]
    assert "-e '.[torch-oracle]'" in (ROOT / ".ci" / "run").read_text()
    assert "irpool[server]" in extras["test"]  # the language server's tests run everywhere
