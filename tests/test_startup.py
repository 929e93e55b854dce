"""Start-up: the commands that only print text never import NumPy (or the model), and
`irpool --help` lists the commands without importing them."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest

from irpool.cli import cli
from irpool.cli.app import COMMANDS


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["rules"], ["rule", "IR301"]])
def test_text_only_commands_do_not_import_numpy(args: list[str]) -> None:
    """`-X importtime` lists every module the process imports, on stderr."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "irpool", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()}
    assert "irpool.cli" in imported
    assert not {name for name in imported if name.split(".")[0] == "numpy"}
    assert "irpool.model" not in imported


def test_the_help_listing_matches_each_command_s_own_summary() -> None:
    context = click.Context(cli)
    for name, summary in COMMANDS.items():
        command = cli.get_command(context, name)
        assert command is not None
        assert command.get_short_help_str(limit=1000) == summary


def test_validating_imports_no_kernel() -> None:
    """Kernels register themselves when a model first runs (irpool.execute.kernels)."""
    script = (
        "import sys, irpool; irpool.load('examples/valid/chain_avgpool_adaptive.xml').validate(); "
        "print(' '.join(sorted(sys.modules)))"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    imported = set(result.stdout.split())
    assert "irpool.ops.avg_pool" in imported
    kernels = {"avg_pool", "adaptive_avg_pool", "sliding", "matmul", "whole", "direct", "driver"}
    assert not {f"irpool.execute.{name}" for name in kernels} & imported
