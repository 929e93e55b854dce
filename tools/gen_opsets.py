"""Generate irpool/ops/opsets.json: the op types OpenVINO's IR reader creates per `version`.

The candidates are the op names of every opset table shipped with the installed OpenVINO
(include/openvino/opsets/opsetN_tbl.hpp), plus the IR's own spelling "Const". Membership is
not taken from those headers but asked of the IR reader itself: for every candidate version
(opset0 .. one past the last opset, the extension opsets the reader knows, and spellings it
might accept) and every candidate name, a one-layer model goes through `read_model`. The
reader looks the type up before it builds the op, so its answer tells membership apart from
every later complaint about the (empty) layer:

    "Opset X doesn't contain the operation with type: T"   T is not in X
    "Cannot create T layer ... from unsupported opset: X"  X is no opset at all
    anything else, or success                             X has T

The reader matches most types ignoring case; the few it matches only as written ("Const",
and those it special-cases: the extension opsets', MVN in opset1) are found the same way,
each member tried in its swapped case. The reader (not the headers) also decides that a
layer written "Constant" is created without its value; that is irpool's rule IR216.
`tests/ops/test_opsets.py` checks the table against the installed OpenVINO.

    python tools/gen_opsets.py            # rewrites irpool/ops/opsets.json
    python tools/gen_opsets.py --check    # exit 1 when the file is out of date

Needs the real OpenVINO runtime (`pip install -e '.[oracle]'`).
"""

from __future__ import annotations

import argparse
import json
import re
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

from gen_releases import op_probe  # the same probe: a layer of the type feeding a Result

try:
    import openvino as ov
except ImportError as error:
    raise SystemExit("tools/gen_opsets.py needs OpenVINO: pip install -e '.[oracle]'") from error

OUTPUT = Path(__file__).resolve().parent.parent / "irpool" / "ops" / "opsets.json"
TABLES = Path(ov.__file__).parent / "include" / "openvino" / "opsets"
# Versions that are not opsetN but that an IR reader might know (found in the reader's
# strings: "experimental" and "extension"), and near misses of opsetN it might tolerate.
OTHER_VERSIONS = ("experimental", "extension", "internal", "opset", "Opset1", "OPSET1", "opset01")
# The IR writes Constant as "Const"; the reader reads a constant's value only then.
IR_SPELLINGS = {"Const": "Constant"}

_ABSENT = re.compile(r"doesn't contain the operation with type|from unsupported opset")
PROBE_TIMEOUT = 10.0  # seconds; the reader answers a probe in milliseconds
_TABLE_ENTRY = re.compile(r"^_OPENVINO_OP_REG\((\w+),", re.M)


def candidate_names() -> list[str]:
    names = {"Const"}
    for table in TABLES.glob("opset*_tbl.hpp"):
        names.update(_TABLE_ENTRY.findall(table.read_text()))
    return sorted(names)


def candidate_versions() -> list[str]:
    numbers = [int(p.name[5:].removesuffix("_tbl.hpp")) for p in TABLES.glob("opset*_tbl.hpp")]
    return [f"opset{n}" for n in range(0, max(numbers) + 2)] + list(OTHER_VERSIONS)


# Answers "TYPE VERSION" lines with 1 when the reader finds the op, 0 when it does not.
_WORKER = f"""
import re, sys
import numpy as np, openvino as ov
core = ov.Core()
absent = re.compile({_ABSENT.pattern!r})
for line in sys.stdin:
    model = line.rstrip("\\n")
    try:
        core.read_model(model, ov.Tensor(np.zeros(0, np.uint8)))
    except RuntimeError as error:
        print(0 if absent.search(str(error)) else 1, flush=True)
    else:
        print(1, flush=True)
"""


class Reader:
    """OpenVINO's IR reader in a worker process. Building some ops from an empty layer
    crashes or hangs it (Broadcast-1 does); the type lookup comes first and throws when the
    op is missing, so either means the op was found. The worker is then restarted."""

    def __init__(self) -> None:
        self._worker: subprocess.Popen[str] | None = None

    def creates(self, type_name: str, version: str) -> bool:
        """Whether the reader finds an op for this type in this version."""
        worker = self._start()
        assert worker.stdin is not None and worker.stdout is not None
        try:
            worker.stdin.write(op_probe(type_name, version) + "\n")
            worker.stdin.flush()
        except BrokenPipeError:
            self.close()
            return self.creates(type_name, version)  # it had died on the previous probe
        ready, _, _ = select.select([worker.stdout], [], [], PROBE_TIMEOUT)
        answer = worker.stdout.readline() if ready else ""
        if not answer:
            self.close()
            return True
        return answer.strip() == "1"

    def _start(self) -> subprocess.Popen[str]:
        if self._worker is None or self._worker.poll() is not None:
            self._worker = subprocess.Popen(
                [sys.executable, "-c", _WORKER], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            )  # fmt: skip
        return self._worker

    def close(self) -> None:
        if self._worker is not None:
            self._worker.kill()
            self._worker.wait()
            self._worker = None


def generate() -> dict[str, Any]:
    reader = Reader()
    try:
        return _table(reader)
    finally:
        reader.close()


def _table(reader: Reader) -> dict[str, Any]:
    names = candidate_names()
    versions: dict[str, list[str]] = {}
    for version in candidate_versions():
        members = [name for name in names if reader.creates(name, version)]
        if members:
            versions[version] = members
    every = {name for members in versions.values() for name in members}
    return {
        "generated_by": "tools/gen_opsets.py",
        "openvino": ov.__version__.split("-")[0],
        # An IR spelling -> the op it names (the reader loads a constant's value only then).
        "ir_spellings": {k: v for k, v in IR_SPELLINGS.items() if k in every},
        # Per version: the types it has, and those of them the reader matches only as written
        # (the rest it matches ignoring case), each tried in its swapped case.
        "versions": {
            version: {
                "types": members,
                "exact": [name for name in members if not reader.creates(name.swapcase(), version)],
            }
            for version, members in versions.items()
        },
    }


def render(table: dict[str, Any]) -> str:
    return json.dumps(table, indent=1) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    text = render(generate())
    if parser.parse_args().check:
        if OUTPUT.read_text() != text:
            print(f"{OUTPUT} is out of date: run tools/gen_opsets.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
