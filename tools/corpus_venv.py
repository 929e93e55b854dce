"""How a corpus generator whose exporters live in a venv of their own gets there: when an
import fails, it re-runs itself with that venv's Python, or says how to make the venv.
Standard library only, since it runs where the exporters are missing."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NoReturn

REPO = Path(__file__).resolve().parent.parent
VENV = Path(os.environ.get("IRPOOL_CORPUS_VENV", REPO / ".venv-corpus"))


def rerun_in_corpus_venv(error: ImportError, how_to_install: str) -> NoReturn:
    """Re-run this script with $IRPOOL_CORPUS_VENV/bin/python (default .venv-corpus) unless it
    is already running there; else stop with the error and `how_to_install`."""
    python = VENV / "bin" / "python"
    # sys.prefix, not the executable: a venv's python is a symlink to the base interpreter.
    if python.exists() and Path(sys.prefix).resolve() != VENV.resolve():
        os.execv(python, [str(python), sys.argv[0], *sys.argv[1:]])
    raise SystemExit(f"{error}\n\n{how_to_install}") from error
