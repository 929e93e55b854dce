"""Generate irpool/ops/releases.json: the first OpenVINO release whose IR reader reads each op
version and each element type that the installed release reads (irpool/ops/opsets.json).

Each release is the `openvino` wheel from the package index, installed in a venv of its own
(`--venvs DIR`: DIR/<release>/bin/python, made by `--install`). For every release the same
probes go through its `read_model`:

- an op: a one-layer model of that type and `version` feeding a Result, as
  tools/gen_opsets.py probes; the reader looks the type up before it builds the op, so
  "doesn't contain the operation" or "unsupported opset" means it cannot read it, and any
  other complaint (or none) that it can;
- an element type: a Parameter of that type feeding a Result ("is not a member of enum"
  and "Unsupported"/"not supported" mean it cannot);
- every value of a choice attribute of the ops irpool models, on the op's first opset
  ("is not a member of enum" means it cannot).

Each release's answers are kept in `--cache` (build/releases-cache/), so a new probe asks
only for itself.

Every measured release refuses a port without `precision` (IR109), so the probes write it.

A release is listed as "the first" only when every later measured release reads the probe
too; what the oldest measured release reads is recorded as that release (it may be older).
Releases whose wheel cannot be installed here are listed with the reason.

    python tools/gen_releases.py --install      # venvs in .venv-releases/, then the table
    python tools/gen_releases.py --venvs DIR    # venvs made elsewhere
    python tools/gen_releases.py --check        # exit 1 when the file is out of date
"""

from __future__ import annotations

import argparse
import json
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "irpool" / "ops" / "releases.json"
OPSETS = ROOT / "irpool" / "ops" / "opsets.json"
VENVS = ROOT / ".venv-releases"
CACHE = ROOT / "build" / "releases-cache"  # a release's answers do not change
PROBE_TIMEOUT = 10.0  # seconds; a reader answers a probe in milliseconds
# The last patch of each release with a wheel for this Python (3.11: 2023.0 and later).
RELEASES = (
    "2023.0.2", "2023.1.0", "2023.2.0", "2023.3.0",
    "2024.0.0", "2024.1.0", "2024.2.0", "2024.3.0", "2024.4.0", "2024.5.0", "2024.6.0",
    "2025.0.0", "2025.1.0", "2025.2.0", "2025.3.0", "2025.4.1",
    "2026.0.0", "2026.1.0", "2026.2.1", "2026.3.1", "2026.4.1",
)  # fmt: skip
# Older releases: why they are not measured.
UNMEASURED = {
    "2022.3 and older": "no wheel for Python 3.11 on the package index",
}
ELEMENT_TYPES = (
    "bf16", "boolean", "f16", "f32", "f64", "f4e2m1", "f8e4m3", "f8e5m2", "f8e8m0",
    "i4", "i8", "i16", "i32", "i64", "nf4", "string",
    "u1", "u2", "u3", "u4", "u6", "u8", "u16", "u32", "u64",
)  # fmt: skip

# Releases before 2024 tell IR from other formats by parsing the file's first 512 bytes, and
# take a whole document there (even one followed by blanks) for no IR (measured, 2023.0):
# each probe ends in a comment that reaches past them.
PADDING = "<!--" + "-" * 600 + "->"

# Reads models (one a line) and answers 1 when the reader reads what the probe asks, else 0.
_WORKER = r"""
import re, sys
import numpy as np
try:
    from openvino import Core, Tensor
except ImportError:  # before 2023.1: only openvino.runtime
    from openvino.runtime import Core, Tensor
import os, tempfile
core = Core()
folder = tempfile.mkdtemp()
path = os.path.join(folder, "probe.xml")
with open(os.path.join(folder, "probe.bin"), "wb") as weights:
    weights.write(bytes(8))
print("ready", flush=True)
absent = re.compile(r"doesn't contain the operation with type|from unsupported opset"
                    r"|is not a member of enum|[Uu]nsupported|not supported|Unknown element"
                    r"|NETWORK_NOT_READ")
for line in sys.stdin:
    with open(path, "w") as model:
        model.write(line)
    try:
        core.read_model(path)
    except RuntimeError as error:
        print(0 if absent.search(str(error)) else 1, flush=True)
    else:
        print(1, flush=True)
"""


def op_probe(type_name: str, version: str) -> str:
    """A layer of this type and version feeding a Result: the reader builds only what feeds
    a Result, so the layer must, for its type to be looked up at all."""
    return (
        '<?xml version="1.0"?><net name="probe" version="11"><layers>'
        f'<layer id="0" name="probe" type="{type_name}" version="{version}">'
        '<output><port id="0" precision="FP32"><dim>1</dim></port></output></layer>'
        '<layer id="1" name="out" type="Result" version="opset1">'
        '<input><port id="0" precision="FP32"><dim>1</dim></port></input></layer>'
        '</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0" />'
        "</edges></net>" + PADDING
    )


def type_probe(element_type: str) -> str:
    """A Parameter of the type feeding a Result."""
    return (
        '<?xml version="1.0"?><net name="probe" version="11"><layers>'
        '<layer id="0" name="x" type="Parameter" version="opset1">'
        f'<data shape="2" element_type="{element_type}" />'
        '<output><port id="0" precision="FP32"><dim>2</dim></port></output></layer>'
        '<layer id="1" name="out" type="Result" version="opset1">'
        '<input><port id="0" precision="FP32"><dim>2</dim></port></input></layer>'
        '</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0" />'
        "</edges></net>" + PADDING
    )


def attribute_probe(type_name: str, version: str, name: str, value: str) -> str:
    return op_probe(type_name, version).replace(
        f'version="{version}">', f'version="{version}"><data {name}="{value}" />', 1
    )


def attribute_values() -> dict[str, str]:
    """Every value of a choice attribute of the ops irpool models, on the op's first opset:
    key "attr opset14 MaxPool rounding_type ceil_torch"."""
    from irpool.ops.base import AttrType
    from irpool.ops.registry import registered_ops

    found = {}
    for cls in registered_ops():
        version = f"opset{cls.opsets[0]}"
        for attr in cls.attributes:
            if attr.type is not AttrType.ENUM:
                continue
            for value in attr.choices:
                key = f"attr {version} {cls.type_name} {attr.name} {value}"
                found[key] = attribute_probe(cls.type_name, version, attr.name, value)
    return found


def probes() -> dict[str, str]:
    """Key ("op opset11 Interpolate", "type u4", "attr ...") -> its model text."""
    table = json.loads(OPSETS.read_text(encoding="utf-8"))
    found = {
        f"op {version} {name}": op_probe(name, version)
        for version, entry in table["versions"].items()
        for name in entry["types"]
    }
    types = {f"type {name}": type_probe(name) for name in ELEMENT_TYPES}
    return found | types | attribute_values()


def read_by(python: Path, models: list[str]) -> list[bool]:
    """Which models that Python's OpenVINO reads. A probe that kills or hangs the worker
    (building some ops from an empty layer does) was found, then failed: True."""
    answers: list[bool] = []
    worker = None
    try:
        for model in models:
            if worker is None:
                worker = _start(python)
            assert worker.stdin is not None and worker.stdout is not None
            try:
                worker.stdin.write(model + "\n")
                worker.stdin.flush()
                ready, _, _ = select.select([worker.stdout], [], [], PROBE_TIMEOUT)
                answer = worker.stdout.readline() if ready else ""
            except BrokenPipeError:
                answer = ""
            if not answer:
                _stop(worker)
                worker = None
            answers.append(answer.strip() != "0")
    finally:
        if worker is not None:
            _stop(worker)
    return answers


def _start(python: Path) -> subprocess.Popen[str]:
    worker = subprocess.Popen(
        [str(python), "-c", _WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert worker.stdout is not None
    if worker.stdout.readline().strip() != "ready":
        raise SystemExit(f"{python}: OpenVINO does not start")
    return worker


def _stop(worker: subprocess.Popen[str]) -> None:
    worker.kill()
    worker.wait()


def install(venvs: Path, release: str) -> str | None:
    """Make the release's venv; the reason it cannot be made, or None."""
    target = venvs / release
    if (target / "bin" / "python").exists():
        return None
    subprocess.run([sys.executable, "-m", "venv", str(target)], check=True)
    pip = [str(target / "bin" / "pip"), "install", "-q", f"openvino=={release}"]
    done = subprocess.run(pip, capture_output=True, text=True, check=False)
    return None if done.returncode == 0 else done.stderr.strip().splitlines()[-1]


def short(release: str) -> str:
    """2023.0.2 -> 2023.0: the release a user names."""
    return ".".join(release.split(".")[:2])


def cached_reads(cache: Path, release: str, python: Path, models: dict[str, str]) -> list[bool]:
    """What the release reads of every probe, asking it only those the cache lacks."""
    path = cache / f"{release}.json"
    known: dict[str, bool] = json.loads(path.read_text()) if path.exists() else {}
    missing = [key for key in models if key not in known]
    if missing:
        known |= dict(zip(missing, read_by(python, [models[k] for k in missing]), strict=True))
        cache.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(known, indent=0, sort_keys=True))
    return [known[key] for key in models]


def generate(venvs: Path, do_install: bool, cache: Path) -> dict[str, Any]:
    models = probes()
    keys = list(models)
    reads: dict[str, list[bool]] = {}
    unmeasured = dict(UNMEASURED)
    for release in RELEASES:
        problem = install(venvs, release) if do_install else None
        python = venvs / release / "bin" / "python"
        if problem is not None or not python.exists():
            unmeasured[short(release)] = problem or f"no venv at {python}"
            continue
        reads[release] = cached_reads(cache, release, python, models)
        print(f"{release}: reads {sum(reads[release])} of {len(keys)}", file=sys.stderr)
    measured = list(reads)
    first: dict[str, str] = {}
    for position, key in enumerate(keys):
        since = None
        for release in reversed(measured):  # the oldest from which every later one reads it
            if not reads[release][position]:
                break
            since = release
        first[key] = short(since) if since else "never"
    return _table(first, [short(r) for r in measured], unmeasured)


def _table(
    first: dict[str, str], measured: list[str], unmeasured: dict[str, str]
) -> dict[str, Any]:
    ops: dict[str, dict[str, str]] = {}
    types: dict[str, str] = {}
    attributes: dict[str, str] = {}
    for key, since in first.items():
        kind, *rest = key.split(" ")
        if kind == "op":
            ops.setdefault(rest[0], {})[rest[1]] = since
        elif kind == "type":
            types[rest[0]] = since
        else:
            attributes[" ".join(rest)] = since
    return {
        "generated_by": "tools/gen_releases.py",
        "measured": measured,
        "unmeasured": unmeasured,
        # version -> type -> the first measured release whose reader reads it
        "ops": ops,
        "element_types": types,
        # "opset14 MaxPool rounding_type ceil_torch" -> the first release that reads the value
        "attributes": attributes,
    }


def render(table: dict[str, Any]) -> str:
    return json.dumps(table, indent=1, sort_keys=False) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venvs", type=Path, default=VENVS, help="DIR/<release>/bin/python")
    parser.add_argument("--install", action="store_true", help="make the missing venvs")
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument("--cache", type=Path, default=CACHE, help="each release's answers")
    args = parser.parse_args()
    text = render(generate(args.venvs, args.install, args.cache))
    if args.check:
        if OUTPUT.read_text(encoding="utf-8") != text:
            print(f"{OUTPUT} is out of date: run tools/gen_releases.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
