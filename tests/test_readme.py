"""The outputs the README shows are what irpool prints today."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from irpool.cli import cli

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
SHOWN = re.findall(r"```text\n\$ irpool (.+?)\n(.*?)```", README, re.S)


def test_readme_shows_command_outputs() -> None:
    assert len(SHOWN) >= 2


@pytest.mark.parametrize(("command", "output"), SHOWN, ids=[c for c, _ in SHOWN])
def test_shown_output_is_current(
    command: str, output: str, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    result = runner.invoke(cli, command.split())
    assert result.output == output
