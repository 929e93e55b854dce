"""The static checks pyproject.toml configures stay clean: mypy (strict) on the package, the tools
and the benchmarks (its `files`), ruff's lint and format on those and the tests. Each runs as its
own process from the repository root, so it reads the settings in pyproject.toml; each is
skipped when its tool is not installed (both are pinned in the `test` extra)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def check(tool: str, *args: str) -> None:
    pytest.importorskip(tool)
    done = subprocess.run(
        [sys.executable, "-m", tool, *args], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_mypy_strict_is_clean() -> None:
    # No cache: one left in the tree could hide an error, or go stale; and writing one costs
    # 13% (52 against 60 s of CPU, AMD EPYC family 25 model 1, 2026-12-07).
    check("mypy", "--cache-dir", os.devnull)


@pytest.mark.parametrize("command", [("check",), ("format", "--check")], ids=["lint", "format"])
def test_ruff_is_clean(command: tuple[str, ...]) -> None:
    check("ruff", *command, "--no-cache", "irpool", "tests", "tools", "benchmarks")
