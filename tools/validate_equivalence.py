"""Validate every IR file in the repository and compare two recordings byte for byte.

The proof that a speed-up of `irpool validate` changed no finding: record the command's
`json-with-metadata` report and exit code for each `.xml` under tests/ and examples/ with the
old code, then with the new, and compare. Each file is validated on its own, in one process
(click's CliRunner), from the repository root, so configuration files apply as they would.

    python tools/validate_equivalence.py record before.json
    python tools/validate_equivalence.py record after.json
    python tools/validate_equivalence.py compare before.json after.json

To record the old code, put its checkout first on the path:
`PYTHONPATH=/tmp/old python tools/validate_equivalence.py record before.json`.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]


def ir_files() -> list[str]:
    return sorted(
        str(path.relative_to(ROOT))
        for folder in ("tests", "examples")
        for path in (ROOT / folder).rglob("*.xml")
    )


def record(out: Path) -> None:
    import irpool
    from irpool.cli import cli

    print(f"recording with {Path(irpool.__file__).parent}", file=sys.stderr)
    os.chdir(ROOT)
    runner = CliRunner()
    found = {}
    for name in ir_files():
        result = runner.invoke(cli, ["validate", "--format", "json-with-metadata", name])
        found[name] = {"exit": result.exit_code, "output": result.output}
    out.write_text(json.dumps(found, indent=1, sort_keys=True))
    print(f"{len(found)} files recorded in {out}", file=sys.stderr)


def compare(before: Path, after: Path) -> int:
    old, new = json.loads(before.read_text()), json.loads(after.read_text())
    differing = sorted(name for name in old.keys() | new.keys() if old.get(name) != new.get(name))
    for name in differing:
        print(f"differs: {name}")
    print(f"{len(old)} and {len(new)} files; {len(differing)} differ")
    return 1 if differing else 0


if __name__ == "__main__":
    from equivalence import record_or_compare  # beside this file

    sys.exit(record_or_compare(__doc__, record, compare))
