"""Start-up: the commands that only print text never import NumPy (or the model), checking a
model imports NumPy only for its constants' values, and `irpool --help` lists the commands
without importing them."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from irpool.cli import cli
from irpool.cli.app import COMMANDS


def imported_by(args: list[str]) -> set[str]:
    """Every module `irpool ARGS` imports: `-X importtime` lists them on stderr."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "irpool", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()}
    assert "irpool.cli" in imported
    return imported


def numpy_modules(imported: set[str]) -> set[str]:
    return {name for name in imported if name.split(".")[0] == "numpy"}


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["rules"], ["rule", "IR301"]])
def test_text_only_commands_do_not_import_numpy(args: list[str]) -> None:
    imported = imported_by(args)
    assert not numpy_modules(imported)
    assert "irpool.model" not in imported


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "--help"],
        ["explain", "--help"],
        ["run", "--help"],
        ["server", "--help"],
        ["validate", "examples/valid/avgpool1_4d.xml"],
        ["validate", "examples/valid/maxpool8_dynamic.xml"],
        ["explain", "examples/valid/avgpool14_dynamic.xml"],
    ],
)
def test_checking_a_model_without_constants_imports_no_numpy(args: list[str]) -> None:
    """Half of `irpool validate`'s start-up was NumPy's import (docs/performance.md#start-up)."""
    assert not numpy_modules(imported_by(args))


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "examples/valid/avgpool1_4d.xml"],
        ["validate", "examples/valid/reduce_mean_global.xml"],
        ["server", "--help"],
    ],
)
def test_only_the_server_imports_the_language_server_libraries(args: list[str]) -> None:
    """pygls and lsprotocol (the `server` extra) cost start-up time: validate never needs them."""
    imported = imported_by(args)
    assert not {name.split(".")[0] for name in imported} & {"pygls", "lsprotocol", "cattrs"}
    assert "irpool.lsp" not in imported


def test_a_constant_s_value_brings_numpy_in() -> None:
    """The other side of the test above: the check sees NumPy when it is imported."""
    assert "numpy" in imported_by(["validate", "examples/valid/reduce_mean_global.xml"])


def test_the_help_listing_matches_each_command_s_own_summary() -> None:
    context = click.Context(cli)
    for name, summary in COMMANDS.items():
        command = cli.get_command(context, name)
        assert command is not None
        assert command.get_short_help_str(limit=1000) == summary


def modules_after(args: list[str]) -> set[str]:
    """Every module loaded once `irpool ARGS` has run in a fresh interpreter, as the script
    runs it. sys.modules, not `-X importtime`: that misses what importlib.import_module loads
    (the op modules)."""
    script = (
        "import atexit, sys; "
        "atexit.register(lambda: print(' '.join(sys.modules), file=sys.stderr)); "
        f"sys.argv = ['irpool', *{args!r}]; from irpool.cli import main; main()"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode in (0, 1), result.stderr
    return set(result.stderr.split())


# What `irpool validate` must never load besides the engine and its kernels (a run registers
# them): the other commands and their libraries, the report formats not asked for, and the
# standard modules only --fix (tempfile, shutil with bz2 and lzma) or an escaped name (html)
# needs.
_NOT_FOR_VALIDATE = (
    "irpool.compare",
    "irpool.lsp",
    "irpool.cli.run",
    "irpool.cli.compare",
    "irpool.cli.dump",
    "irpool.cli.explain",
    "irpool.cli.server",
    "irpool.report.dot",
    "irpool.report.explain",
    "irpool.report.json",
    "irpool.report.github",
    "irpool.report.sarif",
    "irpool.report.per_layer",
    "irpool.report.fingerprint",
    "tempfile",
    "shutil",
    "bz2",
    "lzma",
    "html",
)


@pytest.mark.parametrize(
    "model",
    [
        "examples/valid/chain_avgpool_adaptive.xml",
        "tests/models/torchvision/densenet121-default-fp32/model.xml",
        "tests/models/torchvision/efficientnet_b0-default-fp16/model.xml",
    ],
)
def test_validating_loads_only_what_validation_needs(model: str) -> None:
    """Start-up time is most of a small file's `irpool validate`; a module imported at the
    top of the wrong file would silently add to it (docs/performance.md#start-up)."""
    loaded = modules_after(["validate", model])
    assert {"irpool.model", "irpool.ops.avg_pool", "irpool.execute.errors"} <= loaded
    engine = {name for name in loaded if name.startswith("irpool.execute.")}
    assert engine == {"irpool.execute.errors"}
    assert not {
        name
        for name in loaded
        if any(
            name == unwanted or name.startswith(f"{unwanted}.") for unwanted in _NOT_FOR_VALIDATE
        )
    }


def test_version_is_the_installed_package_s(runner: CliRunner) -> None:
    """`--version` prints `irpool.__version__` (no metadata lookup at start-up), which the
    build reads as the package's version: the two cannot drift."""
    result = runner.invoke(cli, ["--version"], prog_name="irpool")
    assert result.stdout == f"irpool, version {importlib.metadata.version('irpool')}\n"
