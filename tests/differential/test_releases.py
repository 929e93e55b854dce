"""Live differential test: `validate --openvino-version R` against release R's own
`read_model`, for every release venv tools/gen_releases.py made (`$IRPOOL_RELEASE_VENVS`, by
default .venv-releases/<release>/) and every committed corpus model: irpool reports IR230
exactly when that release cannot read the file. Without such venvs it skips.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import irpool
from irpool.check.releases import parse_release, shown

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent.parent
VENVS = Path(os.environ.get("IRPOOL_RELEASE_VENVS", ROOT / ".venv-releases"))
PYTHONS = sorted(VENVS.glob("*/bin/python")) if VENVS.is_dir() else []
MODELS = sorted(ROOT.glob("tests/models/*/*/*.xml"))
# Reads each path on stdin; prints 1 when the release reads it, else 0 and the reason.
READER = r"""
import sys
try:
    from openvino import Core
except ImportError:
    from openvino.runtime import Core
core = Core()
for line in sys.stdin:
    try:
        core.read_model(line.strip())
        print(1, flush=True)
    except Exception as error:
        print(0, str(error).replace("\n", " ")[-200:], flush=True)
"""


@pytest.mark.skipif(not PYTHONS, reason=f"no release venvs in {VENVS} (tools/gen_releases.py)")
@pytest.mark.parametrize("python", PYTHONS, ids=[p.parent.parent.name for p in PYTHONS])
def test_ir230_exactly_where_the_release_cannot_read(python: Path) -> None:
    release = shown(parse_release(python.parent.parent.name))
    done = subprocess.run(
        [str(python), "-c", READER],
        input="".join(f"{path}\n" for path in MODELS),
        capture_output=True,
        text=True,
        check=True,
    )
    answers = done.stdout.splitlines()
    assert len(answers) == len(MODELS)
    disagree = []
    for path, answer in zip(MODELS, answers, strict=True):
        reads = answer.startswith("1")
        found = [
            d for d in irpool.load(path, openvino_version=release).validate() if d.code == "IR230"
        ]
        if reads == bool(found):
            disagree.append(f"{path.relative_to(ROOT)}: {answer[:160]} / {found[:1]}")
    assert not disagree, "\n".join(disagree)
