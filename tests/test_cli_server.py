"""`irpool server` without its extra: a clear message and exit 2, no traceback (the protocol
itself is tested end to end in tests/test_server.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

# Blocks the import of a module, as if it were not installed (a None in sys.modules).
WITHOUT = "import sys; sys.modules[{module!r}] = None; from irpool.cli import main; main()"


@pytest.mark.parametrize("module", ["pygls", "lsprotocol", "lsprotocol.types"])
def test_server_without_the_server_extra_says_how_to_install_it(module: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT.format(module=module), "server"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"irpool: `irpool server` needs the `server` extra ({module.split('.')[0]} is not "
        "installed): "
        "pip install 'irpool[server]'\n"
    )
